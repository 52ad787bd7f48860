/**
 * One server the console is connected to: a Switchboard Client over a traced channel, the calls in
 * flight (so the page can cancel them), and the questions the server asked that wait for the person
 * at the page (elicitation, sampling). Everything it sees goes into the console's event log.
 */
import { checkServer } from '../check/run.js';
import type { VersionNegotiation } from '../client/client.js';
import type { Subscription } from '../client/subscriptions.js';
import type { Channel } from '../engine/channel.js';
import { Client } from '../extensions/client.js';
import { SKILLS_EXTENSION } from '../extensions/skills/types.js';
import { describeTarget, openTarget } from '../node/target.js';
import { ErrorCode, ProtocolError, SwitchboardError } from '../protocol/errors.js';
import { isRevision, REVISIONS } from '../protocol/revisions.js';
import type {
  CreateMessageResult,
  ElicitResult,
  ElicitUrlParams,
  LoggingLevel,
  Root,
} from '../protocol/types.js';
import { StreamableHttpClientChannel } from '../transports/http/client/streamable-channel.js';
import { StdioClientChannel } from '../transports/stdio/client-channel.js';
import { errorMessage, isPlainObject } from '../util/guards.js';
import type { ConnectionSummary, ConnectRequest, ConnectTarget, Operations, Question } from './api-types.js';
import type { EventLog } from './event-log.js';
import { GATEWAY_SERVER_NAME, readGatewayHealth } from './gateway-health.js';
import { TracingChannel } from './tracing-channel.js';

/** A person answers the server's questions and waits on slow tools: calls may take this long. */
const CALL_TIMEOUT_MS = 10 * 60_000;
/** How long `auto` waits for the server/discover answer (the spawn of a stdio server included). */
const PROBE_TIMEOUT_MS = 20_000;
/** The console is for seeing what a server says: ask for every log message unless told otherwise. */
const DEFAULT_LOG_LEVEL: LoggingLevel = 'debug';
const LIST_CHANGED = [
  'notifications/tools/list_changed',
  'notifications/resources/list_changed',
  'notifications/prompts/list_changed',
  'notifications/resources/updated',
] as const;

/** How often one call may ask for links to be followed before its error stands. */
const MAX_URL_ROUNDS = 3;

/** A request from the page that cannot be right (the API answers 400 with the message). */
export class BadRequest extends Error {}

interface PendingQuestion {
  readonly question: Question;
  readonly resolve: (result: Record<string, unknown>) => void;
}

/** What a declined sampling request answers (the spec's example code for "user rejected"). */
const SAMPLING_DECLINED = -1;

export class ConsoleConnection {
  readonly client: Client;
  #summary: ConnectionSummary;
  #transport: StdioClientChannel | StreamableHttpClientChannel | undefined;
  readonly #calls = new Map<string, AbortController>();
  readonly #questions = new Map<string, PendingQuestion>();
  /** The resources followed from the page, by URI. */
  readonly #watches = new Map<string, Subscription>();
  #roots: Root[] = [];
  #nextQuestion = 1;
  #closing = false;

  constructor(
    readonly id: string,
    request: ConnectRequest,
    private readonly events: EventLog,
  ) {
    const target = targetOf(request);
    this.#summary = {
      id,
      label: request.label?.trim() || describeTarget(target),
      target,
      state: 'connecting',
      roots: [],
      logLevel: DEFAULT_LOG_LEVEL,
      subscriptions: [],
    };
    this.client = new Client(
      { name: 'switchboard-console', version: '1.0.0' },
      {
        version: negotiation(request.protocol),
        timeoutMs: CALL_TIMEOUT_MS,
        // Generous: a server/discover probe that times out falls back to the legacy handshake, and a
        // console user would rather wait for a slow start than see the wrong era.
        probeTimeoutMs: PROBE_TIMEOUT_MS,
        // The console shows what the server answers now, never a cached answer.
        cache: false,
        logLevel: DEFAULT_LOG_LEVEL,
      },
    );
    // Declared before connecting: a legacy connection fixes its capabilities at initialize.
    this.client.onElicitation((params, ctx) => this.ask({ kind: 'elicitation', params }, ctx.signal), {
      form: true,
      url: true,
    });
    this.client.onSampling(
      (params, ctx) =>
        this.ask(
          { kind: 'sampling', params: { ...params } },
          ctx.signal,
        ) as Promise<never> as Promise<CreateMessageResult>,
    );
    this.client.setRoots(() => this.#roots);
    this.client.onLog((message) =>
      this.events.push({
        kind: 'log',
        connectionId: id,
        level: message.level,
        ...(message.logger === undefined ? {} : { logger: message.logger }),
        data: message.data,
      }),
    );
    for (const method of LIST_CHANGED) {
      this.client.on(method, (params) =>
        this.events.push({ kind: 'notification', connectionId: id, method, params }),
      );
    }
  }

  get summary(): ConnectionSummary {
    return this.#summary;
  }

  /** Opens the transport and negotiates; the summary (and an event) says how it went. */
  async connect(): Promise<void> {
    this.update({});
    const started = performance.now();
    try {
      await this.client.connect(() => new TracingChannel(this.open(), this.trace));
    } catch (error) {
      this.update({ state: 'failed', error: this.explain(error) });
      await this.client.close().catch(() => undefined);
      return;
    }
    const client = this.client;
    this.update({
      state: 'open',
      negotiationMs: Math.round(performance.now() - started),
      era: client.era,
      revision: client.revision,
      capabilities: client.serverCapabilities,
      transport: this.transportName(),
      ...(client.serverInfo ? { serverInfo: client.serverInfo } : {}),
      ...(client.instructions === undefined ? {} : { instructions: client.instructions }),
    });
    if (client.serverInfo?.name === GATEWAY_SERVER_NAME) await this.readGateway();
    // A 2026-07-28 server sends list changes only on a listen stream (a legacy one sends them to
    // every connection): hold one open, so the page's lists follow the server.
    const caps = client.serverCapabilities;
    if (
      client.era === 'modern' &&
      (caps.tools?.listChanged || caps.prompts?.listChanged || caps.resources?.listChanged)
    )
      client.listen({ toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true });
  }

  async close(): Promise<void> {
    this.#closing = true;
    for (const call of this.#calls.values()) call.abort();
    await this.client.close().catch(() => undefined);
    if (this.#summary.state !== 'failed') this.update({ state: 'closed' });
  }

  /** Runs one of the page's operations against the server. */
  async run<K extends keyof Operations>(op: K, body: unknown): Promise<Operations[K]['result']> {
    if (!isPlainObject(body)) throw new BadRequest('The request body must be a JSON object.');
    const run = this.operations[op] as unknown as
      | ((body: Record<string, unknown>) => Promise<Operations[K]['result']>)
      | undefined;
    if (!run) throw new BadRequest(`There is no operation "${op}".`);
    // The checker makes connections of its own: a server this one could not reach can be checked too.
    const anyState: readonly string[] = ['answer', 'cancel', 'roots', 'check'];
    if (this.#summary.state !== 'open' && !anyState.includes(op)) {
      throw new BadRequest(`The connection is ${this.#summary.state}; connect again to use it.`);
    }
    return run(body);
  }

  private readonly operations: {
    [K in keyof Operations]: (body: Record<string, unknown>) => Promise<Operations[K]['result']>;
  } = {
    tools: () => (this.offers('tools') ? this.client.listTools() : Promise.resolve({ tools: [] })),
    resources: async () => {
      if (!this.offers('resources')) return { resources: [], resourceTemplates: [] };
      const { resources } = await this.client.listResources();
      let resourceTemplates: Operations['resources']['result']['resourceTemplates'] = [];
      try {
        resourceTemplates = (await this.client.listResourceTemplates()).resourceTemplates;
      } catch (error) {
        // Templates are optional within the resources capability.
        if (!(error instanceof ProtocolError && error.code === ErrorCode.MethodNotFound)) throw error;
      }
      return { resources, resourceTemplates };
    },
    prompts: () => (this.offers('prompts') ? this.client.listPrompts() : Promise.resolve({ prompts: [] })),
    call: async (body) => {
      const name = text(body, 'name');
      const callId = text(body, 'callId');
      const args = body.arguments;
      if (args !== undefined && !isPlainObject(args)) throw new BadRequest('"arguments" must be an object.');
      if (this.#calls.has(callId)) throw new BadRequest(`A call "${callId}" is already running.`);
      const abort = new AbortController();
      this.#calls.set(callId, abort);
      const options = {
        signal: abort.signal,
        onprogress: (update: { progress: number; total?: number; message?: string }) =>
          this.events.push({
            kind: 'progress',
            connectionId: this.id,
            callId,
            progress: update.progress,
            ...(update.total === undefined ? {} : { total: update.total }),
            ...(update.message === undefined ? {} : { message: update.message }),
          }),
      };
      try {
        for (let round = 1; ; round++) {
          try {
            return await this.client.callTool(name, args, options);
          } catch (error) {
            // 2025-11-25: the call needs the person to visit a URL first; once they accepted every
            // link, the call runs again (2026-07-28 does the same inside the client, as input_required).
            const links = urlElicitationsRequired(error);
            if (!links || round > MAX_URL_ROUNDS) throw error;
            for (const link of links) {
              const answer = await this.ask({ kind: 'elicitation', params: link }, abort.signal);
              if (answer.action !== 'accept') throw error;
            }
          }
        }
      } finally {
        this.#calls.delete(callId);
      }
    },
    cancel: async (body) => {
      const call = this.#calls.get(text(body, 'callId'));
      call?.abort(new SwitchboardError('ABORTED', 'Cancelled from the console.'));
      return { cancelled: call !== undefined };
    },
    read: (body) => this.client.readResource(text(body, 'uri')),
    skills: async () =>
      this.client.serverCapabilities.extensions?.[SKILLS_EXTENSION] === undefined
        ? { skills: [] }
        : { skills: (await this.client.listSkills()).skills },
    'skill-file': async (body) => {
      const file = await this.client.readSkillFile(text(body, 'uri'));
      return {
        uri: file.uri,
        size: file.bytes.byteLength,
        ...(file.mimeType === undefined ? {} : { mimeType: file.mimeType }),
        ...(file.text === undefined ? {} : { text: file.text }),
      };
    },
    subscribe: async (body) => {
      const uri = text(body, 'uri');
      if (this.#watches.has(uri)) return { uri };
      const subscription = this.client.listen({ resourceSubscriptions: [uri] });
      const agreed = await subscription.acknowledged;
      if (!agreed.resourceSubscriptions?.includes(uri)) {
        await subscription.close();
        throw new SwitchboardError(
          'CAPABILITY_MISSING',
          `The server does not offer updates of ${uri} (its resources capability has no "subscribe", or it refused the URI).`,
        );
      }
      this.#watches.set(uri, subscription);
      this.update({ subscriptions: [...this.#watches.keys()] });
      // A server that ends the stream (or a connection that closes) ends the watch.
      void subscription.closed.then(() => {
        if (this.#watches.get(uri) !== subscription) return;
        this.#watches.delete(uri);
        this.update({ subscriptions: [...this.#watches.keys()] });
      });
      return { uri };
    },
    unsubscribe: async (body) => {
      const uri = text(body, 'uri');
      const subscription = this.#watches.get(uri);
      if (!subscription) return { unsubscribed: false };
      this.#watches.delete(uri);
      this.update({ subscriptions: [...this.#watches.keys()] });
      await subscription.close();
      return { unsubscribed: true };
    },
    prompt: (body) => {
      const args = body.arguments;
      if (
        args !== undefined &&
        !(isPlainObject(args) && Object.values(args).every((v) => typeof v === 'string'))
      ) {
        throw new BadRequest('"arguments" must be an object of strings.');
      }
      return this.client.getPrompt(text(body, 'name'), args as Record<string, string> | undefined);
    },
    complete: (body) => {
      if (!isPlainObject(body.ref) || !isPlainObject(body.argument))
        throw new BadRequest('completion needs "ref" and "argument" objects.');
      return this.client.complete(body as unknown as Operations['complete']['request']);
    },
    gateway: async () => {
      if (this.#summary.gateway === undefined)
        throw new BadRequest(`${this.#summary.label} is not a switchboard gateway.`);
      return this.readGateway();
    },
    'log-level': async (body) => {
      const level = text(body, 'level') as LoggingLevel;
      await this.client.setLoggingLevel(level);
      this.update({ logLevel: level });
      return {};
    },
    roots: async (body) => {
      const roots = body.roots;
      if (!Array.isArray(roots) || !roots.every((r) => isPlainObject(r) && typeof r.uri === 'string'))
        throw new BadRequest('"roots" must be a list of { uri, name? }.');
      this.#roots = roots as Root[];
      // Tells a legacy server that declared interest that the list changed.
      this.client.setRoots(() => this.#roots);
      this.update({ roots: this.#roots });
      return {};
    },
    check: (body) => {
      const revisions = body.revisions ?? [];
      if (!Array.isArray(revisions) || !revisions.every((r) => typeof r === 'string' && isRevision(r)))
        throw new BadRequest(`"revisions" must be a list of revisions: ${REVISIONS.join(', ')}.`);
      const target = this.#summary.target;
      return checkServer(target, {
        ...(revisions.length > 0 ? { revisions } : {}),
        callTools: body.callTools === true,
        onProgress: (line) => this.events.push({ kind: 'check-progress', connectionId: this.id, line }),
      });
    },
    answer: async (body) => {
      const questionId = text(body, 'questionId');
      const pending = this.#questions.get(questionId);
      if (!pending) throw new BadRequest(`No question "${questionId}" is waiting (answered or withdrawn).`);
      if (!isPlainObject(body.result)) throw new BadRequest('"result" must be an object.');
      pending.resolve(body.result);
      return {};
    },
  };

  /** A question for the person at the page; settles with their answer, or fails when the server withdraws it. */
  private ask(
    question:
      | { kind: 'elicitation'; params: Question['params'] }
      | { kind: 'sampling'; params: Record<string, unknown> },
    signal: AbortSignal,
  ): Promise<ElicitResult> {
    const id = `q${this.#nextQuestion++}`;
    const asked = { id, ...question } as Question;
    return new Promise<ElicitResult>((resolve, reject) => {
      const settle = () => {
        signal.removeEventListener('abort', withdrawn);
        this.#questions.delete(id);
        this.events.push({ kind: 'question-closed', connectionId: this.id, questionId: id });
      };
      const withdrawn = () => {
        settle();
        reject(signal.reason ?? new SwitchboardError('ABORTED', 'The server withdrew the question.'));
      };
      if (signal.aborted) return withdrawn();
      signal.addEventListener('abort', withdrawn, { once: true });
      this.#questions.set(id, {
        question: asked,
        resolve: (result) => {
          settle();
          // Sampling has no "decline" result: the person's refusal goes back as an error.
          if (asked.kind === 'sampling' && result.action === 'decline')
            reject(
              new ProtocolError(
                SAMPLING_DECLINED,
                'The person at the console declined the sampling request.',
              ),
            );
          else resolve(result as unknown as ElicitResult);
        },
      });
      this.events.push({ kind: 'question', connectionId: this.id, question: asked });
    });
  }

  /** Reads the servers behind a gateway (its `/readyz`, over HTTP only) into the summary. */
  private async readGateway() {
    const target = this.#summary.target;
    const gateway =
      target.kind === 'http'
        ? await readGatewayHealth(target.url)
        : {
            healthUrl: '',
            checkedAt: Date.now(),
            upstreams: [],
            error:
              'A gateway over stdio serves no health report: connect to its HTTP endpoint to see its servers.',
          };
    this.update({ gateway });
    return gateway;
  }

  /** The questions still waiting, for a page that opens while one is asked. */
  questions(): Question[] {
    return [...this.#questions.values()].map((pending) => pending.question);
  }

  private readonly trace = (direction: 'out' | 'in', message: unknown) => {
    this.events.push({ kind: 'trace', connectionId: this.id, direction, message });
  };

  private open(): Channel {
    const target = this.#summary.target;
    this.#transport = openTarget(target, {
      http: { rememberEra: false },
      stdio: {
        // The person who started the console runs the server, as from their own shell.
        inheritEnv: true,
        stderr: (chunk) => this.events.push({ kind: 'stderr', connectionId: this.id, text: chunk }),
      },
    });
    return this.#transport;
  }

  private transportName(): string {
    const transport = this.#transport;
    if (transport instanceof StreamableHttpClientChannel)
      return transport.activeTransport === 'sse' ? 'HTTP+SSE' : 'Streamable HTTP';
    return 'stdio';
  }

  private offers(capability: 'tools' | 'resources' | 'prompts'): boolean {
    return this.client.serverCapabilities[capability] !== undefined;
  }

  private explain(error: unknown): string {
    const tail = this.#transport instanceof StdioClientChannel ? this.#transport.stderrTail() : '';
    return tail ? `${errorMessage(error)}\nThe server's stderr ended with:\n${tail}` : errorMessage(error);
  }

  private update(change: Partial<ConnectionSummary>): void {
    if (this.#closing && change.state === undefined && this.#summary.state === 'closed') return;
    this.#summary = { ...this.#summary, ...change };
    this.events.push({ kind: 'connection', connection: this.#summary });
  }
}

/** Checks a connect request from the page; throws BadRequest naming what is wrong. */
function targetOf(request: ConnectRequest): ConnectTarget {
  if (request.kind === 'http') {
    let url: URL;
    try {
      url = new URL(String(request.url));
    } catch {
      throw new BadRequest(
        `${JSON.stringify(request.url)} is not a URL; give the full endpoint, e.g. http://127.0.0.1:3000/mcp.`,
      );
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new BadRequest(`Only http: and https: endpoints can be reached, not ${url.protocol}.`);
    const headers = request.headers;
    if (
      headers !== undefined &&
      !(isPlainObject(headers) && Object.values(headers).every((v) => typeof v === 'string'))
    )
      throw new BadRequest('"headers" must be an object of strings.');
    return { kind: 'http', url: url.href, ...(headers ? { headers } : {}) };
  }
  if (request.kind === 'stdio') {
    if (typeof request.command !== 'string' || request.command.trim() === '')
      throw new BadRequest('"command" must name the program to run.');
    const args = request.args ?? [];
    if (!Array.isArray(args) || !args.every((a) => typeof a === 'string'))
      throw new BadRequest('"args" must be a list of strings.');
    if (request.cwd !== undefined && typeof request.cwd !== 'string')
      throw new BadRequest('"cwd" must be a path.');
    return { kind: 'stdio', command: request.command, args, ...(request.cwd ? { cwd: request.cwd } : {}) };
  }
  throw new BadRequest('"kind" must be "stdio" (with "command") or "http" (with "url").');
}

function negotiation(protocol: string | undefined): VersionNegotiation {
  if (protocol === undefined || protocol === 'auto' || protocol === 'legacy') return protocol ?? 'auto';
  if (!isRevision(protocol))
    throw new BadRequest(
      `Unknown protocol ${JSON.stringify(protocol)}: use auto, legacy or one of ${REVISIONS.join(', ')}.`,
    );
  return { pin: protocol };
}

function text(body: Record<string, unknown>, key: string): string {
  const value = body[key];
  if (typeof value !== 'string' || value === '') throw new BadRequest(`"${key}" must be a non-empty string.`);
  return value;
}

/** The URL elicitations of a -32042 (URLElicitationRequired) error, or undefined for any other error. */
function urlElicitationsRequired(error: unknown): ElicitUrlParams[] | undefined {
  if (!(error instanceof ProtocolError) || error.code !== ErrorCode.UrlElicitationRequired) return undefined;
  const listed = isPlainObject(error.data) ? error.data.elicitations : undefined;
  if (!Array.isArray(listed)) return undefined;
  const links = listed.filter(
    (e): e is ElicitUrlParams =>
      isPlainObject(e) && typeof e.url === 'string' && typeof e.message === 'string',
  );
  return links.length > 0 ? links.map((link) => ({ ...link, mode: 'url' })) : undefined;
}
