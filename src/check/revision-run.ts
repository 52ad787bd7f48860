/**
 * One revision's check over one connection: the handshake of its era (initialize, or
 * server/discover), then every probe, then the verdicts on all the server sent. A revision the
 * server does not speak is reported as such, its requirements not applicable.
 */
import type { Channel } from '../engine/channel.js';
import { isRevision, type Revision } from '../protocol/revisions.js';
import type { MessageSchemaChecker } from '../testing/message-schema-checker.js';
import { StdioClientChannel } from '../transports/stdio/client-channel.js';
import {
  answerServerRequest,
  CHECKER_INFO,
  checkerCapabilities,
  ProbeContext,
  type ProbeOptions,
} from './probes/context.js';
import { forgedCursor, staleCursor, walkList } from './probes/lists.js';
import { probeLogging, probeLogLevels } from './probes/logging.js';
import { judgeBroken, judgeObserved } from './probes/observed.js';
import { judgeProgress, probeCancellation } from './probes/progress.js';
import { probePrompts } from './probes/prompts.js';
import {
  declaredImplemented,
  probeCompletion,
  probeJsonRpc,
  probeModernRefusals,
  probePing,
  probeUndeclared,
} from './probes/protocol.js';
import { probeResources } from './probes/resources.js';
import { probeSkills } from './probes/skills.js';
import { type HttpTap, judgeStreams } from './probes/sse.js';
import { probeSubscriptions } from './probes/subscriptions.js';
import { probeTools } from './probes/tools.js';
import { type Area, idsOf, type TransportKind } from './requirements.js';
import { Verdicts } from './results.js';
import type { Surface } from './snapshot.js';
import { describeReply, type Json, ProbeWire } from './wire.js';

/** How long a stdio server gets to exit after its stdin closes, before it is signalled. */
export const STDIO_SHUTDOWN_MS = 5_000;

export interface RevisionOutcome {
  readonly revision: Revision;
  /** Whether the server speaks this revision (the probes ran). */
  readonly supported: boolean;
  /** What the handshake showed, e.g. "answered initialize with 2025-06-18". */
  readonly note: string;
  /** The server's name and version, when it said. */
  readonly server?: { readonly name: string; readonly version: string };
  /** The handshake went unanswered (as opposed to refused). */
  readonly handshakeTimedOut: boolean;
  /** The capabilities the server declared in this revision. */
  readonly capabilities: Json;
  readonly verdicts: Verdicts;
  /** What the server offers in this revision (empty when it does not speak it). */
  readonly surface: Surface;
}

export async function checkRevision(
  revision: Revision,
  channel: Channel,
  transport: TransportKind,
  checkers: { readonly published: MessageSchemaChecker; readonly strict: MessageSchemaChecker },
  options: ProbeOptions,
  progress: (line: string) => void,
  /** Over HTTP: the event streams the connection read (the SSE rules are judged on them). */
  tap?: HttpTap,
): Promise<RevisionOutcome> {
  const verdicts = new Verdicts(revision, transport);
  const wire = new ProbeWire(channel, revision, checkers, {
    timeoutMs: options.timeoutMs,
    onServerRequest: answerServerRequest,
    http: transport === 'http',
  });
  const ctx = new ProbeContext(wire, verdicts, revision, transport, options);
  wire.start();
  try {
    const handshake = ctx.modern ? await discover(ctx) : await initialize(ctx);
    if (!handshake.supported) {
      judgeBroken(ctx);
      return {
        revision,
        supported: false,
        note: handshake.note,
        handshakeTimedOut: handshake.timedOut === true,
        capabilities: {},
        verdicts,
        surface: ctx.surface.surface(),
      };
    }
    progress(`${revision}: ${handshake.note}`);
    await runProbes(ctx, progress);
    if (tap && ctx.wants('http')) {
      progress(`${revision}: event streams`);
      await judgeStreams(verdicts, tap, options.timeoutMs, wire.inbound);
    }
    judgeObserved(ctx);
    return {
      revision,
      supported: true,
      note: handshake.note,
      server: handshake.server,
      handshakeTimedOut: false,
      capabilities: ctx.capabilities,
      verdicts,
      surface: ctx.surface.surface(),
    };
  } finally {
    await wire.close();
    judgeExit(channel, verdicts);
  }
}

/** After close (stdin ended, then signals if need be): did the server go at the first step? */
function judgeExit(channel: Channel, verdicts: Verdicts): void {
  if (!(channel instanceof StdioClientChannel)) return;
  const exit = channel.exitStatus;
  if (exit === undefined) return;
  verdicts.expect(
    'stdio.exit-on-eof',
    exit.signal === null,
    'the server exits when its stdin closes',
    () =>
      `the server did not exit within ${STDIO_SHUTDOWN_MS} ms of its stdin closing; it was stopped with ${exit.signal}`,
  );
}

/** A version no server supports: what the server answers it with shows how it negotiates. */
const UNSUPPORTED_VERSION = '1999-01-01';

/**
 * Version negotiation, on a connection of its own: `initialize` asking for a version no server
 * supports must be answered with another version, one the server supports (it was seen to speak
 * `spoken`). Judged into `outcome`'s verdicts (the newest legacy revision the server speaks).
 */
export async function probeNegotiation(
  channel: Channel,
  outcome: RevisionOutcome,
  spoken: readonly string[],
  checkers: { readonly published: MessageSchemaChecker; readonly strict: MessageSchemaChecker },
  options: ProbeOptions,
): Promise<void> {
  const wire = new ProbeWire(channel, outcome.revision, checkers, {
    timeoutMs: options.timeoutMs,
    onServerRequest: answerServerRequest,
    http: outcome.verdicts.transport === 'http',
  });
  wire.start();
  try {
    const reply = await wire.request(
      'initialize',
      {
        protocolVersion: UNSUPPORTED_VERSION,
        capabilities: checkerCapabilities(outcome.revision),
        clientInfo: CHECKER_INFO,
      },
      options.handshakeTimeoutMs,
    );
    if (reply.kind === 'timeout' || reply.kind === 'closed') {
      outcome.verdicts.notTested(
        'lifecycle.version-echo',
        `initialize for ${UNSUPPORTED_VERSION} was answered with ${describeReply(reply)}`,
      );
      return;
    }
    const version = reply.kind === 'result' ? reply.result.protocolVersion : undefined;
    outcome.verdicts.expect(
      'lifecycle.version-echo',
      // Any published revision is taken for one the server supports: the check may not have asked for it.
      isRevision(version) || spoken.includes(String(version)),
      `initialize for ${UNSUPPORTED_VERSION}, which no server supports, was answered with ${JSON.stringify(version)}`,
      () =>
        `initialize for protocol version ${UNSUPPORTED_VERSION}, which the server cannot support, was answered with ${describeReply(reply)}; the server must answer with another protocol version it supports`,
    );
  } finally {
    await wire.close();
  }
}

interface Handshake {
  readonly supported: boolean;
  readonly timedOut?: boolean;
  readonly note: string;
  readonly server?: { name: string; version: string };
}

const serverOf = (info: unknown): Handshake['server'] =>
  typeof info === 'object' && info !== null
    ? { name: String((info as Json).name), version: String((info as Json).version) }
    : undefined;

async function initialize(ctx: ProbeContext): Promise<Handshake> {
  const v = ctx.verdicts;
  const reply = await ctx.wire.request(
    'initialize',
    {
      protocolVersion: ctx.revision,
      capabilities: checkerCapabilities(ctx.revision),
      clientInfo: CHECKER_INFO,
    },
    ctx.options.handshakeTimeoutMs,
  );
  if (reply.kind !== 'result') {
    return {
      supported: false,
      timedOut: reply.kind === 'timeout',
      note: `initialize was answered with ${describeReply(reply)}`,
    };
  }
  const version = reply.result.protocolVersion;
  v.expect(
    'lifecycle.version-known',
    isRevision(version),
    'the server answers with a published revision',
    () =>
      `initialize for ${ctx.revision} was answered with protocolVersion ${JSON.stringify(version)}, which is no published revision`,
  );
  if (version !== ctx.revision) {
    return {
      supported: false,
      note: `the server answered initialize for ${ctx.revision} with ${JSON.stringify(version)}`,
    };
  }
  v.pass('lifecycle.version-echo', `initialize for ${ctx.revision} was answered with the same version`);
  const info = reply.result.serverInfo;
  const capabilities = reply.result.capabilities;
  v.expect(
    'lifecycle.initialize',
    typeof capabilities === 'object' && capabilities !== null && typeof info === 'object' && info !== null,
    'initialize is answered with version, capabilities and serverInfo',
    () => `initialize was answered with ${describeReply(reply)}: it lacks capabilities or serverInfo`,
  );
  ctx.capabilities = typeof capabilities === 'object' && capabilities !== null ? (capabilities as Json) : {};
  ctx.wire.notify('notifications/initialized');
  ctx.wire.initialized = true;
  const server = serverOf(info);
  return { supported: true, note: `initialized${server ? ` ${server.name} ${server.version}` : ''}`, server };
}

async function discover(ctx: ProbeContext): Promise<Handshake> {
  const reply = await ctx.wire.request(
    'server/discover',
    { _meta: ctx.envelope() },
    ctx.options.handshakeTimeoutMs,
  );
  if (reply.kind !== 'result') {
    return {
      supported: false,
      timedOut: reply.kind === 'timeout',
      note: `server/discover was answered with ${describeReply(reply)}`,
    };
  }
  const versions = reply.result.supportedVersions;
  const listed = Array.isArray(versions) && versions.includes(ctx.revision);
  ctx.verdicts.expect(
    'lifecycle.discover',
    listed && typeof reply.result.capabilities === 'object',
    'server/discover lists the version and the capabilities',
    () =>
      `server/discover was answered with ${describeReply(reply)}: supportedVersions must include ${ctx.revision}, and capabilities must be an object`,
  );
  if (!listed)
    return { supported: false, note: `server/discover lists supportedVersions ${JSON.stringify(versions)}` };
  ctx.capabilities =
    typeof reply.result.capabilities === 'object' && reply.result.capabilities !== null
      ? (reply.result.capabilities as Json)
      : {};
  const meta = reply.result._meta as Json | undefined;
  const server = serverOf(meta?.['io.modelcontextprotocol/serverInfo']);
  return { supported: true, note: `discovered${server ? ` ${server.name} ${server.version}` : ''}`, server };
}

/** The list of one kind, walked, or [] when the capability is absent or the list failed. */
async function listed(ctx: ProbeContext, capability: string, method: string, key: string): Promise<Json[]> {
  if (!ctx.declares(capability)) return [];
  const walk = await walkList(ctx, method, key);
  if (!walk.ok) {
    // Templates are optional within the resources capability: only their absence is forgiven.
    const optional =
      method === 'resources/templates/list' && walk.reply.kind === 'error' && walk.reply.code === -32601;
    if (!optional) declaredImplemented(ctx, capability, method, false, describeReply(walk.reply));
    return [];
  }
  declaredImplemented(ctx, capability, method, true);
  await forgedCursor(ctx, method);
  await staleCursor(ctx, method, walk.cursor);
  return walk.items;
}

/** Areas judged on every message, whichever probe caused it: they need every probe. */
const EVERYWHERE: readonly Area[] = ['schema', 'envelope', 'caching', 'stdio'];

async function runProbes(ctx: ProbeContext, progress: (line: string) => void): Promise<void> {
  const wants = (...areas: Area[]) => ctx.wants(...areas, ...EVERYWHERE);
  if (wants('jsonrpc')) await probeJsonRpc(ctx);
  if (wants('ping')) await probePing(ctx);
  if (wants('lifecycle')) await probeModernRefusals(ctx);
  if (wants('capabilities')) await probeUndeclared(ctx);
  if (wants('logging')) await probeLogging(ctx);
  const lists: Area[] = ['capabilities', 'pagination'];
  if (wants('tools', 'progress', 'cancellation', 'logging', 'http', ...lists)) {
    progress(`${ctx.revision}: tools`);
    const tools = await listed(ctx, 'tools', 'tools/list', 'tools');
    ctx.surface.tools = tools;
    if (ctx.declares('tools')) await probeTools(ctx, tools);
    if (wants('logging')) await probeLogLevels(ctx);
    if (wants('cancellation')) await probeCancellation(ctx);
  }
  let templates: Json[] = [];
  let resourcesListed: Json[] = [];
  if (wants('resources', 'subscriptions', 'completion', 'skills', ...lists)) {
    progress(`${ctx.revision}: resources`);
    const resources = await listed(ctx, 'resources', 'resources/list', 'resources');
    templates = await listed(ctx, 'resources', 'resources/templates/list', 'resourceTemplates');
    resourcesListed = resources;
    ctx.surface.resources = resources;
    ctx.surface.resourceTemplates = templates;
    if (ctx.declares('resources')) await probeResources(ctx, resources, templates);
    if (wants('subscriptions')) await probeSubscriptions(ctx, resources);
  }
  if (wants('skills')) {
    progress(`${ctx.revision}: skills`);
    await probeSkills(ctx, resourcesListed);
  }
  if (wants('prompts', 'completion', ...lists)) {
    progress(`${ctx.revision}: prompts and completion`);
    const prompts = await listed(ctx, 'prompts', 'prompts/list', 'prompts');
    ctx.surface.prompts = prompts;
    if (ctx.declares('prompts')) await probePrompts(ctx, prompts);
    if (wants('completion')) await probeCompletion(ctx, prompts, templates);
  }
  // What the probes left running: waits for late answers and for notifications.
  await Promise.all(ctx.pending);
  judgeProgress(ctx);
  for (const area of FEATURE_AREAS) {
    if (ctx.declares(area)) continue;
    for (const id of idsOf(area)) ctx.verdicts.notApplicable(id, `the server does not declare ${area}`);
  }
}

/** The capabilities whose requirements make up an area of the same name. */
const FEATURE_AREAS = ['tools', 'resources', 'prompts'] as const;
