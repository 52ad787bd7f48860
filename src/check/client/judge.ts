/**
 * Client mode's verdicts: what the traffic of one scenario shows about the client, against the
 * `client.*` rules. Every verdict is on something the client did; a rule its traffic never
 * touched (it called no tool that asks for input, it never met a cursor) stays not tested.
 */
import { META } from '../../protocol/meta.js';
import { isRevision, LEGACY_REVISIONS, type Revision } from '../../protocol/revisions.js';
import type { MessageSchemaChecker } from '../../testing/message-schema-checker.js';
import { isPlainObject } from '../../util/guards.js';
import { compilePeerSchema } from '../peer-schema.js';
import type { TransportKind } from '../requirements.js';
import type { Verdicts } from '../results.js';
import { brief, type Json } from '../wire.js';
import { ELICIT_SCHEMA } from './scripted-server.js';
import type { Exchange, Traffic, TrafficEvent } from './traffic.js';

export type ScenarioName =
  | 'modern'
  | 'legacy'
  | 'older-version'
  | 'expired-session'
  | 'resumable'
  | 'stdio-modern'
  | 'stdio-legacy';

export interface ScenarioTraffic {
  readonly scenario: ScenarioName;
  readonly transport: TransportKind;
  /** The revisions the scripted server served. */
  readonly served: readonly Revision[];
  readonly traffic: Traffic;
}

/** The `resumable` scenario's priming event: its id, and the `retry:` it asks the client to wait, in ms. */
export const PRIMING_EVENT_ID = 'priming-1';
export const RETRY_MS = 1_000;
/** Timers may fire a little early against `performance.now()`: a reconnect this much early still counts. */
const TIMER_SLACK_MS = 20;

/** The verdicts of one revision, made on first use. */
export type VerdictsOf = (revision: Revision) => Verdicts;

const isRequest = (m: Json) => typeof m.method === 'string' && 'id' in m;
const paramsOf = (m: Json): Json => (isPlainObject(m.params) ? (m.params as Json) : {});
const metaOf = (m: Json): Json => {
  const meta = paramsOf(m)._meta;
  return isPlainObject(meta) ? (meta as Json) : {};
};
/** A request of the 2026-07-28 era: server/discover, or one that carries the envelope's version. */
const isModernAttempt = (m: Json) =>
  m.method === 'server/discover' || typeof metaOf(m)[META.protocolVersion] === 'string';
const describe = (e: TrafficEvent) => `${e.exchange.httpMethod} #${e.exchange.seq} ${brief(e.message)}`;

/** The revision each client message was sent in, where the traffic shows it. */
function revisionsOf(events: readonly TrafficEvent[]): Map<TrafficEvent, Revision> {
  const out = new Map<TrafficEvent, Revision>();
  const negotiated = new Map<string, Revision>();
  // The initialize answers, by the session they opened (or '' when the server assigned none).
  for (const e of events) {
    if (e.from !== 'server') continue;
    const version = isPlainObject(e.message.result) ? (e.message.result as Json).protocolVersion : undefined;
    if (isRevision(version)) negotiated.set(e.exchange.responseHeaders['mcp-session-id'] ?? '', version);
  }
  for (const e of events) {
    if (e.from !== 'client') continue;
    const modern = metaOf(e.message)[META.protocolVersion];
    if (isModernAttempt(e.message) && isRevision(modern)) {
      out.set(e, modern);
      continue;
    }
    const session =
      e.message.method === 'initialize'
        ? (e.exchange.responseHeaders['mcp-session-id'] ?? '')
        : (e.exchange.headers['mcp-session-id'] ?? '');
    const revision = negotiated.get(session);
    if (revision) out.set(e, revision);
  }
  return out;
}

export async function judgeScenario(
  run: ScenarioTraffic,
  verdictsOf: VerdictsOf,
  newChecker: () => MessageSchemaChecker,
): Promise<void> {
  const events = run.traffic.events;
  const revisions = revisionsOf(events);
  judgeSchema(events, revisions, verdictsOf, newChecker);
  judgeHeaders(run.traffic.exchanges, events, revisions, verdictsOf);
  judgeCursors(events, revisions, verdictsOf);
  await judgeInputAnswers(events, revisions, verdictsOf);
  judgePing(events, revisions, verdictsOf);
  judgeCancellation(run, events, revisions, verdictsOf);
  if (run.scenario === 'modern' || run.scenario === 'stdio-modern') judgeModern(events, verdictsOf);
  else judgeLegacy(run, events, revisions, verdictsOf);
  if (run.scenario === 'resumable') judgeResumption(run, revisions, verdictsOf);
}

/** Legacy: every ping the server sent is answered with an empty result. */
function judgePing(
  events: readonly TrafficEvent[],
  revisions: Map<TrafficEvent, Revision>,
  verdictsOf: VerdictsOf,
): void {
  events.forEach((ping, index) => {
    if (ping.from !== 'server' || ping.message.method !== 'ping' || !('id' in ping.message)) return;
    const answer = events
      .slice(index + 1)
      .find(
        (e) =>
          e.from === 'client' && typeof e.message.method !== 'string' && e.message.id === ping.message.id,
      );
    const request = events.slice(0, index).findLast((e) => e.from === 'client' && revisions.has(e));
    const revision = (answer && revisions.get(answer)) ?? (request && revisions.get(request));
    if (!revision) return;
    verdictsOf(revision).expect(
      'client.ping',
      answer !== undefined && isPlainObject(answer.message.result),
      'pings from the server are answered with a result',
      () =>
        answer
          ? `${describe(answer)} answers the server's ping (id ${brief(ping.message.id)}) with ${brief(answer.message.error ?? answer.message.result)}, not a result`
          : `the server's ping (id ${brief(ping.message.id)}) was never answered`,
    );
  });
}

/**
 * The \`slow\` tool runs until cancelled. A client that abandoned its call (no result reached it)
 * must have said so with notifications/cancelled (on 2026-07-28 over HTTP, closing the stream is
 * the cancellation: nothing to see). Every cancellation names a request the client sent, not
 * initialize.
 */
function judgeCancellation(
  run: ScenarioTraffic,
  events: readonly TrafficEvent[],
  revisions: Map<TrafficEvent, Revision>,
  verdictsOf: VerdictsOf,
): void {
  const sent = new Map<unknown, TrafficEvent>();
  for (const e of events) {
    if (e.from !== 'client') continue;
    if (isRequest(e.message)) sent.set(e.message.id, e);
    if (e.message.method !== 'notifications/cancelled') continue;
    const named = paramsOf(e.message).requestId;
    const request = sent.get(named);
    const revision = revisions.get(e) ?? (request && revisions.get(request));
    if (!revision) continue;
    verdictsOf(revision).expect(
      'client.cancel-valid',
      request !== undefined && request.message.method !== 'initialize',
      'cancellations name a request the client sent (never initialize)',
      () =>
        request
          ? `${describe(e)} cancels initialize, which a client must never cancel`
          : `${describe(e)} names request ${brief(named)}, which the client never sent`,
    );
  }
  const modernHttp = run.transport === 'http' && run.scenario === 'modern';
  events.forEach((call, index) => {
    if (
      call.from !== 'client' ||
      call.message.method !== 'tools/call' ||
      paramsOf(call.message).name !== 'slow'
    )
      return;
    const revision = revisions.get(call);
    if (!revision || modernHttp) return;
    const after = events.slice(index + 1);
    const id = call.message.id;
    const cancelled = after.some(
      (e) =>
        e.from === 'client' &&
        e.message.method === 'notifications/cancelled' &&
        paramsOf(e.message).requestId === id,
    );
    const answered = after.some(
      (e) => e.from === 'server' && typeof e.message.method !== 'string' && e.message.id === id,
    );
    const rule = revision === '2026-07-28' ? 'client.cancel-stdio' : 'client.cancel';
    if (!cancelled && answered) {
      verdictsOf(revision).notTested(
        rule,
        `the client waited for the result of ${describe(call)}: it never abandoned it`,
      );
      return;
    }
    verdictsOf(revision).expect(
      rule,
      cancelled,
      'an abandoned request is cancelled with notifications/cancelled',
      () =>
        `the client abandoned ${describe(call)} (no result reached it) without notifications/cancelled naming it`,
    );
  });
}

/** The \`resumable\` scenario: after the stream closed early, a GET with Last-Event-ID, no sooner than \`retry:\` said. */
function judgeResumption(
  run: ScenarioTraffic,
  revisions: Map<TrafficEvent, Revision>,
  verdictsOf: VerdictsOf,
): void {
  const exchanges = run.traffic.exchanges;
  const dropped = exchanges.find((x) => x.trick === 'stream closed after its priming event');
  if (!dropped) return;
  const request = run.traffic.events.find((e) => e.exchange === dropped && e.from === 'client');
  const revision = request && revisions.get(request);
  if (!revision) return;
  const v = verdictsOf(revision);
  const resumed = exchanges.find((x) => x.seq > dropped.seq && x.headers['last-event-id'] !== undefined);
  const later = exchanges.filter((x) => x.seq > dropped.seq);
  v.expect(
    'client.sse-resume',
    resumed?.httpMethod === 'GET' && resumed.headers['last-event-id'] === PRIMING_EVENT_ID,
    'after a stream closed before its response, the client resumes with GET and Last-Event-ID',
    () =>
      resumed
        ? `after ${describe(request)} ended early, the client sent ${resumed.httpMethod} #${resumed.seq} with Last-Event-ID ${JSON.stringify(resumed.headers['last-event-id'])}; the last event id was ${JSON.stringify(PRIMING_EVENT_ID)}`
        : `after ${describe(request)} ended early (its stream carried event id ${JSON.stringify(PRIMING_EVENT_ID)}), the client sent ${
            later.length === 0
              ? 'nothing more'
              : `${later
                  .slice(0, 2)
                  .map((x) => `${x.httpMethod} #${x.seq} ${brief(x.message)}`)
                  .join(', ')}${later.length > 2 ? ` and ${later.length - 2} more` : ''}`
          }, and no GET with Last-Event-ID`,
  );
  if (!resumed || dropped.answeredAt === undefined) return;
  const waited = resumed.at - dropped.answeredAt;
  v.expect(
    'client.sse-retry',
    waited >= RETRY_MS - TIMER_SLACK_MS,
    `the client waited the ${RETRY_MS} ms retry: asked before reconnecting`,
    () =>
      `the stream of ${describe(request)} said retry: ${RETRY_MS}; the client reconnected (${resumed.httpMethod} #${resumed.seq}) after ${Math.round(waited)} ms`,
  );
}

function judgeSchema(
  events: readonly TrafficEvent[],
  revisions: Map<TrafficEvent, Revision>,
  verdictsOf: VerdictsOf,
  newChecker: () => MessageSchemaChecker,
): void {
  let checker = newChecker();
  const serverRequests = new Map<unknown, string>();
  for (const e of events)
    if (e.from === 'server' && isRequest(e.message))
      serverRequests.set(e.message.id, e.message.method as string);
  let revision: Revision | undefined;
  for (const e of events) {
    revision = revisions.get(e) ?? revision;
    if (!revision) continue;
    if (e.from === 'server') {
      // Only to pair the client's answers and retire its request ids: the server is ours.
      checker.checkMessage(revision, 'server', e.message);
      continue;
    }
    if (!revisions.has(e)) continue;
    // A new session is a new connection: its request ids start again.
    if (e.message.method === 'initialize') checker = newChecker();
    const method = typeof e.message.method === 'string' ? undefined : serverRequests.get(e.message.id);
    const found = checker.checkMessage(revision, 'client', e.message, method ? { method } : {});
    verdictsOf(revision).expect(
      'client.messages-valid',
      found.length === 0,
      'every message the client sent is valid against the schema',
      () => `${describe(e)} breaks the ${revision} schema: ${found.map((v) => v.message).join('; ')}`,
    );
  }
}

function judgeHeaders(
  exchanges: readonly Exchange[],
  events: readonly TrafficEvent[],
  revisions: Map<TrafficEvent, Revision>,
  verdictsOf: VerdictsOf,
): void {
  for (const e of events) {
    const revision = revisions.get(e);
    if (e.from !== 'client' || !revision || e.exchange.httpMethod !== 'POST') continue;
    const v = verdictsOf(revision);
    const accept = e.exchange.headers.accept ?? '';
    v.expect(
      'client.accept',
      accept.includes('application/json') && accept.includes('text/event-stream'),
      'every POST accepts application/json and text/event-stream',
      () =>
        `${describe(e)} was sent with Accept ${JSON.stringify(accept)}: it must list both application/json and text/event-stream`,
    );
    if (e.message.method === 'initialize') continue;
    const header = e.exchange.headers['mcp-protocol-version'];
    v.expect(
      'client.protocol-version-header',
      header === revision,
      `every request names ${revision} in MCP-Protocol-Version`,
      () =>
        `${describe(e)} in ${revision} was sent with MCP-Protocol-Version ${JSON.stringify(header ?? null)}`,
    );
    if (revision === '2026-07-28' && typeof e.message.method === 'string') {
      const method = e.exchange.headers['mcp-method'];
      const params = paramsOf(e.message);
      const name = e.message.method === 'resources/read' ? params.uri : params.name;
      const needsName = ['tools/call', 'prompts/get', 'resources/read'].includes(e.message.method);
      const nameHeader = e.exchange.headers['mcp-name'];
      v.expect(
        'client.method-header',
        method === e.message.method && (!needsName || nameHeader === name),
        'Mcp-Method (and Mcp-Name) match the body',
        () =>
          `${describe(e)} was sent with Mcp-Method ${JSON.stringify(method ?? null)}${needsName ? ` and Mcp-Name ${JSON.stringify(nameHeader ?? null)}` : ''}`,
      );
    }
  }
  // Sessions: from the initialize answer that assigned one, every exchange names it, until the
  // client starts a new session (initialize) or the server ended it (404).
  let session: { id: string; revision: Revision } | undefined;
  for (const x of exchanges) {
    const message = isPlainObject(x.message) ? (x.message as Json) : undefined;
    if (message?.method === 'initialize') {
      const id = x.responseHeaders['mcp-session-id'];
      const answer = events.find((e) => e.from === 'server' && e.exchange === x);
      const version =
        answer && isPlainObject(answer.message.result)
          ? (answer.message.result as Json).protocolVersion
          : undefined;
      session = id && isRevision(version) ? { id, revision: version } : undefined;
      continue;
    }
    if (!session || (message !== undefined && isModernAttempt(message))) continue;
    const sent = x.headers['mcp-session-id'];
    verdictsOf(session.revision).expect(
      'client.session-id',
      sent === session.id,
      'every request of a session carries its Mcp-Session-Id',
      () =>
        `${x.httpMethod} #${x.seq} ${brief(x.message)} was sent with Mcp-Session-Id ${JSON.stringify(sent ?? null)}; the session is ${JSON.stringify(session?.id)}`,
    );
    if (x.status === 404 && sent === session.id) session = undefined;
  }
}

function judgeCursors(
  events: readonly TrafficEvent[],
  revisions: Map<TrafficEvent, Revision>,
  verdictsOf: VerdictsOf,
): void {
  const issued = new Set<unknown>();
  for (const e of events) {
    if (e.from === 'server' && isPlainObject(e.message.result)) {
      const next = (e.message.result as Json).nextCursor;
      if (typeof next === 'string') issued.add(next);
      continue;
    }
    const revision = revisions.get(e);
    const cursor = paramsOf(e.message).cursor;
    if (e.from !== 'client' || !revision || cursor === undefined) continue;
    verdictsOf(revision).expect(
      'client.cursor-opaque',
      issued.has(cursor),
      'the client follows the cursors the server issued, unchanged',
      () => `${describe(e)} sends cursor ${brief(cursor)}, which the server never issued`,
    );
  }
}

/** The client's answers to elicitation, sampling and roots: as JSON-RPC responses (legacy) or inputResponses (2026-07-28). */
async function judgeInputAnswers(
  events: readonly TrafficEvent[],
  revisions: Map<TrafficEvent, Revision>,
  verdictsOf: VerdictsOf,
): Promise<void> {
  const asked = new Map<unknown, { method: string; event: TrafficEvent }>();
  for (const e of events) {
    if (e.from === 'server' && isRequest(e.message))
      asked.set(e.message.id, { method: e.message.method as string, event: e });
  }
  for (const e of events) {
    const revision = revisions.get(e);
    if (e.from !== 'client' || !revision || typeof e.message.method === 'string') continue;
    const request = asked.get(e.message.id);
    if (!request) continue;
    await judgeAnswer(verdictsOf(revision), request.method, e.message, describe(e));
  }
  // 2026-07-28: input_required results, and the retries that answer them.
  const pending: {
    method: string;
    name: unknown;
    requests: Json;
    state: unknown;
    event: TrafficEvent;
    revision: Revision;
  }[] = [];
  /** What a retry repeats: the method and the tool or prompt name (or resource URI). */
  const nameOf = (m: Json) => paramsOf(m).name ?? paramsOf(m).uri;
  for (const e of events) {
    if (
      e.from === 'server' &&
      isPlainObject(e.message.result) &&
      (e.message.result as Json).resultType === 'input_required'
    ) {
      const request = events.find((c) => c.from === 'client' && c.exchange === e.exchange);
      const revision = request && revisions.get(request);
      if (!request || !revision) continue;
      const result = e.message.result as Json;
      pending.push({
        method: String(request.message.method),
        name: nameOf(request.message),
        requests: isPlainObject(result.inputRequests) ? (result.inputRequests as Json) : {},
        state: result.requestState,
        event: request,
        revision,
      });
      continue;
    }
    if (e.from !== 'client' || !isRequest(e.message)) continue;
    const params = paramsOf(e.message);
    if (params.inputResponses === undefined && params.requestState === undefined) continue;
    // The latest round of the same request is the one this retry answers.
    const index = pending.findLastIndex((p) => p.method === e.message.method && p.name === nameOf(e.message));
    if (index === -1) continue;
    const [round] = pending.splice(index, 1);
    if (!round) continue;
    const v = verdictsOf(round.revision);
    const responses = isPlainObject(params.inputResponses) ? (params.inputResponses as Json) : {};
    const missing = Object.keys(round.requests).filter((key) => !(key in responses));
    v.expect(
      'client.input-required',
      missing.length === 0 && params.requestState === round.state,
      'input_required rounds are retried with every answer and the requestState unchanged',
      () =>
        `${describe(e)} retries ${round.method} ${missing.length > 0 ? `without answers for ${missing.join(', ')}` : ''}${params.requestState !== round.state ? ` with requestState ${brief(params.requestState)} instead of ${brief(round.state)}` : ''}`,
    );
    for (const [key, inputRequest] of Object.entries(round.requests)) {
      const method = isPlainObject(inputRequest) ? String((inputRequest as Json).method) : '';
      const answer = responses[key];
      if (answer !== undefined)
        await judgeAnswer(v, method, { result: answer }, `${describe(e)} (input ${key})`);
    }
  }
}

async function judgeAnswer(v: Verdicts, method: string, response: Json, where: string): Promise<void> {
  const result = isPlainObject(response.result) ? (response.result as Json) : undefined;
  const error = response.error !== undefined;
  if (method === 'elicitation/create') {
    const action = result?.action;
    let problem: string | undefined;
    if (!result || !['accept', 'decline', 'cancel'].includes(String(action)))
      problem = `the answer is ${brief(response.result ?? response.error)}, not accept, decline or cancel`;
    else if (action === 'accept') {
      const check = await compilePeerSchema(ELICIT_SCHEMA, 'The requested schema');
      problem = typeof check === 'string' ? check : await check(result.content);
    }
    v.expect(
      'client.elicitation',
      problem === undefined,
      'elicitations are answered as the spec says',
      () => `${where}: ${problem}`,
    );
  } else if (method === 'sampling/createMessage') {
    const ok =
      error ||
      (typeof result?.model === 'string' && typeof result.role === 'string' && result.content !== undefined);
    v.expect(
      'client.sampling',
      ok,
      'sampling requests are answered with a message or an error',
      () => `${where}: ${brief(response.result)} lacks role, content or model`,
    );
  } else if (method === 'roots/list') {
    const roots = result?.roots;
    const ok =
      Array.isArray(roots) &&
      roots.every(
        (root) => isPlainObject(root) && typeof root.uri === 'string' && root.uri.startsWith('file://'),
      );
    v.expect(
      'client.roots',
      ok,
      'roots are answered with file:// URIs',
      () => `${where}: roots ${brief(roots ?? response.error)} are not a list of file:// URIs`,
    );
  }
}

function judgeModern(events: readonly TrafficEvent[], verdictsOf: VerdictsOf): void {
  const requests = events.filter((e) => e.from === 'client' && isRequest(e.message));
  // A client that never tried 2026-07-28 does not speak it: its rules are not applicable.
  if (!requests.some((e) => isModernAttempt(e.message))) return;
  const v = verdictsOf('2026-07-28');
  for (const e of requests) {
    if (e.message.method === 'initialize') continue;
    const meta = metaOf(e.message);
    v.expect(
      'client.envelope',
      isRevision(meta[META.protocolVersion]) && isPlainObject(meta[META.clientCapabilities]),
      'every request carries the _meta envelope',
      () => `${describe(e)} lacks _meta ${META.protocolVersion} or ${META.clientCapabilities}`,
    );
  }
}

function judgeLegacy(
  run: ScenarioTraffic,
  events: readonly TrafficEvent[],
  revisions: Map<TrafficEvent, Revision>,
  verdictsOf: VerdictsOf,
): void {
  const requests = events.filter((e) => e.from === 'client' && typeof e.message.method === 'string');
  const modernAttempts = requests.filter((e) => isRequest(e.message) && isModernAttempt(e.message));
  const initializes = requests.filter((e) => e.message.method === 'initialize');
  if (modernAttempts.length > 0 && (run.scenario === 'legacy' || run.scenario === 'stdio-legacy')) {
    verdictsOf('2026-07-28').expect(
      'client.legacy-fallback',
      initializes.length > 0,
      'the client falls back to initialize when the server does not speak 2026-07-28',
      () =>
        `the server speaks only ${run.served.join(', ')}; the client tried 2026-07-28 (${describe(modernAttempts[0]!)}) and never sent initialize`,
    );
  }
  const first = requests.find(
    (e) => isRequest(e.message) && !isModernAttempt(e.message) && e.message.method !== 'ping',
  );
  // A request before any initialize has no revision of its own: judge it in the one negotiated later.
  const negotiated = events
    .map((e) =>
      e.from === 'server' && isPlainObject(e.message.result)
        ? (e.message.result as Json).protocolVersion
        : undefined,
    )
    .find(isRevision);
  const firstRevision = first && (revisions.get(first) ?? negotiated ?? run.served[0]);
  if (first && firstRevision) {
    const params = paramsOf(first.message);
    verdictsOf(firstRevision).expect(
      'client.initialize-first',
      first.message.method === 'initialize' &&
        typeof params.protocolVersion === 'string' &&
        isPlainObject(params.capabilities) &&
        isPlainObject(params.clientInfo),
      'the connection starts with initialize',
      () =>
        `the first request is ${describe(first)}; a legacy connection starts with initialize (protocolVersion, capabilities, clientInfo)`,
    );
  }
  // Each successful initialize: initialized before any other request.
  for (const init of initializes) {
    const answer = events.find(
      (e) => e.from === 'server' && e.exchange === init.exchange && isPlainObject(e.message.result),
    );
    const revision = revisions.get(init);
    if (!answer || !revision) continue;
    const after = requests.slice(requests.indexOf(init) + 1);
    const next = after.find(
      (e) =>
        e.message.method === 'notifications/initialized' ||
        (isRequest(e.message) && e.message.method !== 'ping'),
    );
    if (!next) continue;
    verdictsOf(revision).expect(
      'client.initialized',
      next.message.method === 'notifications/initialized',
      'notifications/initialized comes before any other request',
      () => `after initialize, the client sent ${describe(next)} before notifications/initialized`,
    );
  }
  if (run.scenario === 'older-version') judgeOlderVersion(run, initializes, verdictsOf);
  if (run.scenario === 'expired-session') judgeExpiredSession(run, verdictsOf, revisions);
}

function judgeOlderVersion(
  run: ScenarioTraffic,
  initializes: readonly TrafficEvent[],
  verdictsOf: VerdictsOf,
): void {
  const older = run.served[0]!;
  const v = verdictsOf(older);
  const init = initializes[0];
  if (!init) return;
  const asked = paramsOf(init.message).protocolVersion;
  if (asked === older) {
    v.notApplicable('client.version-fallback', `the client asked for ${older} itself`);
    return;
  }
  const later = run.traffic.exchanges.filter((x) => x.seq > init.exchange.seq);
  const wrong = later.filter((x) => {
    const header = x.headers['mcp-protocol-version'];
    return header !== undefined && header !== older;
  });
  v.expect(
    'client.version-fallback',
    wrong.length === 0,
    later.length === 0
      ? `asked for ${String(asked)}, answered ${older}: the client disconnected`
      : `asked for ${String(asked)}, answered ${older}: the client went on in ${older}`,
    () =>
      `the client asked for ${String(asked)}, the server answered ${older}, and the client went on with MCP-Protocol-Version ${JSON.stringify(wrong[0]?.headers['mcp-protocol-version'])} (#${wrong[0]?.seq})`,
  );
}

function judgeExpiredSession(
  run: ScenarioTraffic,
  verdictsOf: VerdictsOf,
  revisions: Map<TrafficEvent, Revision>,
): void {
  const exchanges = run.traffic.exchanges;
  const expired = exchanges.find((x) => x.trick !== undefined);
  if (!expired) return;
  const dead = expired.headers['mcp-session-id'];
  const request = run.traffic.events.find((e) => e.exchange === expired && e.from === 'client');
  const revision =
    (request && revisions.get(request)) ??
    LEGACY_REVISIONS.find((r) => r === expired.headers['mcp-protocol-version']);
  if (!revision) return;
  const next = exchanges.find((x) => x.seq > expired.seq && x.httpMethod !== 'DELETE');
  const message = next && isPlainObject(next.message) ? (next.message as Json) : undefined;
  verdictsOf(revision).expect(
    'client.reinitialize-on-404',
    message?.method === 'initialize' && next?.headers['mcp-session-id'] === undefined,
    'after a 404 for its session, the client starts a new one with initialize',
    () =>
      next
        ? `after ${expired.httpMethod} #${expired.seq} was answered 404 for session ${JSON.stringify(dead)}, the client sent ${next.httpMethod} #${next.seq} ${brief(next.message)} with Mcp-Session-Id ${JSON.stringify(next.headers['mcp-session-id'] ?? null)} instead of a new initialize`
        : `after ${expired.httpMethod} #${expired.seq} was answered 404 for session ${JSON.stringify(dead)}, the client sent nothing more: it must start a new session with initialize`,
  );
}
