/**
 * The HTTP server's core: routing and bookkeeping for one handler, shared by every adapter (the
 * handler's own `fetch`, and `toNodeListener`). `handler.ts` loads this module when the first
 * handler is made, so a program that never serves HTTP never loads it.
 *
 * On the MCP endpoint (default `/mcp`), a request is routed by what it carries:
 * - a body whose params `_meta` holds `io.modelcontextprotocol/protocolVersion` is a 2026-07-28
 *   request: stateless, answered on its own POST (an `Mcp-Session-Id` header is ignored);
 * - `initialize` opens a legacy Streamable HTTP session (2025-03-26 .. 2025-11-25);
 * - an `Mcp-Session-Id` header addresses that session (POST, GET stream, DELETE);
 * - anything else is refused with a message saying which of the above to do.
 * The deprecated HTTP+SSE transport (2024-11-05) has its own paths (`GET /sse`, `POST /messages`).
 *
 * Before routing, every request passes the Host/Origin check (403), and bodies the content-type
 * (415), size (413) and JSON (400) checks. Every error reply carries a JSON-RPC error body.
 *
 * With an `auth` option (see authenticator.ts), its public documents are served before routing,
 * every request to an MCP path must carry credentials it accepts (401), a body's requests need
 * the scopes of what they call (403), and a legacy session answers only the principal that opened
 * it: to anyone else it does not exist (the same 404 as an unknown id).
 */
import { type AuthInfo, principalOf } from '../../../engine/channel.js';
import { hasModernEnvelope } from '../../../protocol/envelope.js';
import { ErrorCode } from '../../../protocol/errors.js';
import { classify, type JsonRpcRequest } from '../../../protocol/jsonrpc.js';
import { META } from '../../../protocol/meta.js';
import { isModernRevision, MODERN_REVISIONS } from '../../../protocol/revisions.js';
import type { ServerCore } from '../../../server/server.js';
import { clip } from '../../../util/clip.js';
import { asError, isPlainObject } from '../../../util/guards.js';
import type { ScopedRequest } from './authenticator.js';
import {
  acceptedReply,
  errorReply,
  type HttpExchange,
  type HttpReply,
  internalErrorReply,
} from './exchange.js';
import { FetchExchange, toResponse } from './fetch-exchange.js';
import { SseSession } from './legacy-sse.js';
import { type ModernCall, type ModernScope, serveModernRequest } from './modern.js';
import { checkAccept, checkJsonContentType, REPLY_TYPES, SSE_TYPE, withJsonBody } from './negotiation.js';
import type { ResolvedOptions } from './options.js';
import { OriginGuard } from './security.js';
import { StreamableSession } from './session.js';
import type { SessionRecord } from './session-store.js';
import {
  newNodeNumber,
  newSessionId,
  type RegisteredSession,
  SessionRegistry,
  type SessionScope,
} from './sessions.js';
import { KeepAlive, type StreamPolicy } from './sse.js';

/** What an authenticator answered: credentials (no `status`), or a reply. */
const isAuthInfo = (value: AuthInfo | HttpReply): value is AuthInfo => !('status' in value);

/** @internal Routing and bookkeeping shared by every adapter. */
export class HandlerCore {
  readonly options: ResolvedOptions;
  readonly #streams: StreamPolicy;
  readonly #sessions: SessionRegistry;
  readonly #modern: ModernScope;
  readonly #scope: SessionScope;
  readonly #guard: OriginGuard;
  /** The principal each legacy session was opened by (see `principalOf`). */
  readonly #owners = new WeakMap<RegisteredSession, string | null>();
  /** With a `sessionStore`: stops hearing the other nodes' session messages, and leaves them. */
  readonly #unsubscribe: (() => void) | undefined;
  #closed = false;

  constructor(server: ServerCore, options: ResolvedOptions) {
    this.options = options;
    this.#guard = new OriginGuard(options.policy);
    this.#streams = {
      keepAlive: options.keepAliveMs > 0 ? new KeepAlive(options.keepAliveMs) : undefined,
      maxBufferedBytes: options.maxStreamBufferBytes,
      onerror: options.onerror,
    };
    this.#sessions = new SessionRegistry(options.maxSessions, options.sessionIdleTimeoutMs, options.onerror);
    this.#modern = { server, options, streams: this.#streams, inFlight: new Set<ModernCall>() };
    const sessions = this.#sessions;
    const store = options.sessionStore;
    const shared = store ? { store, node: newNodeNumber() } : undefined;
    this.#scope = {
      server,
      options,
      streams: this.#streams,
      shared,
      closed: (session: RegisteredSession) => sessions.remove(session),
    };
    if (store && shared) {
      const unsubscribe = store.subscribe(({ session: id, from, message }) => {
        if (from === shared.node) return;
        const session = sessions.peek(id);
        if (session instanceof StreamableSession) session.receive(message);
      });
      const leave = store.join(shared.node);
      this.#unsubscribe = () => {
        unsubscribe();
        leave();
      };
    }
  }

  /** Open legacy sessions (both legacy transports). */
  get sessionCount(): number {
    return this.#sessions.size;
  }

  /**
   * Serves one exchange: the reply, or a promise of it when the body must be read or the request
   * served asynchronously. Never throws; the promise rejects only on a bug, which the adapter turns
   * into {@link failure} (one promise less per request than catching here).
   */
  handle(exchange: HttpExchange): HttpReply | Promise<HttpReply> {
    try {
      return this.#route(exchange);
    } catch (error) {
      return this.failure(error);
    }
  }

  /** Serves a WHATWG `Request` (the handler's `fetch`). Never rejects. */
  fetch(request: Request, auth: AuthInfo | undefined): Promise<Response> {
    return Promise.resolve(this.handle(new FetchExchange(request, auth))).then(toResponse, (error) =>
      toResponse(this.failure(error)),
    );
  }

  /** The 500 reply for an unexpected error (reported to `onerror`). */
  failure(error: unknown): HttpReply {
    this.options.onerror(asError(error));
    return internalErrorReply(error);
  }

  async close(): Promise<void> {
    this.#closed = true;
    // Listen streams that came through this handler end gracefully (their closing result) before
    // everything still in flight is cut.
    const inFlight: ReadonlySet<unknown> = this.#modern.inFlight;
    await this.#modern.server.notifications.endListens((link) => inFlight.has(link));
    for (const call of [...this.#modern.inFlight]) call.shutdown();
    this.#unsubscribe?.();
    await this.#sessions.closeAll();
    this.#streams.keepAlive?.stop();
  }

  #route(exchange: HttpExchange): Promise<HttpReply> | HttpReply {
    if (this.#closed) {
      return errorReply(503, 'The server is shutting down; try again later.', {
        code: ErrorCode.InternalError,
      });
    }
    const forbidden = this.#guard.check(exchange);
    if (forbidden) return errorReply(403, forbidden);
    const { endpoint, sseEndpoint, messagesEndpoint, auth } = this.options;
    let path = exchange.path;
    if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
    if (auth) {
      const document = auth.document(exchange);
      if (document) return document;
      if (
        path === endpoint ||
        (sseEndpoint !== undefined && (path === sseEndpoint || path === messagesEndpoint))
      ) {
        return auth.authenticate(exchange).then((verified) => {
          if (!isAuthInfo(verified)) return verified;
          exchange.auth = verified;
          return this.#routePath(exchange, path);
        });
      }
    }
    return this.#routePath(exchange, path);
  }

  #routePath(exchange: HttpExchange, path: string): Promise<HttpReply> | HttpReply {
    const { endpoint, sseEndpoint, messagesEndpoint } = this.options;
    const method = exchange.method;
    if (path === endpoint) {
      if (method === 'POST') return this.#post(exchange);
      if (method === 'GET') return this.#get(exchange);
      if (method === 'DELETE') return this.#delete(exchange);
      return this.#notAllowed(method, this.options.legacySessions ? 'GET, POST, DELETE' : 'POST');
    }
    if (sseEndpoint !== undefined) {
      if (path === sseEndpoint)
        return method === 'GET' ? this.#openSse(exchange) : this.#notAllowed(method, 'GET');
      if (path === messagesEndpoint) {
        return method === 'POST' ? this.#postMessage(exchange) : this.#notAllowed(method, 'POST');
      }
    }
    return errorReply(
      404,
      `Not Found: ${path} is not an MCP endpoint of this server. Send MCP requests to ${endpoint}.`,
    );
  }

  #notAllowed(method: string, allow: string): HttpReply {
    return errorReply(405, `Method Not Allowed: ${method} is not served here; use ${allow}.`, {
      headers: { allow },
    });
  }

  // --- the MCP endpoint --------------------------------------------------------------------------

  #post(exchange: HttpExchange): Promise<HttpReply> | HttpReply {
    return (
      checkJsonContentType(exchange) ??
      withJsonBody(exchange, this.options.maxBodyBytes, (message) => this.#dispatch(exchange, message))
    );
  }

  /** Routes a POST by its body (see the module comment). */
  #dispatch(exchange: HttpExchange, message: unknown): Promise<HttpReply> | HttpReply {
    const refused = this.#authorize(exchange, message);
    if (refused) return refused;
    const sessionId = exchange.header('mcp-session-id');
    if (Array.isArray(message)) {
      if (sessionId === undefined) {
        return errorReply(
          400,
          'Bad Request: JSON-RPC batches exist only in protocol 2025-03-26, inside a session: initialize first (not in a batch), then send batches with the Mcp-Session-Id it returned. Otherwise send one message per POST.',
        );
      }
      return this.#sessionPost(exchange, sessionId, message);
    }
    if (!isPlainObject(message)) {
      return errorReply(400, 'Invalid Request: the body must be one JSON-RPC message (a JSON object).');
    }
    // A 2026-07-28 message: its params' `_meta` names a protocol version.
    if (isPlainObject(message.params) && hasModernEnvelope(message.params))
      return this.#modernPost(exchange, message);
    if (message.method === 'initialize') return this.#initialize(exchange, message);
    if (sessionId !== undefined) return this.#sessionPost(exchange, sessionId, message);
    const c = classify(message);
    if (c.kind === 'invalid') return errorReply(400, `Invalid Request: ${c.reason}.`, { id: c.id });
    const version = exchange.header('mcp-protocol-version');
    if (c.kind === 'request' && isModernRevision(version)) {
      return errorReply(
        400,
        `Invalid params: the request has no _meta["${META.protocolVersion}"]. Protocol ${version} requests must carry the _meta envelope (protocolVersion, clientCapabilities) in params.`,
        { code: ErrorCode.InvalidParams, id: c.message.id },
      );
    }
    return errorReply(
      400,
      `Bad Request: no Mcp-Session-Id header. Legacy clients (up to 2025-11-25) must send initialize first, then the Mcp-Session-Id it returned with every request; 2026-07-28 clients must put _meta["${META.protocolVersion}"] in every request.`,
      { id: c.kind === 'request' ? c.message.id : null },
    );
  }

  /** With an `auth` option: the 403 for a body whose requests need scopes the caller lacks. */
  #authorize(exchange: HttpExchange, body: unknown): HttpReply | undefined {
    const auth = this.options.auth;
    if (!auth || !exchange.auth) return undefined;
    const requests: ScopedRequest[] = [];
    for (const message of Array.isArray(body) ? body : [body]) {
      if (!isPlainObject(message) || typeof message.method !== 'string' || !('id' in message)) continue;
      const params = isPlainObject(message.params) ? message.params : {};
      requests.push({
        method: message.method,
        itemScopes: this.#modern.server.itemScopes(message.method, params),
      });
    }
    return requests.length === 0 ? undefined : auth.authorize(exchange.auth, requests);
  }

  #modernPost(exchange: HttpExchange, message: Record<string, unknown>): Promise<HttpReply> | HttpReply {
    const c = classify(message);
    switch (c.kind) {
      case 'request':
        return serveModernRequest(this.#modern, exchange, c.message);
      case 'notification':
        // 2026-07-28 defines no client notification over HTTP (closing a stream is the cancellation).
        return acceptedReply();
      case 'result':
      case 'error':
        return errorReply(
          400,
          'Bad Request: 2026-07-28 clients send no JSON-RPC responses; answer input requests by retrying the original request with inputResponses.',
        );
      case 'invalid':
        return errorReply(400, `Invalid Request: ${c.reason}.`, { id: c.id });
    }
  }

  async #initialize(exchange: HttpExchange, message: Record<string, unknown>): Promise<HttpReply> {
    const c = classify(message);
    if (c.kind !== 'request') {
      return errorReply(
        400,
        `Invalid Request: initialize must be a JSON-RPC request with an id${c.kind === 'invalid' ? ` (${c.reason})` : ''}.`,
        { id: c.kind === 'invalid' ? c.id : null },
      );
    }
    const request = c.message as JsonRpcRequest;
    if (!this.options.legacySessions) {
      const requested = request.params?.protocolVersion;
      return errorReply(
        400,
        `This endpoint serves only protocol ${MODERN_REVISIONS.join(', ')}, which has no initialize: send server/discover with _meta["${META.protocolVersion}"].`,
        {
          code: ErrorCode.UnsupportedProtocolVersion,
          id: request.id,
          data: {
            supported: [...MODERN_REVISIONS],
            requested: typeof requested === 'string' ? requested : '',
          },
        },
      );
    }
    const notAcceptable = checkAccept(exchange, REPLY_TYPES[this.options.responseMode]);
    if (notAcceptable) return notAcceptable;
    if (!this.#sessions.reserve()) {
      return errorReply(
        503,
        `Service Unavailable: this server already holds its maximum of ${this.options.maxSessions} sessions, all in use. Try again later, or end unused sessions with DELETE.`,
        { code: ErrorCode.InternalError, id: request.id, headers: { 'retry-after': '5' } },
      );
    }
    const session = new StreamableSession(this.#scope, newSessionId());
    const owner = principalOf(exchange.auth);
    this.#owners.set(session, owner);
    this.#sessions.add(session);
    const reply = await session.post(exchange, message);
    if (session.revision !== undefined) {
      if (!this.#scope.shared) return reply;
      try {
        await session.share(owner);
        return reply;
      } catch (error) {
        await session.terminate();
        if ('stream' in reply) reply.stream.end();
        return this.#storeFailed(error, request.id);
      }
    }
    // initialize failed: the session never started, so do not hand out its id.
    await session.terminate();
    const { 'mcp-session-id': _dropped, ...headers } = reply.headers;
    return { ...reply, headers };
  }

  /**
   * The session `sessionId` names, if it is of `kind` and was opened by the exchange's principal;
   * else the same 404 whether it exists or not (a session is not revealed to anyone else).
   */
  #lookup(
    sessionId: string,
    kind: RegisteredSession['kind'],
    exchange: HttpExchange,
  ): RegisteredSession | HttpReply {
    const session = this.#sessions.get(sessionId);
    if (session && session.kind === kind && this.#owners.get(session) === principalOf(exchange.auth)) {
      return session;
    }
    return errorReply(
      404,
      kind === 'streamable'
        ? `Session not found: ${JSON.stringify(clip(sessionId))} is unknown, expired or ended. Start a new session with initialize (without Mcp-Session-Id).`
        : `Session not found: ${JSON.stringify(clip(sessionId))} is unknown or its stream closed. Open a new stream with GET ${this.options.sseEndpoint}.`,
    );
  }

  /** The 503 for a session store that failed (Redis down): the request needs the shared session. */
  #storeFailed(error: unknown, id: JsonRpcRequest['id'] | null = null): HttpReply {
    this.options.onerror(asError(error));
    return errorReply(
      503,
      `Service Unavailable: the shared session store failed (${asError(error).message.replace(/\.$/, '')}). Try again shortly.`,
      { code: ErrorCode.InternalError, id, headers: { 'retry-after': '1' } },
    );
  }

  /**
   * The Streamable HTTP session `sessionId` names, for the exchange's principal: this node's, or
   * with a `sessionStore` one rebuilt from the shared record (see {@link #replica}).
   */
  #streamable(
    sessionId: string,
    exchange: HttpExchange,
  ): StreamableSession | HttpReply | Promise<StreamableSession | HttpReply> {
    if (this.#scope.shared) return this.#replica(sessionId, exchange);
    const found = this.#lookup(sessionId, 'streamable', exchange);
    return found instanceof StreamableSession ? found : (found as HttpReply);
  }

  /**
   * A shared session: this node's replica once its record is known to be alive (one round trip,
   * which refreshes the record's lifetime), else one rebuilt from the record (one round trip too).
   */
  async #replica(sessionId: string, exchange: HttpExchange): Promise<StreamableSession | HttpReply> {
    const { store } = this.#scope.shared!;
    const local = this.#lookup(sessionId, 'streamable', exchange);
    if (local instanceof StreamableSession) {
      let alive: boolean;
      try {
        alive = await store.touch(sessionId);
      } catch (error) {
        return this.#storeFailed(error);
      }
      if (alive) return local;
      // Expired, or ended while this node missed the message: it ends here too.
      await local.connection.close();
      return this.#lookup(sessionId, 'streamable', exchange) as HttpReply;
    }
    if (this.#sessions.peek(sessionId)) return local as HttpReply; // Another kind, or another principal.
    let record: SessionRecord | undefined;
    try {
      record = await store.load(sessionId);
    } catch (error) {
      return this.#storeFailed(error);
    }
    if (!record || record.owner !== principalOf(exchange.auth)) return local as HttpReply;
    // Two requests for the session may have arrived at once: the first made the replica.
    const raced = this.#sessions.peek(sessionId);
    if (raced instanceof StreamableSession) return raced;
    if (!this.#sessions.reserve()) {
      return errorReply(
        503,
        `Service Unavailable: this node already holds its maximum of ${this.options.maxSessions} sessions, all in use. Try again later.`,
        { code: ErrorCode.InternalError, headers: { 'retry-after': '5' } },
      );
    }
    const replica = new StreamableSession(this.#scope, sessionId, record);
    this.#owners.set(replica, record.owner);
    this.#sessions.add(replica);
    return replica;
  }

  #sessionPost(exchange: HttpExchange, sessionId: string, message: unknown): Promise<HttpReply> | HttpReply {
    const found = this.#streamable(sessionId, exchange);
    if (found instanceof StreamableSession) return this.#postTo(found, exchange, message);
    if (found instanceof Promise) {
      return found.then((session) =>
        session instanceof StreamableSession ? this.#postTo(session, exchange, message) : session,
      );
    }
    return found;
  }

  #postTo(
    session: StreamableSession,
    exchange: HttpExchange,
    message: unknown,
  ): Promise<HttpReply> | HttpReply {
    return session.checkProtocolVersion(exchange) ?? session.post(exchange, message);
  }

  #get(exchange: HttpExchange): Promise<HttpReply> | HttpReply {
    const sessionId = exchange.header('mcp-session-id');
    if (sessionId === undefined || !this.options.legacySessions) {
      return errorReply(
        405,
        'Method Not Allowed: GET opens the stream of a legacy session (send its Mcp-Session-Id). Protocol 2026-07-28 has no GET stream: POST subscriptions/listen to receive change notifications.',
        { headers: { allow: this.options.legacySessions ? 'GET, POST, DELETE' : 'POST' } },
      );
    }
    const refused = checkAccept(exchange, [SSE_TYPE]);
    if (refused) return refused;
    const found = this.#streamable(sessionId, exchange);
    const open = (session: StreamableSession | HttpReply) =>
      session instanceof StreamableSession
        ? (session.checkProtocolVersion(exchange) ?? session.get(exchange))
        : session;
    return found instanceof Promise ? found.then(open) : open(found);
  }

  async #delete(exchange: HttpExchange): Promise<HttpReply> {
    const sessionId = exchange.header('mcp-session-id');
    if (sessionId === undefined || !this.options.legacySessions) {
      return errorReply(
        405,
        'Method Not Allowed: DELETE ends a legacy session (send its Mcp-Session-Id). Protocol 2026-07-28 has no sessions to end.',
        { headers: { allow: this.options.legacySessions ? 'GET, POST, DELETE' : 'POST' } },
      );
    }
    const found = await this.#streamable(sessionId, exchange);
    if (!(found instanceof StreamableSession)) return found;
    const mismatch = found.checkProtocolVersion(exchange);
    if (mismatch) return mismatch;
    try {
      await found.end();
    } catch (error) {
      return this.#storeFailed(error);
    }
    return { status: 200, headers: {} };
  }

  // --- HTTP+SSE (2024-11-05) ---------------------------------------------------------------------

  #openSse(exchange: HttpExchange): HttpReply {
    const notAcceptable = checkAccept(exchange, [SSE_TYPE]);
    if (notAcceptable) return notAcceptable;
    if (!this.#sessions.reserve()) {
      return errorReply(
        503,
        `Service Unavailable: this server already holds its maximum of ${this.options.maxSessions} sessions, all in use. Try again later.`,
        { code: ErrorCode.InternalError, headers: { 'retry-after': '5' } },
      );
    }
    const session = new SseSession(this.#scope, newSessionId());
    this.#owners.set(session, principalOf(exchange.auth));
    this.#sessions.add(session);
    return session.reply;
  }

  #postMessage(exchange: HttpExchange): Promise<HttpReply> | HttpReply {
    const sessionId = new URLSearchParams(exchange.query).get('sessionId');
    if (sessionId === null) {
      return errorReply(
        400,
        `Bad Request: no sessionId in the query. POST to the URL the endpoint event of GET ${this.options.sseEndpoint} announced.`,
      );
    }
    const found = this.#lookup(sessionId, 'sse', exchange);
    if (!(found instanceof SseSession)) return found as HttpReply;
    return (
      checkJsonContentType(exchange) ??
      withJsonBody(
        exchange,
        this.options.maxBodyBytes,
        (message) => this.#authorize(exchange, message) ?? found.post(exchange, message),
      )
    );
  }
}
