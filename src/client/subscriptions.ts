/**
 * Client subscriptions: one API for following server changes in both eras.
 * - 2026-07-28: a `subscriptions/listen` request held open; its notifications carry the listen
 *   request's id in `_meta["io.modelcontextprotocol/subscriptionId"]`, which routes them here.
 * - Legacy: `resources/subscribe` for the URIs (shared by every subscription on the connection,
 *   `resources/unsubscribe` once the last one lets go) plus the connection's `list_changed`
 *   notifications, which the server sends to every initialized connection anyway.
 * A subscription that lost its stream to the transport (the connection closed, an HTTP stream
 * broke) is "interrupted" and re-opened: at once (with backoff) while the connection is still up,
 * else when the client connects again. One the server ended gracefully stays closed.
 */
import type { RequestOptions } from '../engine/peer.js';
import { SwitchboardError } from '../protocol/errors.js';
import type { JsonRpcNotification, Params, RequestId } from '../protocol/jsonrpc.js';
import { META } from '../protocol/meta.js';
import {
  LIST_CHANGED,
  LISTEN_NOTIFICATIONS,
  listChangedKind,
  RESOURCE_UPDATED,
  SUBSCRIPTIONS_ACKNOWLEDGED,
} from '../protocol/notifications.js';
import type { Era } from '../protocol/revisions.js';
import type { ServerCapabilities, SubscriptionFilter } from '../protocol/types.js';
import { asError, isPlainObject } from '../util/guards.js';

/** What to do with a subscription's notifications. Handlers run in arrival order; one that throws is reported through `onerror`. */
export interface ListenHandlers {
  onToolsListChanged?(): void;
  onPromptsListChanged?(): void;
  onResourcesListChanged?(): void;
  /** A followed resource changed (possibly a sub-resource of one you asked for): read it again. */
  onResourceUpdated?(uri: string): void;
  /** Every notification of the subscription, after the typed handler (extension notifications too). */
  onNotification?(method: string, params: Params): void;
  /** The server agreed to (part of) the filter: on opening, and again after each re-open. */
  onAcknowledged?(filter: SubscriptionFilter): void;
}

export type SubscriptionState = 'opening' | 'open' | 'interrupted' | 'closed';

/**
 * Why a subscription ended: `closed` by you (or `client.close()`), `ended` gracefully by the
 * server, or `refused` before the server acknowledged it (`error` says why).
 */
export interface SubscriptionEnd {
  readonly reason: 'closed' | 'ended' | 'refused';
  readonly error?: Error;
}

export interface Subscription {
  /**
   * The filter the server agreed to (the subset it can honour), once it acknowledged the first
   * opening. Rejects if the subscription ends before that.
   */
  readonly acknowledged: Promise<SubscriptionFilter>;
  /** The latest agreed filter; undefined until acknowledged. */
  readonly filter: SubscriptionFilter | undefined;
  readonly state: SubscriptionState;
  /** Settles (never rejects) when the subscription is over for good. */
  readonly closed: Promise<SubscriptionEnd>;
  /** Stops it: cancels the listen request (2026-07-28) or unsubscribes its URIs (legacy). Idempotent. */
  close(): Promise<void>;
}

/** Options the listen request needs beyond a call's: no timeout, its id, and no automatic cancellation. */
export type ListenRequestOptions = Pick<
  RequestOptions,
  'signal' | 'timeoutMs' | 'sendCancellation' | 'onRequestId'
>;

/** What the subscriptions need from their Client. */
export interface SubscriptionHost {
  /** The era of the live connection, or undefined while not connected. */
  era(): Era | undefined;
  serverCapabilities(): ServerCapabilities;
  request(method: string, params: Params, options: ListenRequestOptions): Promise<Record<string, unknown>>;
  notify(method: string, params: Params): void;
  /** How long to wait for the acknowledgement of a listen. */
  readonly ackTimeoutMs: number;
  report(error: Error): void;
}

const REOPEN_MAX_DELAY_MS = 30_000;
const REOPEN_BASE_DELAY_MS = 250;

/** Errors that say the stream was lost on the way rather than refused by the server. */
const isTransportLoss = (error: unknown): boolean =>
  error instanceof SwitchboardError &&
  (error.code === 'CONNECTION_CLOSED' || error.code === 'NOT_CONNECTED' || error.code === 'TRANSPORT');

export class SubscriptionManager {
  private readonly live = new Set<ClientSubscription>();
  /** Modern subscriptions by the JSON-RPC id of their current listen request. */
  readonly byRequestId = new Map<RequestId, ClientSubscription>();
  /** Legacy: URIs subscribed on the current connection, and how many subscriptions hold each. */
  private readonly held = new Map<string, { holders: number; ready: Promise<unknown> }>();

  constructor(readonly host: SubscriptionHost) {}

  open(filter: SubscriptionFilter, handlers: ListenHandlers): Subscription {
    checkFilter(filter);
    const subscription = new ClientSubscription(this, structuredClone(filter), handlers);
    this.live.add(subscription);
    subscription.open();
    return subscription;
  }

  /** Routes one notification to the subscriptions it belongs to (the Client's listeners still see it). */
  route(notification: JsonRpcNotification): void {
    const { method } = notification;
    const params = notification.params ?? {};
    const tag = (params._meta as Params | undefined)?.[META.subscriptionId];
    if (tag !== undefined) {
      const subscription = this.byRequestId.get(tag as RequestId);
      if (method === SUBSCRIPTIONS_ACKNOWLEDGED) subscription?.acknowledge(params.notifications);
      else subscription?.receive(method, params);
      return;
    }
    if (method === 'notifications/cancelled') {
      // On stdio the server ends a listen stream with a cancellation naming it.
      this.byRequestId.get(params.requestId as RequestId)?.endedByServer();
      return;
    }
    this.routeLegacy(method, params);
  }

  /** The connection is gone: everything still wanted waits for the next one. */
  disconnected(): void {
    this.held.clear();
    for (const subscription of this.live) subscription.interrupt(undefined);
  }

  /** The connection's session was replaced (legacy HTTP, see `ChannelSink.renewed`): subscribe again. */
  renewed(): void {
    this.disconnected();
    this.connected();
  }

  /** A connection is (again) up: re-open what was interrupted. */
  connected(): void {
    for (const subscription of this.live) subscription.reopenNow();
  }

  /** `client.close()`: every subscription ends, with nothing more sent. */
  clientClosed(): void {
    this.held.clear();
    for (const subscription of [...this.live]) subscription.finish({ reason: 'closed' });
  }

  /** @internal */
  forget(subscription: ClientSubscription): void {
    this.live.delete(subscription);
  }

  /** Legacy: subscribes to `uri` on the connection unless another subscription already did. */
  async hold(uri: string): Promise<void> {
    let entry = this.held.get(uri);
    if (!entry) {
      const ready = this.host.request('resources/subscribe', { uri }, {});
      const created = { holders: 0, ready };
      entry = created;
      this.held.set(uri, created);
      ready.catch(() => {
        if (this.held.get(uri) === created) this.held.delete(uri);
      });
    }
    entry.holders++;
    try {
      await entry.ready;
    } catch (error) {
      entry.holders--;
      throw error;
    }
  }

  /** Legacy: lets go of `uri`; the last holder unsubscribes. */
  async release(uri: string): Promise<void> {
    const entry = this.held.get(uri);
    if (!entry || --entry.holders > 0) return;
    this.held.delete(uri);
    if (this.host.era() !== 'legacy') return;
    try {
      await this.host.request('resources/unsubscribe', { uri }, {});
    } catch (error) {
      this.host.report(asError(error));
    }
  }

  private routeLegacy(method: string, params: Params): void {
    if (!listChangedKind(method) && method !== RESOURCE_UPDATED) return;
    let targets = [...this.live].filter((s) => s.mode === 'legacy' && s.state === 'open' && s.wants(method));
    if (method === RESOURCE_UPDATED) {
      // The URI may name a sub-resource of one a subscription follows: exact matches first.
      const exact = targets.filter((s) => s.follows(params.uri as string));
      if (exact.length > 0) targets = exact;
    }
    for (const subscription of targets) subscription.dispatch(method, params);
  }
}

class ClientSubscription implements Subscription {
  state: SubscriptionState = 'opening';
  filter: SubscriptionFilter | undefined;
  /** The era the current opening speaks. */
  mode: Era | undefined;
  readonly acknowledged: Promise<SubscriptionFilter>;
  readonly closed: Promise<SubscriptionEnd>;
  private resolveAck!: (filter: SubscriptionFilter) => void;
  private rejectAck!: (error: Error) => void;
  private resolveClosed!: (end: SubscriptionEnd) => void;
  private everAcknowledged = false;
  /** Bumped by every opening and interruption, so late answers of an earlier one are ignored. */
  private attempt = 0;
  private failures = 0;
  private openedAt = 0;
  private requestId: RequestId | undefined;
  private controller: AbortController | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** Legacy: the URIs this subscription holds on the connection. */
  private uris: string[] = [];

  constructor(
    private readonly manager: SubscriptionManager,
    private readonly requested: SubscriptionFilter,
    private readonly handlers: ListenHandlers,
  ) {
    this.acknowledged = new Promise((resolve, reject) => {
      this.resolveAck = resolve;
      this.rejectAck = reject;
    });
    // Nobody has to await it: a refusal also shows in `closed`.
    this.acknowledged.catch(() => undefined);
    this.closed = new Promise((resolve) => {
      this.resolveClosed = resolve;
    });
  }

  async close(): Promise<void> {
    if (this.state === 'closed') return;
    const { mode, requestId, uris } = this;
    const live = this.manager.host.era() !== undefined;
    this.finish({ reason: 'closed' });
    if (mode === 'modern' && requestId !== undefined && live) {
      // On stdio the cancellation ends the stream; an HTTP channel closes the request's stream for it.
      this.manager.host.notify('notifications/cancelled', {
        requestId,
        reason: 'The client closed the subscription.',
      });
    }
    if (mode === 'legacy') await Promise.all(uris.map((uri) => this.manager.release(uri)));
  }

  // --- opening -------------------------------------------------------------------------------

  open(): void {
    const era = this.manager.host.era();
    if (era === undefined) {
      this.state = 'interrupted';
      return;
    }
    this.state = 'opening';
    this.mode = era;
    const attempt = ++this.attempt;
    if (era === 'modern') this.openModern(attempt);
    else this.openLegacy(attempt).catch((error: unknown) => this.manager.host.report(asError(error)));
  }

  private openModern(attempt: number): void {
    const controller = new AbortController();
    this.controller = controller;
    this.timer = setTimeout(() => this.ackTimedOut(attempt), this.manager.host.ackTimeoutMs);
    this.manager.host
      .request(
        'subscriptions/listen',
        { notifications: this.requested as Params },
        {
          signal: controller.signal,
          // Long-lived by design: it ends by cancellation or by the server's closing result.
          timeoutMs: Number.POSITIVE_INFINITY,
          // close() sends the cancellation itself; a server that ended the stream needs none.
          sendCancellation: false,
          onRequestId: (id) => {
            if (attempt !== this.attempt) return;
            this.requestId = id;
            this.manager.byRequestId.set(id, this);
          },
        },
      )
      .then(
        () => {
          if (attempt === this.attempt) this.endedByServer();
        },
        (error: unknown) => {
          if (attempt === this.attempt) this.failed(asError(error));
        },
      );
  }

  private async openLegacy(attempt: number): Promise<void> {
    const caps = this.manager.host.serverCapabilities();
    const requested = this.requested;
    const agreed: SubscriptionFilter = {};
    for (const [field, kind] of [
      ['toolsListChanged', 'tools'],
      ['promptsListChanged', 'prompts'],
      ['resourcesListChanged', 'resources'],
    ] as const) {
      if (requested[field] === true && caps[kind]?.listChanged) agreed[field] = true;
    }
    const wanted = caps.resources?.subscribe ? [...new Set(requested.resourceSubscriptions ?? [])] : [];
    const outcomes = await Promise.allSettled(wanted.map((uri) => this.manager.hold(uri)));
    const held = wanted.filter((_, i) => outcomes[i]!.status === 'fulfilled');
    if (attempt !== this.attempt || this.state === 'closed') {
      // Closed or interrupted meanwhile: give back what was taken on this connection.
      if (this.manager.host.era() === 'legacy') for (const uri of held) void this.manager.release(uri);
      return;
    }
    this.uris = held;
    const lost = outcomes.find((o) => o.status === 'rejected' && isTransportLoss(o.reason));
    if (lost) {
      this.interrupt((lost as PromiseRejectedResult).reason);
      return;
    }
    for (const outcome of outcomes) {
      // A server may refuse one URI: the acknowledgement then leaves it out, as a modern one would.
      if (outcome.status === 'rejected') this.manager.host.report(asError(outcome.reason));
    }
    if (held.length > 0) agreed.resourceSubscriptions = held;
    this.acknowledge(agreed);
  }

  // --- events --------------------------------------------------------------------------------

  acknowledge(filter: unknown): void {
    if (this.state !== 'opening') return;
    clearTimeout(this.timer);
    this.state = 'open';
    this.openedAt = Date.now();
    this.filter = (typeof filter === 'object' && filter !== null ? filter : {}) as SubscriptionFilter;
    if (!this.everAcknowledged) {
      this.everAcknowledged = true;
      this.resolveAck(this.filter);
    }
    this.call(() => this.handlers.onAcknowledged?.(this.filter!));
  }

  /** A notification tagged with this subscription's id. */
  receive(method: string, params: Params): void {
    if (this.state !== 'open') {
      this.manager.host.report(
        new SwitchboardError(
          'INVALID_RESULT',
          `The server sent '${method}' on subscription ${JSON.stringify(this.requestId)} before acknowledging it; ignored.`,
        ),
      );
      return;
    }
    if (!this.wants(method)) {
      this.manager.host.report(
        new SwitchboardError(
          'INVALID_RESULT',
          `The server sent '${method}' on subscription ${JSON.stringify(this.requestId)}, which did not ask for it; ignored.`,
        ),
      );
      return;
    }
    this.dispatch(method, params);
  }

  /** Whether the agreed filter opts into `method` (notifications of extensions pass). */
  wants(method: string): boolean {
    const filter = this.filter ?? {};
    for (const [field, notification] of Object.entries(LISTEN_NOTIFICATIONS)) {
      if (notification !== method) continue;
      const value = filter[field as keyof SubscriptionFilter];
      return Array.isArray(value) ? value.length > 0 : value === true;
    }
    return this.mode === 'modern';
  }

  follows(uri: string): boolean {
    return this.filter?.resourceSubscriptions?.includes(uri) ?? false;
  }

  dispatch(method: string, params: Params): void {
    this.call(() => {
      switch (method) {
        case LIST_CHANGED.tools:
          this.handlers.onToolsListChanged?.();
          break;
        case LIST_CHANGED.prompts:
          this.handlers.onPromptsListChanged?.();
          break;
        case LIST_CHANGED.resources:
          this.handlers.onResourcesListChanged?.();
          break;
        case RESOURCE_UPDATED:
          this.handlers.onResourceUpdated?.(params.uri as string);
          break;
      }
    });
    this.call(() => this.handlers.onNotification?.(method, params));
  }

  /** The server ended the stream gracefully (its closing result, or a cancellation on stdio). */
  endedByServer(): void {
    // finish() also stops waiting for a result that may never come (nothing is sent for that).
    this.finish({ reason: 'ended' });
  }

  private failed(error: Error): void {
    if (this.state === 'closed') return;
    // Once acknowledged, a stream ends by result or cancellation: any failure means it was lost.
    if (this.state === 'open' || isTransportLoss(error)) this.interrupt(error);
    else this.finish({ reason: 'refused', error });
  }

  private ackTimedOut(attempt: number): void {
    if (attempt !== this.attempt || this.state !== 'opening') return;
    const { requestId } = this;
    const error = new SwitchboardError(
      'TIMEOUT',
      `The server did not acknowledge subscriptions/listen within ${this.manager.host.ackTimeoutMs} ms; ` +
        'check that it supports 2026-07-28 subscriptions, or raise timeoutMs.',
    );
    this.finish({ reason: 'refused', error });
    if (requestId !== undefined && this.manager.host.era() !== undefined) {
      this.manager.host.notify('notifications/cancelled', { requestId, reason: error.message });
    }
  }

  /** The stream was lost; `error` undefined means the connection closed under it. */
  interrupt(error: Error | undefined): void {
    if (this.state === 'closed') return;
    // A stream that had lived a while starts the backoff afresh; one dropped at once keeps backing off.
    if (this.state === 'open' && Date.now() - this.openedAt > REOPEN_MAX_DELAY_MS) this.failures = 0;
    this.detach();
    this.state = 'interrupted';
    this.uris = [];
    if (error !== undefined && this.manager.host.era() !== undefined) this.scheduleReopen();
  }

  /** Re-opens an interrupted subscription at once (a new connection is up). */
  reopenNow(): void {
    if (this.state !== 'interrupted') return;
    clearTimeout(this.timer);
    this.failures = 0;
    this.open();
  }

  private scheduleReopen(): void {
    // The first retry is immediate; then exponential backoff with jitter, so a server that keeps
    // dropping the stream is not hammered.
    const delay =
      this.failures === 0
        ? 0
        : Math.min(REOPEN_MAX_DELAY_MS, REOPEN_BASE_DELAY_MS * 2 ** this.failures) *
          (0.5 + Math.random() / 2);
    this.failures++;
    this.timer = setTimeout(() => {
      if (this.state === 'interrupted') this.open();
    }, delay);
  }

  finish(end: SubscriptionEnd): void {
    if (this.state === 'closed') return;
    this.detach();
    this.state = 'closed';
    this.manager.forget(this);
    if (!this.everAcknowledged) {
      this.rejectAck(
        end.error ??
          new SwitchboardError(
            'ABORTED',
            end.reason === 'ended'
              ? 'The server ended the subscription before acknowledging it.'
              : 'The subscription was closed before the server acknowledged it.',
          ),
      );
    }
    this.resolveClosed(end);
  }

  /** Leaves the current opening: its id, timer and request are no longer ours. */
  private detach(): void {
    this.attempt++;
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.requestId !== undefined) this.manager.byRequestId.delete(this.requestId);
    this.requestId = undefined;
    this.controller?.abort();
    this.controller = undefined;
  }

  private call(handler: () => void): void {
    try {
      handler();
    } catch (error) {
      this.manager.host.report(asError(error));
    }
  }
}

function checkFilter(filter: SubscriptionFilter): void {
  if (!isPlainObject(filter)) {
    throw new SwitchboardError(
      'CONFIG',
      'listen(filter): filter must be an object such as { toolsListChanged: true, resourceSubscriptions: ["file:///a"] }.',
    );
  }
  const uris = filter.resourceSubscriptions;
  if (uris !== undefined && (!Array.isArray(uris) || uris.some((u) => typeof u !== 'string'))) {
    throw new SwitchboardError(
      'CONFIG',
      'listen(filter): resourceSubscriptions must be an array of URI strings.',
    );
  }
}
