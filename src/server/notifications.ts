/**
 * Change notifications, one hub for both protocol eras. Whatever changes on the server (a list of
 * tools, prompts or resources; one resource's content) is published to the hub once, and every
 * subscriber decides for itself whether it asked for it:
 * - a legacy connection (2024-11-05 .. 2025-11-25) hears `list_changed` once its handshake is
 *   complete, for the kinds its `initialize` result advertised, and `resources/updated` for the URIs
 *   it `resources/subscribe`d (see {@link legacyWants});
 * - a 2026-07-28 `subscriptions/listen` stream hears exactly what its acknowledged filter names,
 *   each notification tagged with `_meta["io.modelcontextprotocol/subscriptionId"]`.
 * Each subscriber hears an event once. A listen stream speaks only through its request's
 * {@link RequestLink}, so it runs on any transport that holds a request open (stdio, in-memory, an
 * HTTP response stream).
 */
import {
  ErrorCode,
  invalidParams,
  invalidRequest,
  ProtocolError,
  SwitchboardError,
} from '../protocol/errors.js';
import type { Params, RequestId } from '../protocol/jsonrpc.js';
import { META } from '../protocol/meta.js';
import {
  LISTEN_NOTIFICATIONS,
  type ListChangedKind,
  listChangedKind,
  RESOURCE_UPDATED,
  SUBSCRIPTIONS_ACKNOWLEDGED,
} from '../protocol/notifications.js';
import type { ServerCapabilities } from '../protocol/types.js';
import { asError } from '../util/guards.js';
import type { RequestContext } from './context.js';
import type { RequestLink } from './link.js';

/** URIs one legacy connection or one listen stream may follow: bounds what a client can make us hold. */
const MAX_RESOURCE_SUBSCRIPTIONS = 1000;
/** Default bound on open listen streams per server (all connections and transports together). */
const DEFAULT_MAX_LISTENS = 10_000;
/** How long ending a listen waits for its closing result to reach the transport. */
const END_WAIT_MS = 2000;

/**
 * Who a notification is for, judged by a subscriber's viewer: the context of a request its client
 * made (a listen stream's own request; a legacy session's latest), undefined when none is known.
 */
export type Audience = (viewer: RequestContext | undefined) => boolean;

/** One party that wants change notifications: a legacy connection or a listen stream. */
export interface NotificationSubscriber {
  /** Hears one published notification and passes it on if it asked for it (and is in `audience`). */
  deliver(method: string, params: Params | undefined, audience?: Audience): void;
}

/**
 * One field of the `subscriptions/listen` filter. The core defines four; an extension adds its own
 * (the tasks extension's `taskIds`) with {@link NotificationHub.addTopic}.
 */
export interface ListenTopic {
  /** The filter field, e.g. `toolsListChanged`. */
  readonly field: string;
  /** The notification the field opts into. */
  readonly method: string;
  /**
   * The part of the requested value the server agrees to honour, or undefined to leave the field
   * out. May look things up (asynchronously) and may refuse the whole listen by throwing a
   * `ProtocolError` (the tasks extension: -32021 when the client did not declare it).
   */
  agree(requested: unknown, capabilities: ServerCapabilities, ctx: RequestContext): unknown;
  /** Builds, once per stream, the test a notification must also pass (e.g. its URI was asked for). */
  select?(agreed: unknown): (params: Params | undefined) => boolean;
}

const listChangedTopic = (field: string, kind: ListChangedKind, method: string): ListenTopic => ({
  field,
  method,
  agree: (requested, capabilities) =>
    requested === true && capabilities[kind]?.listChanged === true ? true : undefined,
});

/** The core's filter fields. */
const CORE_TOPICS: readonly ListenTopic[] = [
  listChangedTopic('toolsListChanged', 'tools', LISTEN_NOTIFICATIONS.toolsListChanged),
  listChangedTopic('promptsListChanged', 'prompts', LISTEN_NOTIFICATIONS.promptsListChanged),
  listChangedTopic('resourcesListChanged', 'resources', LISTEN_NOTIFICATIONS.resourcesListChanged),
  {
    field: 'resourceSubscriptions',
    method: RESOURCE_UPDATED,
    agree(requested, capabilities) {
      if (!Array.isArray(requested) || requested.length === 0 || capabilities.resources?.subscribe !== true) {
        return undefined;
      }
      return [...new Set(requested as string[])];
    },
    select(agreed) {
      const uris = new Set(agreed as string[]);
      return (params) => uris.has(params?.uri as string);
    },
  },
];

/** Whether a legacy session asked for `method`: the session's side of the hub's contract. */
export function legacyWants(
  session: {
    readonly capabilities: ServerCapabilities;
    readonly resourceSubscriptions: Set<string> | undefined;
  },
  method: string,
  params: Params | undefined,
): boolean {
  const kind = listChangedKind(method);
  // What initialize advertised stays the session's contract, even after the last tool is removed.
  if (kind) return Boolean(session.capabilities[kind]?.listChanged);
  if (method === RESOURCE_UPDATED) return session.resourceSubscriptions?.has(params?.uri as string) ?? false;
  return false;
}

/** Answers a legacy `resources/subscribe` or `resources/unsubscribe` for the connection the request came on. */
export function updateLegacySubscription(method: string, uri: string, link: RequestLink): Params {
  const session = link.legacy?.session;
  if (!session) {
    throw invalidRequest(
      `'${method}' belongs to an initialized legacy connection; on 2026-07-28 open subscriptions/listen with notifications.resourceSubscriptions instead.`,
    );
  }
  // Made by the first subscription: most sessions never subscribe.
  session.resourceSubscriptions ??= new Set();
  const subscribed = session.resourceSubscriptions;
  if (method === 'resources/unsubscribe') {
    subscribed.delete(uri);
  } else if (!subscribed.has(uri)) {
    if (subscribed.size >= MAX_RESOURCE_SUBSCRIPTIONS) {
      throw invalidParams(
        `This connection already follows ${MAX_RESOURCE_SUBSCRIPTIONS} resources, the limit; resources/unsubscribe from one first.`,
      );
    }
    subscribed.add(uri);
  }
  return {};
}

export interface NotificationHubOptions {
  /** Open listen streams allowed at once. Default {@link DEFAULT_MAX_LISTENS}. */
  readonly maxListens?: number;
  /** Where a failing subscriber's error goes (it never stops delivery to the others). */
  readonly report: (error: Error) => void;
}

export class NotificationHub {
  private readonly subscribers = new Set<NotificationSubscriber>();
  private readonly streams = new Set<ListenStream>();
  private readonly topics = new Map<string, ListenTopic>();
  private readonly maxListens: number;

  constructor(private readonly options: NotificationHubOptions) {
    this.maxListens = options.maxListens ?? DEFAULT_MAX_LISTENS;
    if (!Number.isInteger(this.maxListens) || this.maxListens < 1) {
      throw new SwitchboardError(
        'CONFIG',
        `maxSubscriptions must be a positive integer, got ${options.maxListens}.`,
      );
    }
    for (const topic of CORE_TOPICS) this.addTopic(topic);
  }

  /** Subscribers of either era; none means there is nobody to tell. */
  get size(): number {
    return this.subscribers.size;
  }

  /** Open listen streams. */
  get listens(): number {
    return this.streams.size;
  }

  /** Adds a `subscriptions/listen` filter field (for extensions). */
  addTopic(topic: ListenTopic): void {
    if (this.topics.has(topic.field)) {
      throw new SwitchboardError(
        'CONFIG',
        `The subscriptions/listen filter field "${topic.field}" is already defined; an extension must pick its own field name.`,
      );
    }
    this.topics.set(topic.field, topic);
  }

  /** Adds a subscriber, until {@link remove}. */
  add(subscriber: NotificationSubscriber): void {
    this.subscribers.add(subscriber);
  }

  remove(subscriber: NotificationSubscriber): void {
    this.subscribers.delete(subscriber);
  }

  /** Tells every subscriber that asked for it (of `audience`, when given), once each. */
  publish(method: string, params?: Params, audience?: Audience): void {
    for (const subscriber of this.subscribers) {
      try {
        subscriber.deliver(method, params, audience);
      } catch (error) {
        this.options.report(asError(error));
      }
    }
  }

  /**
   * Serves one `subscriptions/listen` request: sends the acknowledgement (the filter agreed to)
   * first, then what the filter names, until the client cancels (the promise then resolves, and the
   * transport drops the result) or the server ends the stream (resolving with the closing result).
   */
  async listen(params: Params, capabilities: ServerCapabilities, ctx: RequestContext): Promise<Params> {
    const id = ctx.requestId;
    const { link } = ctx;
    if (id === undefined) throw invalidRequest('subscriptions/listen must be a request with an id.');
    if (this.streams.size >= this.maxListens) {
      throw new ProtocolError(
        ErrorCode.InternalError,
        `This server already holds ${this.maxListens} subscriptions/listen streams, its limit; cancel one before opening another.`,
      );
    }
    const agreed = await this.agree(params.notifications as Params, capabilities, ctx);
    return new Promise((resolve) => {
      if (link.finished || link.signal.aborted) {
        resolve(closingResult(id));
        return;
      }
      const stream = new ListenStream(id, ctx, this.selectors(agreed), (result) => {
        this.remove(stream);
        this.streams.delete(stream);
        resolve(result);
      });
      // The acknowledgement goes out before the stream can hear anything: it is the first message.
      link.notify(SUBSCRIPTIONS_ACKNOWLEDGED, {
        _meta: { [META.subscriptionId]: id },
        notifications: agreed,
      });
      this.add(stream);
      this.streams.add(stream);
      link.signal.addEventListener('abort', () => stream.abandon(), { once: true });
    });
  }

  /**
   * Ends listen streams from the server side (all of them, or those whose link `which` accepts):
   * each gets its closing result and, on a shared channel, `notifications/cancelled`. Resolves once
   * those are on their way, so the connection can close behind them.
   */
  async endListens(which?: (link: RequestLink) => boolean): Promise<void> {
    const ending = [...this.streams].filter((stream) => !which || which(stream.link));
    await Promise.all(ending.map((stream) => stream.end()));
  }

  private async agree(
    requested: Params,
    capabilities: ServerCapabilities,
    ctx: RequestContext,
  ): Promise<Params> {
    const uris = requested.resourceSubscriptions;
    if (Array.isArray(uris) && uris.length > MAX_RESOURCE_SUBSCRIPTIONS) {
      throw invalidParams(
        `notifications.resourceSubscriptions lists ${uris.length} URIs; one listen stream may follow at most ${MAX_RESOURCE_SUBSCRIPTIONS} (open several streams).`,
      );
    }
    // Only fields the server knows and can deliver: the acknowledgement tells the client what it got.
    const agreed: Params = {};
    for (const [field, value] of Object.entries(requested)) {
      const accepted = await this.topics.get(field)?.agree(value, capabilities, ctx);
      if (accepted !== undefined) agreed[field] = accepted;
    }
    return agreed;
  }

  /** What each agreed notification must pass on this stream, by method. */
  private selectors(agreed: Params): Map<string, (params: Params | undefined) => boolean> {
    const selectors = new Map<string, (params: Params | undefined) => boolean>();
    for (const [field, value] of Object.entries(agreed)) {
      const topic = this.topics.get(field)!;
      selectors.set(topic.method, topic.select?.(value) ?? everything);
    }
    return selectors;
  }
}

const everything = () => true;

const closingResult = (id: RequestId): Params => ({
  resultType: 'complete',
  _meta: { [META.subscriptionId]: id },
});

/** One open `subscriptions/listen` request. */
class ListenStream implements NotificationSubscriber {
  private over = false;

  readonly link: RequestLink;

  constructor(
    readonly id: RequestId,
    /** The listen request's own context: who the stream is for. */
    private readonly viewer: RequestContext,
    private readonly selectors: ReadonlyMap<string, (params: Params | undefined) => boolean>,
    private readonly finish: (result: Params) => void,
  ) {
    this.link = viewer.link;
  }

  deliver(method: string, params: Params | undefined, audience?: Audience): void {
    if (this.over || this.link.finished) return;
    if (!this.selectors.get(method)?.(params)) return;
    if (audience && !audience(this.viewer)) return;
    this.link.notify(method, {
      ...params,
      _meta: { ...(params?._meta as Params), [META.subscriptionId]: this.id },
    });
  }

  /** The client cancelled, or its connection went: stop; the transport sends nothing more for it. */
  abandon(): void {
    if (this.over) return;
    this.over = true;
    this.finish(closingResult(this.id));
  }

  /** The server ends the stream: its closing result, then (on a shared channel) the cancellation. */
  async end(): Promise<void> {
    if (this.over) return;
    this.over = true;
    this.finish(closingResult(this.id));
    await settledOrLate(this.link);
    // Cancelled meanwhile, or gone: the client has forgotten the request, so say nothing more.
    if (!this.link.signal.aborted) this.link.announceEnd?.('The server ended the subscription.');
  }
}

/** The link's `settled`, or a bounded wait if a slow middleware holds the result back. */
async function settledOrLate(link: RequestLink): Promise<void> {
  if (!link.settled) return;
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    link.settled,
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, END_WAIT_MS);
    }),
  ]);
  clearTimeout(timer);
}
