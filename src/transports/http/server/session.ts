/**
 * One legacy Streamable HTTP session (2025-03-26 .. 2025-11-25): a {@link ServerConnection} over a
 * Channel whose frames this class routes to HTTP responses.
 *
 * - A POST delivers its message (or 2025-03-26 batch) into the connection. The responses to its
 *   requests, and the notifications and requests the server sends about them (`relatedTo`), go back
 *   on that POST: as JSON when nothing had to go first, else as an SSE stream.
 * - Everything else the server sends (list changes, unrelated requests) goes to the standalone
 *   stream a GET opens; while none is open it waits in the event store.
 * - With an event store, every SSE event gets the id `<stream>-<seq>` and is kept, so a client that
 *   lost a stream resumes it with GET + `Last-Event-ID`. A lost POST stream is not a cancellation
 *   (legacy rule): the request keeps running and its response waits in the store.
 * - 2025-11-25 streams start with a priming event (an id, empty data, and `retry`).
 */
import type { Channel, ChannelSink, FrameInfo } from '../../../engine/channel.js';
import { ErrorCode } from '../../../protocol/errors.js';
import { isRequestId, type RequestId } from '../../../protocol/jsonrpc.js';
import { isLegacyRevision, type LegacyRevision } from '../../../protocol/revisions.js';
import type { ServerConnection } from '../../../server/connection.js';
import { clip } from '../../../util/clip.js';
import { asError, isPlainObject } from '../../../util/guards.js';
import { formatEventId, parseEventId, type Replay } from './event-store.js';
import {
  acceptedReply,
  congestedReply,
  errorReply,
  type HttpExchange,
  type HttpReply,
  inboundExtra,
  jsonReply,
  rateLimitHeaders,
} from './exchange.js';
import { checkAccept, REPLY_TYPES } from './negotiation.js';
import type { SessionMessage, SessionRecord, SessionStore } from './session-store.js';
import {
  nodeOfRequestId,
  nodeOfStreamId,
  requestIdBase,
  type SessionScope,
  type SharedScope,
  streamIdBase,
} from './sessions.js';
import { SharedLegacySession } from './shared-session.js';
import { formatPrimingEvent, SSE_HEADERS, SseStream } from './sse.js';

/** One logical SSE stream of the session: the standalone GET stream (id 0) or one POST's. */
class SessionStream {
  /** Sequence number of the last event sent on this stream. */
  seq = 0;
  /** Sequence number of the last event written to a live connection. */
  delivered = 0;
  /** The HTTP response currently carrying the stream, if any. */
  connection: SseStream | undefined;
  /** POST streams: every response was sent. */
  done = false;

  constructor(
    private readonly session: StreamableSession,
    readonly id: number,
  ) {}

  get live(): boolean {
    return this.connection?.open ?? false;
  }

  send(frame: string): void {
    const store = this.session.scope.options.eventStore;
    if (!store) {
      this.connection?.event(frame);
      return;
    }
    const seq = ++this.seq;
    this.session.store(this.id, seq, frame);
    if (this.connection?.event(frame, formatEventId(this.id, seq))) this.delivered = seq;
  }

  attach(connection: SseStream): void {
    if (this.connection !== connection) this.connection?.end();
    this.connection = connection;
    connection.owner = this.session.label;
    connection.onClientGone = () => {
      if (this.connection === connection) this.connection = undefined;
      this.session.touch();
    };
  }

  finish(): void {
    this.done = true;
    this.release();
  }

  /** Ends the connection but not the stream: events go on into the store until a client resumes. */
  release(): void {
    this.connection?.end();
    this.connection = undefined;
  }
}

/** One POST that carried requests, until all of them are answered. */
class PendingPost {
  /** Requests of this POST not answered yet. */
  readonly ids: Set<RequestId>;
  /** Frames collected while the reply is still undecided (JSON). */
  readonly frames: string[] = [];
  stream: SessionStream | undefined;
  completed = false;
  #settle!: (reply: HttpReply) => void;
  readonly reply: Promise<HttpReply>;

  constructor(
    private readonly session: StreamableSession,
    ids: Set<RequestId>,
  ) {
    this.ids = ids;
    this.reply = new Promise((resolve) => {
      this.#settle = resolve;
    });
  }

  settle(reply: HttpReply): void {
    this.#settle(reply);
  }

  /** A frame for this POST: a response (or the batch of them), or something sent about its requests. */
  write(frame: string): void {
    if (this.completed) return;
    if (this.stream) this.stream.send(frame);
    else this.frames.push(frame);
  }

  /** Sends what is left and ends the reply, once no request of this POST is outstanding. */
  completeIfAnswered(): void {
    if (this.completed || this.ids.size > 0) return;
    this.completed = true;
    if (this.stream) {
      this.session.endStream(this.stream);
      return;
    }
    const frames = this.frames;
    if (frames.length === 1) {
      const limited = rateLimitedError(frames[0]!);
      if (limited !== undefined) {
        this.settle(
          jsonReply(429, frames[0]!, { ...this.session.headers, ...rateLimitHeaders(limited.data) }),
        );
        return;
      }
    }
    this.settle(
      frames.length === 0
        ? acceptedReply(this.session.headers)
        : jsonReply(200, frames.length === 1 ? frames[0]! : `[${frames.join(',')}]`, this.session.headers),
    );
  }

  /** The session ended with requests of this POST unanswered. */
  abandon(): void {
    if (this.completed) return;
    this.completed = true;
    if (this.stream) this.session.endStream(this.stream);
    else {
      this.settle(
        errorReply(404, 'The session ended before this request was answered; initialize a new session.', {
          headers: this.session.headers,
        }),
      );
    }
  }
}

/** A session shared with the other nodes (see session-store.ts): this node's replica of it. */
interface Replica {
  readonly store: SessionStore;
  readonly node: number;
  readonly session: SharedLegacySession;
  /** This node holds the standalone GET stream: it sends the change notifications and keeps the events. */
  holder: boolean;
  /** A change waits for the next save. */
  dirty: boolean;
  /** The save under way: responses wait for it, so the next request, on any node, sees the change. */
  saving: Promise<void> | undefined;
}

/** A JSON-RPC response (no method, an id, a result or an error): a client's answer. */
const isResponse = (item: unknown): item is Record<string, unknown> =>
  isPlainObject(item) && !('method' in item) && 'id' in item && ('result' in item || 'error' in item);

/** The ids of the requests a stored frame answers (a response, or a batch of them). */
function answeredIds(data: string): RequestId[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    return [];
  }
  const items = Array.isArray(parsed) ? parsed : [parsed];
  return items.filter(isResponse).flatMap((item) => (isRequestId(item.id) ? [item.id] : []));
}

/** The rate-limited error a lone response frame carries (draft SEP-3304), if it is one: its reply is a 429. */
function rateLimitedError(frame: string): { data: unknown } | undefined {
  // Error frames are small; a result is not parsed to find out.
  if (frame.length > 2048 || !frame.includes(`"code":${ErrorCode.RateLimited}`)) return undefined;
  const error = (JSON.parse(frame) as { error?: { code?: unknown; data?: unknown } }).error;
  return error?.code === ErrorCode.RateLimited ? { data: error.data } : undefined;
}

export class StreamableSession implements Channel {
  readonly kind = 'streamable';
  lastActive = Date.now();
  usedAt = 0;
  readonly connection: ServerConnection;
  /** Headers every reply of this session carries. */
  readonly headers: Record<string, string>;
  #sink: ChannelSink | undefined;
  /** The POST carrying each request in flight, by request id. */
  readonly #posts = new Map<RequestId, PendingPost>();
  /** The POST whose body is being delivered right now (frames sent synchronously belong to it). */
  #delivering: PendingPost | undefined;
  readonly #standalone: SessionStream;
  /**
   * POST streams whose request is not answered yet; made by the first (most POSTs are answered with
   * JSON, and an idle session should not keep an empty Map).
   */
  #streams: Map<number, SessionStream> | undefined;
  #nextStreamId = 1;
  #closed = false;
  /** Present once the session is shared with the other nodes. */
  #replica: Replica | undefined;

  /** `record`: a replica of a shared session, rebuilt on this node. */
  constructor(
    readonly scope: SessionScope,
    readonly id: string,
    record?: SessionRecord,
  ) {
    this.headers = { 'mcp-session-id': id };
    this.#standalone = new SessionStream(this, 0);
    if (scope.shared) this.#nextStreamId = streamIdBase(scope.shared.node) + 1;
    this.connection = scope.server.connect(this);
    if (record && scope.shared) this.#adopt(scope.shared, record, false);
  }

  /** See `Channel.firstRequestId`: this node's range, in a shared session. */
  get firstRequestId(): number | undefined {
    return this.scope.shared ? requestIdBase(this.scope.shared.node) + 1 : undefined;
  }

  /**
   * After initialize, on the node that created the session: keeps its record in the store, so any
   * node can serve it. This node holds the standalone stream until a GET on another node takes it.
   */
  async share(owner: string | null): Promise<void> {
    const shared = this.scope.shared!;
    const record = SharedLegacySession.recordOf(this.connection.session!, owner);
    await shared.store.create(this.id, record);
    this.#adopt(shared, record, true);
  }

  #adopt(shared: SharedScope, record: SessionRecord, holder: boolean): void {
    const session = new SharedLegacySession(record, () => this.#save());
    this.connection.restore(session);
    this.#replica = {
      store: shared.store,
      node: shared.node,
      session,
      holder,
      dirty: false,
      saving: undefined,
    };
    if (!holder) this.connection.follow(false);
  }

  /** Saves the record once for the changes one turn made; a failure is reported (the change stays local). */
  #save(): void {
    const replica = this.#replica;
    if (!replica || replica.dirty) return;
    replica.dirty = true;
    const saving: Promise<void> = Promise.resolve()
      .then(() => {
        replica.dirty = false;
        return replica.store.update(this.id, replica.session.record, replica.node);
      })
      .catch((error) => this.scope.options.onerror(asError(error)))
      .then(() => {
        if (replica.saving === saving) replica.saving = undefined;
      });
    replica.saving = saving;
  }

  /** A message from this session's replica on another node. */
  receive(message: SessionMessage): void {
    const replica = this.#replica;
    if (!replica || this.#closed) return;
    switch (message.type) {
      case 'update':
        replica.session.apply(message.record);
        return;
      case 'end':
        void this.connection.close();
        return;
      case 'response':
        if (message.to === replica.node) this.#sink?.message(message.message);
        return;
      case 'cancel': {
        this.#sink?.message(message.message);
        const params = isPlainObject(message.message) ? message.message.params : undefined;
        if (isPlainObject(params) && isRequestId(params.requestId)) this.#release(params.requestId);
        return;
      }
      case 'push':
        if (replica.holder) this.#standalone.send(message.frame);
        return;
      case 'held':
        if (message.node !== replica.node && replica.holder) {
          replica.holder = false;
          this.connection.follow(false);
          this.#standalone.release();
        }
        return;
    }
  }

  /** Busy: keeps the shared record alive (a GET stream may stay open for hours without a POST). */
  refresh(): void {
    const replica = this.#replica;
    if (replica) this.#guard(() => replica.store.touch(this.id).then(() => undefined));
  }

  /** Ends the session (DELETE): on every node when it is shared. */
  async end(): Promise<void> {
    const replica = this.#replica;
    if (replica) await replica.store.delete(this.id, replica.node);
    await this.connection.close();
  }

  #publish(message: SessionMessage): void {
    const replica = this.#replica!;
    replica.store.publish({ session: this.id, from: replica.node, message });
  }

  /** This node takes the standalone stream (a GET): the node that held it lets go. */
  #hold(): void {
    const replica = this.#replica;
    if (!replica || replica.holder) return;
    replica.holder = true;
    this.connection.follow(true);
    this.#publish({ type: 'held', node: replica.node });
  }

  /** A frame for the standalone stream: sent here, or to the node holding it. */
  #push(frame: string): void {
    const replica = this.#replica;
    if (replica && !replica.holder) this.#publish({ type: 'push', frame });
    else this.#standalone.send(frame);
  }

  /**
   * Shared sessions: answers to server→client requests another node sent go to that node, and a
   * cancellation also to the others (the request may run anywhere). What is left for this node, if
   * anything.
   */
  #route(body: unknown): unknown {
    const replica = this.#replica!;
    const items = Array.isArray(body) ? body : [body];
    const kept: unknown[] = [];
    for (const item of items) {
      if (isResponse(item)) {
        const node = nodeOfRequestId(item.id);
        if (node !== undefined && node !== replica.node) {
          this.#publish({ type: 'response', to: node, message: item });
          continue;
        }
      } else if (
        isPlainObject(item) &&
        item.method === 'notifications/cancelled' &&
        isPlainObject(item.params) &&
        !this.#posts.has(item.params.requestId as RequestId)
      ) {
        this.#publish({ type: 'cancel', message: item });
      }
      kept.push(item);
    }
    if (kept.length === items.length) return body;
    if (kept.length === 0) return undefined;
    return Array.isArray(body) ? kept : kept[0];
  }

  /** Made when asked (error messages): an idle session keeps no string of its own for it. */
  get label(): string {
    return `HTTP session ${this.id.slice(0, 8)}`;
  }

  /** The revision `initialize` negotiated, once it has. */
  get revision(): LegacyRevision | undefined {
    return this.connection.session?.revision;
  }

  /** Whether a client is attached (a stream is open, a request is in flight): never evicted then. */
  get busy(): boolean {
    if (this.#posts.size > 0 || this.#standalone.live) return true;
    if (this.#streams) for (const stream of this.#streams.values()) if (stream.live) return true;
    return false;
  }

  touch(): void {
    this.lastActive = Date.now();
  }

  /**
   * Closes the session here: its connection closes, which closes this channel and every stream. A
   * shared session goes on on the other nodes (its record stays).
   */
  terminate(): Promise<void> {
    return this.#replica ? this.connection.release() : this.connection.close();
  }

  // --- Channel -----------------------------------------------------------------------------------

  start(sink: ChannelSink): void {
    this.#sink = sink;
  }

  send(frame: string, info?: FrameInfo): void {
    if (this.#closed) return;
    switch (info?.kind) {
      case 'response': {
        const saving = this.#replica?.saving;
        if (saving) {
          // The request changed the session: its answer waits until every node can see the change.
          void saving.then(() => this.send(frame, info));
          return;
        }
        const post = (info.id === null ? undefined : this.#posts.get(info.id)) ?? this.#delivering;
        if (!post) return; // Its POST was cancelled or the session moved on: nobody waits for it.
        if (info.id !== null) {
          post.ids.delete(info.id);
          this.#posts.delete(info.id);
        } else {
          // An error without an id refuses the whole body (a batch not allowed here): no other
          // response will come for it.
          for (const id of post.ids) this.#posts.delete(id);
          post.ids.clear();
        }
        post.write(frame);
        if (post !== this.#delivering) post.completeIfAnswered();
        return;
      }
      case 'batch': {
        const post =
          this.#delivering ??
          (info.requestId === undefined ? undefined : this.#posts.get(info.requestId)) ??
          this.#batchOwner(frame);
        if (!post) return;
        for (const id of post.ids) this.#posts.delete(id);
        post.ids.clear();
        post.write(frame);
        if (post !== this.#delivering) post.completeIfAnswered();
        return;
      }
      case 'notification':
      case 'request': {
        const post = info.relatedTo === undefined ? undefined : this.#posts.get(info.relatedTo);
        if (post && !post.completed && this.scope.options.responseMode !== 'json') {
          this.#streamFor(post).send(frame);
        } else {
          this.#push(frame);
        }
        return;
      }
      default:
        this.#push(frame);
    }
  }

  /**
   * SEP-1699 polling: ends the HTTP response carrying request `id` (opening its SSE stream first if
   * the reply was still undecided, so the client has the priming event's id and `retry`). Only where
   * the client can resume: an event store, a 2025-11-25 session, and replies that may be streams.
   */
  closeRequestStream(id: RequestId): boolean {
    const post = this.#posts.get(id);
    if (!post || post.completed || !this.#primes() || this.scope.options.responseMode === 'json')
      return false;
    this.#streamFor(post).release();
    return true;
  }

  /** Messages outside every POST go to the standalone stream: only a live GET carries them now. */
  canPush(): boolean {
    if (this.#closed) return false;
    // Shared: another node holds the stream (whether its GET is open now is not known here).
    return this.#replica?.holder === false || this.#standalone.live;
  }

  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    const posts = new Set(this.#posts.values());
    if (this.#delivering) posts.add(this.#delivering);
    this.#posts.clear();
    for (const post of posts) post.abandon();
    this.#standalone.finish();
    if (this.#streams) for (const stream of this.#streams.values()) stream.finish();
    this.#streams = undefined;
    const store = this.scope.options.eventStore;
    // A session that goes on on other nodes keeps its events: a client may resume there.
    if (store && !this.connection.released) this.#guard(() => store.deleteSession(this.id));
    this.scope.closed(this);
    return Promise.resolve();
  }

  // --- HTTP --------------------------------------------------------------------------------------

  /**
   * 400 when `MCP-Protocol-Version` names no legacy revision we speak (absent is fine). The spec asks
   * for 400 on an "invalid or unsupported" version only; a client SHOULD send the negotiated one, but
   * one that sends another supported revision (the 0.1.x conformance suite hard-codes 2025-03-26, as
   * some clients do) is served under the negotiated revision, as the official SDKs do.
   */
  checkProtocolVersion(exchange: HttpExchange): HttpReply | undefined {
    const header = exchange.header('mcp-protocol-version');
    const revision = this.revision;
    if (header === undefined || revision === undefined || isLegacyRevision(header)) return undefined;
    return errorReply(
      400,
      `Bad Request: unsupported MCP-Protocol-Version ${JSON.stringify(header)}; this session negotiated ${revision} at initialize. Send "MCP-Protocol-Version: ${revision}", or initialize a new session.`,
      { headers: this.headers },
    );
  }

  /**
   * A POST's message or batch: delivered into the connection; the reply follows its requests.
   * Refused with 503 while the client lets one of the session's streams pile up unread.
   */
  post(exchange: HttpExchange, body: unknown): Promise<HttpReply> {
    this.touch();
    const congested = this.#congestedStream();
    if (congested) return Promise.resolve(congestedReply(congested.buffered, this.headers));
    if (this.#replica) {
      body = this.#route(body);
      if (body === undefined) return Promise.resolve(acceptedReply(this.headers));
    }
    const items = Array.isArray(body) ? body : [body];
    const ids = new Set<RequestId>();
    const cancelled: RequestId[] = [];
    for (const item of items) {
      if (!isPlainObject(item) || typeof item.method !== 'string') continue;
      if ('id' in item) {
        if (!isRequestId(item.id)) continue;
        if (this.#posts.has(item.id) || ids.has(item.id)) {
          return Promise.resolve(
            errorReply(
              400,
              `Request id ${JSON.stringify(item.id)} is already used by a request in flight in this session; give every pending request its own id.`,
              { id: item.id, headers: this.headers },
            ),
          );
        }
        ids.add(item.id);
      } else if (item.method === 'notifications/cancelled' && isPlainObject(item.params)) {
        const target = item.params.requestId;
        if (isRequestId(target)) cancelled.push(target);
      }
    }
    if (ids.size > 0) {
      const notAcceptable = checkAccept(exchange, REPLY_TYPES[this.scope.options.responseMode]);
      if (notAcceptable) return Promise.resolve(notAcceptable);
    }
    const post = new PendingPost(this, ids);
    for (const id of ids) this.#posts.set(id, post);
    if (ids.size > 0 && this.scope.options.responseMode === 'sse') this.#streamFor(post);
    this.#delivering = post;
    try {
      this.#sink?.message(body, inboundExtra(exchange));
    } finally {
      this.#delivering = undefined;
    }
    // A cancelled request gets no response (the engine drops it): release the POST waiting for it.
    for (const id of cancelled) this.#release(id);
    post.completeIfAnswered();
    // A notification changed the session (initialized): the client's next request may reach any node.
    const saving = this.#replica?.saving;
    return saving ? saving.then(() => post.reply) : post.reply;
  }

  /** GET: opens the standalone stream, or resumes any stream after `Last-Event-ID`. */
  async get(exchange: HttpExchange): Promise<HttpReply> {
    this.touch();
    const lastEventId = exchange.header('last-event-id');
    if (lastEventId !== undefined) return this.#resume(lastEventId);
    this.#hold();
    const standalone = this.#standalone;
    if (standalone.live) {
      return errorReply(
        409,
        'Conflict: this session already has an open GET stream, and a message goes to only one stream. Close the other stream first, or resume with Last-Event-ID.',
        { headers: this.headers },
      );
    }
    const connection = new SseStream(this.scope.streams);
    if (standalone.delivered === 0 && standalone.seq === 0 && this.#primes()) {
      connection.write(formatPrimingEvent(formatEventId(0, 0), this.scope.options.retryMs));
    }
    // Messages sent while no GET stream was open wait in the store: deliver what is kept.
    return this.#replayInto(standalone, standalone.delivered, connection, false);
  }

  /** @internal A POST stream sent its last response: end it (a resume now replays and ends). */
  endStream(stream: SessionStream): void {
    stream.finish();
    this.#streams?.delete(stream.id);
  }

  /** @internal Keeps an event in the store; a failing store is reported, never thrown. */
  store(streamId: number, seq: number, data: string): void {
    const store = this.scope.options.eventStore!;
    this.#guard(() => store.append(this.id, streamId, { seq, data }));
  }

  // -----------------------------------------------------------------------------------------------

  #guard(action: () => void | Promise<void>): void {
    try {
      const pending = action();
      if (pending) pending.catch((error) => this.scope.options.onerror(asError(error)));
    } catch (error) {
      this.scope.options.onerror(asError(error));
    }
  }

  /** An open stream whose client is far behind, if any. */
  #congestedStream(): SseStream | undefined {
    if (this.#standalone.connection?.congested) return this.#standalone.connection;
    if (this.#streams) {
      for (const stream of this.#streams.values()) if (stream.connection?.congested) return stream.connection;
    }
    return undefined;
  }

  #primes(): boolean {
    const revision = this.revision;
    return this.scope.options.eventStore !== undefined && revision !== undefined && revision >= '2025-11-25';
  }

  /** The POST's SSE stream, opened (and its reply sent) on first use. */
  #streamFor(post: PendingPost): SessionStream {
    if (!post.stream) {
      const id = this.#nextStreamId++;
      const stream = new SessionStream(this, id);
      const connection = new SseStream(this.scope.streams);
      stream.attach(connection);
      if (this.#primes())
        connection.write(formatPrimingEvent(formatEventId(id, 0), this.scope.options.retryMs));
      post.stream = stream;
      this.#streams ??= new Map();
      this.#streams.set(id, stream);
      // Shared: the stream's opening (seq 0, never replayed) names its requests, so that another
      // node can answer them if this one dies first (see #answerOrphans).
      if (this.#replica && this.scope.options.eventStore) this.store(id, 0, JSON.stringify([...post.ids]));
      // Frames collected before the switch (synchronous errors) go first.
      for (const frame of post.frames.splice(0)) stream.send(frame);
      post.settle({ status: 200, headers: { ...SSE_HEADERS, ...this.headers }, stream: connection });
    }
    return post.stream;
  }

  #release(id: RequestId): void {
    const post = this.#posts.get(id);
    if (!post) return;
    this.#posts.delete(id);
    post.ids.delete(id);
    post.completeIfAnswered();
  }

  #batchOwner(frame: string): PendingPost | undefined {
    let responses: unknown;
    try {
      responses = JSON.parse(frame);
    } catch {
      return undefined;
    }
    if (!Array.isArray(responses)) return undefined;
    for (const response of responses) {
      const post =
        isPlainObject(response) && isRequestId(response.id) ? this.#posts.get(response.id) : undefined;
      if (post) return post;
    }
    return undefined;
  }

  async #resume(lastEventId: string): Promise<HttpReply> {
    const store = this.scope.options.eventStore;
    const parsed = parseEventId(lastEventId);
    // A shared session's POST streams were numbered by every node: any id may be one.
    if (!store || !parsed || (parsed.streamId >= this.#nextStreamId && !this.#replica)) {
      return errorReply(
        400,
        store
          ? `Cannot resume: Last-Event-ID ${JSON.stringify(clip(lastEventId))} names no stream of this session. Send an event id this session sent, or GET without Last-Event-ID.`
          : 'Cannot resume: this server keeps no events (eventStore: false). GET without Last-Event-ID to open a new stream.',
        { headers: this.headers },
      );
    }
    // A POST stream missing from the map has sent its response (or runs on another node, or ran on
    // one that died): replay its tail, then end.
    if (parsed.streamId === 0) this.#hold();
    else if (this.#replica && !this.#streams?.has(parsed.streamId)) await this.#answerOrphans(parsed);
    const stream =
      parsed.streamId === 0 ? this.#standalone : (this.#streams?.get(parsed.streamId) ?? parsed.streamId);
    return this.#replayInto(stream, parsed.seq, new SseStream(this.scope.streams), true);
  }

  /**
   * A POST stream of another node: if that node died before answering every request of it, each
   * unanswered one gets an error, kept with the stream's events, which the resumption then replays.
   * Failures leave the stream as it is (the replay reports a failing store). The errors follow the
   * last event stored or the client's last one, whichever is later (the dead node may have sent
   * events it never stored).
   */
  async #answerOrphans({ streamId, seq: clientSeq }: { streamId: number; seq: number }): Promise<void> {
    const replica = this.#replica!;
    const owner = nodeOfStreamId(streamId);
    const store = this.scope.options.eventStore!;
    if (owner === replica.node) return;
    try {
      const { events } = await store.replay(this.id, streamId, -1);
      const opening = events[0]?.seq === 0 ? (JSON.parse(events[0].data) as unknown) : undefined;
      if (!Array.isArray(opening)) return;
      const pending = new Set(opening.filter(isRequestId));
      for (const event of events.slice(1)) for (const id of answeredIds(event.data)) pending.delete(id);
      if (pending.size === 0 || (await replica.store.isAlive(owner))) return;
      let seq = Math.max(events.at(-1)!.seq, clientSeq);
      for (const id of pending) {
        const error = {
          code: ErrorCode.InternalError,
          message:
            'The server node running this request stopped before answering it; the request may or may not have run. Send it again if that is safe.',
        };
        await store.append(this.id, streamId, {
          seq: ++seq,
          data: JSON.stringify({ jsonrpc: '2.0', id, error }),
        });
      }
    } catch (error) {
      this.scope.options.onerror(asError(error));
    }
  }

  /**
   * Writes the stored events of a stream after `afterSeq` into `connection`; if the stream is still
   * running, `connection` then carries it from there on. `strict`: a resumption, refused when events
   * it needs were discarded.
   */
  async #replayInto(
    stream: SessionStream | number,
    afterSeq: number,
    connection: SseStream,
    strict: boolean,
  ): Promise<HttpReply> {
    const store = this.scope.options.eventStore;
    const streamId = typeof stream === 'number' ? stream : stream.id;
    let after = afterSeq;
    if (store) {
      // Events may be appended while an asynchronous store answers: catch up until none are new.
      for (;;) {
        let replay: Replay;
        try {
          replay = await store.replay(this.id, streamId, after);
        } catch (error) {
          connection.end();
          this.scope.options.onerror(asError(error));
          return errorReply(
            500,
            `Cannot resume: the event store failed (${asError(error).message}). Try again.`,
            {
              code: ErrorCode.InternalError,
              headers: this.headers,
            },
          );
        }
        if (replay.gap && strict) {
          connection.end();
          return errorReply(
            400,
            `Cannot resume after event ${formatEventId(streamId, after)}: some later events were already discarded (the event store is bounded). Start over: GET without Last-Event-ID, and re-send requests still waiting for an answer.`,
            { headers: this.headers },
          );
        }
        for (const event of replay.events) {
          connection.event(event.data, formatEventId(streamId, event.seq));
          after = event.seq;
        }
        if (replay.events.length === 0 || typeof stream === 'number' || after >= stream.seq) break;
      }
    }
    if (this.#closed || typeof stream === 'number' || stream.done) connection.end();
    else {
      stream.attach(connection);
      stream.delivered = after;
      // A shared session's standalone stream taken over from another node goes on from its last event.
      if (after > stream.seq) stream.seq = after;
    }
    return { status: 200, headers: { ...SSE_HEADERS, ...this.headers }, stream: connection };
  }
}
