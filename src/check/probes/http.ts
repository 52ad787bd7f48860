/**
 * Streamable HTTP rules seen at the HTTP level, with requests written by hand: status codes, the
 * Content-Type of answers, sessions (legacy), the 2026-07-28 status table and header checks, and
 * the Origin check of a local server.
 */
import { META } from '../../protocol/meta.js';
import { isModernRevision, type Revision } from '../../protocol/revisions.js';
import { errorMessage } from '../../util/guards.js';
import { REQUIREMENTS, roleOf } from '../requirements.js';
import type { Verdicts } from '../results.js';
import { brief, type Json } from '../wire.js';
import { probeAuthorization } from './authorization.js';
import { CHECKER_INFO, checkerCapabilities } from './context.js';
import { type Answer, describe, HttpProbe, type Target } from './http-probe.js';
import { LEGACY_SSE_IDS, probeSseTransport } from './legacy-sse.js';
import { batchRule, judgeBatch, servedMethod } from './protocol.js';
import { SSE_IDS } from './sse.js';

const ACCEPT = 'application/json, text/event-stream';
const FOREIGN_ORIGIN = 'https://switchboard-check.invalid';
/** The Host a DNS-rebinding page's requests carry: its own name, resolved to the local server. */
const FOREIGN_HOST = 'switchboard-check.invalid';
/** The body of the body-limit probe: far beyond any message a server needs to take. */
const HUGE_BODY_BYTES = 16 * 1024 * 1024;
/** Characters in which two session ids must differ at least (a counter differs in one or two). */
const MIN_SESSION_ID_DIFFERENCE = 16;

export async function probeHttp(
  target: Target,
  spoken: readonly {
    readonly revision: Revision;
    readonly capabilities: Json;
    readonly verdicts: Verdicts;
  }[],
  options: { readonly timeoutMs: number },
  /** The target serves the HTTP+SSE transport of 2024-11-05 (see isSseEndpoint), not Streamable HTTP. */
  sse = false,
): Promise<void> {
  const http = new HttpProbe(target, options.timeoutMs);
  // The rules judged here: every server rule about HTTP but those judged on the tapped streams.
  const judged = REQUIREMENTS.filter(
    (r) => r.transport === 'http' && roleOf(r) === 'server' && !SSE_IDS.includes(r.id),
  ).map((r) => r.id);
  for (const { revision, capabilities, verdicts } of spoken) {
    if (sse) {
      for (const id of [...judged, ...SSE_IDS].filter((id) => !LEGACY_SSE_IDS.includes(id))) {
        verdicts.notApplicable(
          id,
          'the target serves the HTTP+SSE transport of 2024-11-05; this is a rule of Streamable HTTP',
        );
      }
      if (revision === '2024-11-05') await probeSseTransport(http, verdicts);
      continue;
    }
    for (const id of LEGACY_SSE_IDS) {
      verdicts.notApplicable(
        id,
        'the target serves Streamable HTTP; give the URL of the HTTP+SSE endpoint (e.g. /sse) to check that transport',
      );
    }
    try {
      if (isModernRevision(revision)) {
        const older = spoken.map((s) => s.revision).filter((r) => !isModernRevision(r));
        await modern(http, verdicts, revision, servedMethod(capabilities), older);
      } else if (revision !== '2024-11-05') await legacy(http, verdicts, revision);
    } catch (error) {
      // A request that fails at the network level leaves its rules untested, and says why.
      for (const id of judged) verdicts.notTested(id, `an HTTP request failed: ${errorMessage(error)}`);
    }
  }
}

const errorCode = (answer: Answer) => (answer.message?.error as Json | undefined)?.code;
const isJsonOrStream = (answer: Answer) =>
  answer.contentType.startsWith('application/json') || answer.contentType.startsWith('text/event-stream');

/**
 * `served`: a method the server serves, for the version refusal (see servedMethod). `older`: the
 * legacy revisions the server was seen to speak in this check.
 */
async function modern(
  http: HttpProbe,
  v: Verdicts,
  revision: Revision,
  served: string,
  older: readonly Revision[],
): Promise<void> {
  const envelope = {
    [META.protocolVersion]: revision,
    [META.clientCapabilities]: checkerCapabilities(revision),
    [META.clientInfo]: CHECKER_INFO,
  };
  const headers = (method: string, version: string = revision) => ({
    accept: ACCEPT,
    'content-type': 'application/json',
    'mcp-protocol-version': version,
    'mcp-method': method,
  });
  const request = (method: string, meta: Json = envelope) => ({
    jsonrpc: '2.0',
    id: 1,
    method,
    params: { _meta: meta },
  });

  const discover = await http.send('POST', headers('server/discover'), request('server/discover'));
  v.expect(
    'http.content-type',
    discover.status === 200 && isJsonOrStream(discover),
    'answers are JSON or an event stream',
    () => `POST server/discover was answered with ${describe(discover)}`,
  );

  await probeAuthorization(http, v, revision, () =>
    http.send('POST', headers('server/discover'), request('server/discover'), { anonymous: true }),
  );

  const unknown = 'switchboard-check/no-such-method';
  const notFound = await http.send('POST', headers(unknown), request(unknown));
  v.expect(
    'http.unknown-method-404',
    notFound.status === 404 && errorCode(notFound) === -32601,
    'an unknown method is HTTP 404 with -32601',
    () =>
      `POST ${unknown} was answered with ${describe(notFound)}; the spec requires 404 with a JSON-RPC -32601 body`,
  );

  const future = '2099-12-31';
  const version = await http.send(
    'POST',
    headers('server/discover', future),
    request('server/discover', { ...envelope, [META.protocolVersion]: future }),
  );
  v.expect(
    'http.unsupported-version-400',
    version.status === 400 && errorCode(version) === -32022,
    'an unsupported version is HTTP 400 with -32022',
    () =>
      `POST ${served} naming version ${future} was answered with ${describe(version)}; the spec requires 400 with a JSON-RPC -32022 body`,
  );

  const mismatch = await http.send('POST', headers('tools/list'), request('server/discover'));
  v.expect(
    'http.header-mismatch',
    mismatch.status === 400 && errorCode(mismatch) === -32020,
    'a mismatched Mcp-Method is HTTP 400 with -32020',
    () =>
      `POST server/discover with Mcp-Method: tools/list was answered with ${describe(mismatch)}; the spec requires 400 with a JSON-RPC -32020 body`,
  );

  // Only a server that speaks 2026-07-28 alone should refuse GET and DELETE: the others serve the
  // GET stream and the DELETE of their legacy sessions.
  const supported = (discover.message?.result as Json | undefined)?.supportedVersions;
  const listed = Array.isArray(supported) ? supported.filter((r) => r !== revision).map(String) : [];
  const legacyToo = [...new Set([...listed, ...older])];
  const del =
    legacyToo.length > 0 ? undefined : await http.send('DELETE', { 'mcp-protocol-version': revision });
  if (del) {
    v.expect(
      'http.delete-405',
      del.status === 405,
      'DELETE is 405',
      () => `DELETE on the endpoint was answered with ${describe(del)}; the spec asks for 405`,
    );
  }

  await foreignCallers(http, v, revision, (foreign) =>
    http.send('POST', { ...headers('server/discover'), ...foreign }, request('server/discover')),
  );
  await bodyLimit(
    v,
    (body) => http.send('POST', headers('server/discover'), body),
    request('server/discover'),
  );
  // Last: some servers never answer a GET (the connection stays open until the timeout).
  if (legacyToo.length > 0) {
    for (const id of ['http.get-405', 'http.delete-405']) {
      v.notApplicable(
        id,
        `the server also speaks ${legacyToo.join(', ')}, whose GET streams and session DELETEs it may serve`,
      );
    }
    return;
  }
  const get = await http.send('GET', { accept: 'text/event-stream' }, undefined, { read: false });
  v.expect(
    'http.get-405',
    get.status === 405,
    'GET is 405',
    () => `GET on the endpoint was answered with ${describe(get)}; the spec asks for 405`,
  );
}

async function legacy(http: HttpProbe, v: Verdicts, revision: Revision): Promise<void> {
  const base: Record<string, string> = { accept: ACCEPT, 'content-type': 'application/json' };
  const initialize = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: {
      protocolVersion: revision,
      capabilities: checkerCapabilities(revision),
      clientInfo: CHECKER_INFO,
    },
  };
  const init = await http.send('POST', base, initialize);
  v.expect(
    'http.content-type',
    init.status === 200 && isJsonOrStream(init),
    'answers are JSON or an event stream',
    () => `POST initialize was answered with ${describe(init)}`,
  );
  await probeAuthorization(http, v, revision, () => http.send('POST', base, initialize, { anonymous: true }));
  if (init.status !== 200) return;
  const session = init.headers.get('mcp-session-id');
  const sessionHeaders: Record<string, string> = {
    ...base,
    ...(session ? { 'mcp-session-id': session } : {}),
    ...(revision !== '2025-03-26' ? { 'mcp-protocol-version': revision } : {}),
  };
  const initialized = await http.send('POST', sessionHeaders, {
    jsonrpc: '2.0',
    method: 'notifications/initialized',
  });
  v.expect(
    'http.notification-202',
    initialized.status === 202,
    'notifications are answered with 202',
    () =>
      `POST notifications/initialized was answered with ${describe(initialized)}; the spec requires 202 Accepted`,
  );
  if (session === null) {
    for (const id of [
      'http.session-id',
      'http.session-id-entropy',
      'http.unknown-session',
      'http.missing-session',
    ]) {
      v.notApplicable(id, 'the server assigns no session id (stateless)');
    }
  } else {
    v.expect(
      'http.session-id',
      /^[\x21-\x7e]+$/.test(session),
      'the session id is visible ASCII',
      () =>
        `the server assigned Mcp-Session-Id ${JSON.stringify(session)}, which holds characters outside 0x21-0x7E`,
    );
    const ping = { jsonrpc: '2.0', id: 2, method: 'ping' };
    const unknown = await http.send(
      'POST',
      { ...sessionHeaders, 'mcp-session-id': 'switchboard-check-unknown-session' },
      ping,
    );
    v.expect(
      'http.unknown-session',
      unknown.status === 404,
      'an unknown session is 404',
      () =>
        `POST ping naming a session the server never assigned was answered with ${describe(unknown)}; the spec requires 404`,
    );
    const { 'mcp-session-id': _session, ...withoutSession } = sessionHeaders;
    const missing = await http.send('POST', withoutSession, ping);
    // The rule is on servers that require a session id: one that serves the request does not.
    if (missing.status >= 200 && missing.status < 300) {
      v.notApplicable(
        'http.missing-session',
        `the server assigns session ids but does not require them (POST ping without one was answered with HTTP ${missing.status})`,
      );
    } else {
      v.expect(
        'http.missing-session',
        missing.status === 400,
        'a request without a session id is 400',
        () =>
          `POST ping without Mcp-Session-Id was answered with ${describe(missing)}; a server that requires a session id should answer 400 Bad Request`,
      );
    }
    await sessionIds(http, v, session, base, initialize);
  }
  await versionHeader(http, v, revision, sessionHeaders);
  await batch(http, v, revision, sessionHeaders);
  const { 'content-type': _type, ...streamHeaders } = sessionHeaders;
  const get = await http.send('GET', { ...streamHeaders, accept: 'text/event-stream' }, undefined, {
    read: false,
  });
  v.expect(
    'http.get-stream',
    get.status === 405 || (get.status === 200 && get.contentType.startsWith('text/event-stream')),
    'GET opens an event stream or is refused with 405',
    () =>
      `GET on the endpoint${session ? ' with the session id' : ''} was answered with ${describe(get)}; the spec requires text/event-stream or 405`,
  );
  await foreignCallers(http, v, revision, (foreign) =>
    http.send('POST', { ...base, ...foreign }, initialize),
  );
  if (session !== null) {
    const ping = { jsonrpc: '2.0', id: 3, method: 'ping' };
    await bodyLimit(v, (body) => http.send('POST', sessionHeaders, body), ping);
    await deleteSession(http, v, streamHeaders, ping);
  } else {
    await bodyLimit(v, (body) => http.send('POST', base, body), initialize);
    v.notApplicable('http.delete-session', 'the server assigns no session id (stateless)');
  }
}

/** 2025-06-18 on: a request naming a protocol version the server does not support gets 400. */
async function versionHeader(
  http: HttpProbe,
  v: Verdicts,
  revision: Revision,
  sessionHeaders: Record<string, string>,
): Promise<void> {
  if (revision < '2025-06-18') return;
  const unsupported = '1999-01-01';
  const answer = await http.send(
    'POST',
    { ...sessionHeaders, 'mcp-protocol-version': unsupported },
    { jsonrpc: '2.0', id: 4, method: 'ping' },
  );
  v.expect(
    'http.protocol-version-400',
    answer.status === 400,
    'an unsupported MCP-Protocol-Version is answered with 400',
    () =>
      `POST ping with MCP-Protocol-Version: ${unsupported} was answered with ${describe(answer)}; the spec requires 400 Bad Request for an invalid or unsupported version`,
  );
}

/** A batch of two pings POSTed: served on 2025-03-26, not on 2025-06-18 and 2025-11-25. */
async function batch(
  http: HttpProbe,
  v: Verdicts,
  revision: Revision,
  sessionHeaders: Record<string, string>,
): Promise<void> {
  const rule = batchRule(revision);
  if (rule === undefined) return;
  const ids = ['check-batch-1', 'check-batch-2'];
  const answer = await http.send(
    'POST',
    sessionHeaders,
    ids.map((id) => ({ jsonrpc: '2.0', id, method: 'ping' })),
    { responses: ids.length },
  );
  const served = answer.responses.filter((m) => ids.includes(m.id as string) && 'result' in m);
  const seen = `a POST of a batch of two pings was answered with HTTP ${answer.status}${answer.responses.length > 0 ? ` and ${answer.responses.map((m) => brief(m, 120)).join(', ')}` : ''}`;
  judgeBatch(v, rule, served.length === ids.length, served.length > 0, seen);
}

/** Two more sessions: their ids must not be guessable from the first one's. */
async function sessionIds(
  http: HttpProbe,
  v: Verdicts,
  first: string,
  headers: Record<string, string>,
  initialize: Json,
): Promise<void> {
  const ids = [first];
  for (let i = 0; i < 2; i++) {
    const answer = await http.send('POST', headers, initialize);
    const id = answer.headers.get('mcp-session-id');
    if (id === null) {
      v.notTested('http.session-id-entropy', `a second initialize was answered with ${describe(answer)}`);
      return;
    }
    ids.push(id);
  }
  const close = ids
    .slice(1)
    .map((id) => http.send('DELETE', { 'mcp-session-id': id }).catch(() => undefined));
  await Promise.all(close);
  const pairs = [
    [ids[0]!, ids[1]!],
    [ids[0]!, ids[2]!],
    [ids[1]!, ids[2]!],
  ] as const;
  const weak = pairs.filter(([a, b]) => difference(a, b) < MIN_SESSION_ID_DIFFERENCE);
  v.expect(
    'http.session-id-entropy',
    weak.length === 0,
    'three sessions got ids that differ in many characters',
    () =>
      `three initializes got the session ids ${ids.map((id) => JSON.stringify(id)).join(', ')}: ${weak.map(([a, b]) => `${JSON.stringify(a)} and ${JSON.stringify(b)} differ in ${difference(a, b)} characters`).join('; ')}; the spec asks for ids that are globally unique and cryptographically secure (a counter or a short id can be guessed)`,
  );
}

/** Characters in which two strings differ, position by position (a length difference counts in full). */
function difference(a: string, b: string): number {
  let count = Math.abs(a.length - b.length);
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) count++;
  return count;
}

/** DELETE of the session: ended (then 404) or refused with 405. */
async function deleteSession(
  http: HttpProbe,
  v: Verdicts,
  sessionHeaders: Record<string, string>,
  ping: Json,
): Promise<void> {
  const del = await http.send('DELETE', sessionHeaders);
  if (del.status === 405) {
    v.pass('http.delete-session', 'DELETE of the session is refused with 405 (clients cannot end sessions)');
    return;
  }
  if (del.status < 200 || del.status > 299) {
    v.fail(
      'http.delete-session',
      `DELETE naming the session was answered with ${describe(del)}; the spec allows a success (the session ends) or 405`,
    );
    return;
  }
  const after = await http.send('POST', { ...sessionHeaders, 'content-type': 'application/json' }, ping);
  v.expect(
    'http.delete-session',
    after.status === 404,
    'a deleted session is gone: requests naming it get 404',
    () =>
      `DELETE naming the session was answered with HTTP ${del.status}, then POST ping naming it was answered with ${describe(after)}; a terminated session's id must get 404 Not Found`,
  );
}

/** The foreign callers a local server must refuse: another site's page (Origin), DNS rebinding (Host). */
const FOREIGN_CALLERS = [
  {
    id: 'security.origin',
    header: 'Origin',
    value: FOREIGN_ORIGIN,
    why: 'the spec requires 403',
  },
  {
    id: 'security.host',
    header: 'Host',
    value: FOREIGN_HOST,
    why: 'a DNS-rebinding page reaches a local server under its own name, and only the Host shows it',
  },
] as const;

/**
 * `send`: the probe's request with the foreign header added. Before 2025-11-25 the spec names no
 * status for a refused Origin: any 4xx refuses it.
 */
async function foreignCallers(
  http: HttpProbe,
  v: Verdicts,
  revision: Revision,
  send: (foreign: Record<string, string>) => Promise<Answer>,
): Promise<void> {
  for (const { id, header, value, why } of FOREIGN_CALLERS) {
    if (!http.local) {
      v.notApplicable(id, 'the server is not on a loopback address');
      continue;
    }
    const answer = await send({ [header.toLowerCase()]: value });
    const anyRefusal = id === 'security.origin' && revision < '2025-11-25';
    v.expect(
      id,
      anyRefusal ? answer.status >= 400 && answer.status < 500 : answer.status === 403,
      `a foreign ${header} is refused with ${anyRefusal ? 'an HTTP error status' : '403'}`,
      () =>
        `a request with ${header}: ${value} to a local server was answered with ${describe(answer)}; ${anyRefusal ? 'the server must validate the Origin header (and refuse a foreign one)' : why}`,
    );
  }
}

async function bodyLimit(
  v: Verdicts,
  send: (body: unknown) => Promise<Answer>,
  message: Json,
): Promise<void> {
  const params =
    typeof message.params === 'object' && message.params !== null ? (message.params as Json) : {};
  const huge = JSON.stringify({ ...message, params: { ...params, padding: 'x'.repeat(HUGE_BODY_BYTES) } });
  let seen: string;
  let refused: boolean;
  try {
    const answer = await send(huge);
    refused = answer.status >= 400 && answer.status < 500;
    seen = describe(answer);
  } catch (error) {
    // Our own timeout is no refusal: the server was still reading (or working on) the body.
    if (errorMessage(error).includes('no answer within')) {
      v.notTested(
        'security.body-limit',
        `a POST of ${HUGE_BODY_BYTES} bytes got no answer within the timeout`,
      );
      return;
    }
    refused = true;
    seen = `the connection closed (${errorMessage(error)})`;
  }
  let alive: Answer | string;
  try {
    alive = await send(message);
  } catch (error) {
    alive = errorMessage(error);
  }
  const serving = typeof alive !== 'string' && alive.status >= 200 && alive.status < 300;
  v.expect(
    'security.body-limit',
    refused && serving,
    'a 16 MiB body is refused and the server goes on serving',
    () =>
      !refused
        ? `a POST of ${HUGE_BODY_BYTES} bytes was answered with ${seen}; a body that large should be refused (413 Payload Too Large)`
        : `after a POST of ${HUGE_BODY_BYTES} bytes (${seen}), the next request was answered with ${typeof alive === 'string' ? alive : describe(alive)}: the server stopped serving`,
  );
}
