/**
 * Following: the upstream resources downstream clients subscribe to (legacy `resources/subscribe`,
 * 2026-07-28 `subscriptions/listen` with `resourceSubscriptions`) are followed upstream, once per
 * resource however many clients hold it, on the upstream's catalog session; each upstream
 * `resources/updated` goes to every downstream subscriber of the resource.
 */
import type { Subscription } from '../client/subscriptions.js';
import type { Client } from '../extensions/client.js';
import type { Params } from '../protocol/jsonrpc.js';
import type { RequestContext } from '../server/context.js';
import type { ServerCore } from '../server/server.js';
import { errorMessage } from '../util/guards.js';
import type { Logger } from '../util/logger.js';
import type { Routes } from './routes.js';
import type { Upstream } from './upstream.js';

/** An upstream resource followed for downstream subscribers. */
interface Followed {
  /** Downstream subscriptions (legacy sessions, 2026-07-28 listen streams) that name it. */
  holders: number;
  /** The upstream subscription, on the catalog session `client`. */
  subscription?: Subscription;
  client?: Client;
}

type Next = (params: Params) => Promise<unknown>;

/**
 * A `subscriptions/listen` request's params with only the resource subscriptions `keep` holds for
 * (the gateway's: those it serves the caller; the front door's: those the caller may read): its
 * acknowledgement leaves the others out, and nothing is followed for them. A name that is not a
 * string is kept, for the server to refuse. The same object when every one is kept.
 */
export async function keptSubscriptions(
  params: Params,
  keep: (uri: string) => boolean | Promise<boolean>,
): Promise<Params> {
  const notifications = params.notifications as Params | undefined;
  const named = notifications?.resourceSubscriptions;
  if (!Array.isArray(named)) return params;
  const kept = await Promise.all(named.map((uri) => typeof uri !== 'string' || keep(uri)));
  if (kept.every(Boolean)) return params;
  return {
    ...params,
    notifications: { ...notifications, resourceSubscriptions: named.filter((_, i) => kept[i]) },
  };
}

export class Following {
  /** Upstream resources followed while downstream clients subscribe to them, by gateway URI. */
  private readonly followed = new Map<string, Followed>();
  /** Per legacy downstream session: the gateway URIs it subscribed to. */
  private readonly subscribedBy = new Map<string, Set<string>>();

  constructor(
    private readonly server: ServerCore,
    private readonly routes: Routes,
    private readonly logger: Logger,
  ) {}

  /** The gateway URIs followed upstream for downstream subscribers, with how many hold each. */
  list(): Array<{ uri: string; holders: number }> {
    return [...this.followed].map(([uri, { holders }]) => ({ uri, holders }));
  }

  /** Legacy: a session holds each URI it subscribed to until it unsubscribes or ends. */
  async subscribe(params: Params, ctx: RequestContext, next: Next): Promise<unknown> {
    const result = await next(params);
    const id = ctx.link.legacy?.session.id;
    const uri = params.uri;
    if (id === undefined || typeof uri !== 'string' || !this.routes.owner(uri)) return result;
    let uris = this.subscribedBy.get(id);
    if (!uris) {
      uris = new Set();
      this.subscribedBy.set(id, uris);
    }
    if (!uris.has(uri)) {
      uris.add(uri);
      await this.hold(uri);
    }
    return result;
  }

  async unsubscribe(params: Params, ctx: RequestContext, next: Next): Promise<unknown> {
    const result = await next(params);
    const id = ctx.link.legacy?.session.id;
    const uris = id === undefined ? undefined : this.subscribedBy.get(id);
    if (uris?.delete(params.uri as string)) this.release(params.uri as string);
    return result;
  }

  /** 2026-07-28: a listen stream holds the URIs it names while it is open. */
  async listen(params: Params, next: Next): Promise<unknown> {
    const notifications = params.notifications as { resourceSubscriptions?: unknown } | undefined;
    const named = notifications?.resourceSubscriptions;
    const uris = Array.isArray(named)
      ? [...new Set(named.filter((u): u is string => typeof u === 'string' && !!this.routes.owner(u)))]
      : [];
    await Promise.all(uris.map((uri) => this.hold(uri)));
    try {
      return await next(params);
    } finally {
      for (const uri of uris) this.release(uri);
    }
  }

  /** A legacy downstream session ended: what it subscribed to is released. */
  sessionClosed(id: string): void {
    const uris = this.subscribedBy.get(id);
    this.subscribedBy.delete(id);
    for (const uri of uris ?? []) this.release(uri);
  }

  /** The upstream's catalog session is new: subscriptions still held are opened again on it. */
  reconnected(upstream: Upstream): void {
    for (const [uri, followed] of this.followed) {
      if (this.routes.owner(uri)?.namespace === upstream.name) void this.follow(uri, followed);
    }
  }

  /** A removed or restarted upstream: a subscription still held is opened on the new one on next need. */
  forget(name: string): void {
    for (const [uri, followed] of this.followed) {
      if (this.routes.owner(uri)?.namespace !== name) continue;
      followed.subscription = undefined;
      followed.client = undefined;
    }
  }

  /** A downstream subscriber more for gateway URI `uri`: the first opens the upstream subscription. */
  private async hold(uri: string): Promise<void> {
    let followed = this.followed.get(uri);
    if (!followed) {
      followed = { holders: 0 };
      this.followed.set(uri, followed);
    }
    followed.holders++;
    await this.follow(uri, followed);
  }

  /** A downstream subscriber less: the last one closes the upstream subscription. */
  private release(uri: string): void {
    const followed = this.followed.get(uri);
    if (!followed || --followed.holders > 0) return;
    this.followed.delete(uri);
    void followed.subscription?.close();
  }

  /** Opens the upstream subscription of `uri` on the upstream's current catalog session, if not open there. */
  private async follow(uri: string, followed: Followed): Promise<void> {
    const parsed = this.routes.owner(uri);
    const upstream = parsed && this.routes.upstreams.get(parsed.namespace);
    if (!parsed || !upstream) return;
    const { client } = await upstream.catalog().catch(() => ({ client: undefined }));
    if (!client || followed.client === client || !client.serverCapabilities.resources?.subscribe) return;
    // Released while the catalog connected: nobody wants it any more.
    if (this.followed.get(uri) !== followed) return;
    followed.client = client;
    followed.subscription = client.listen(
      { resourceSubscriptions: [parsed.uri] },
      {
        onResourceUpdated: (updated) =>
          this.server.notifyResourceUpdated(this.routes.shownUri(upstream, updated)),
      },
    );
    await followed.subscription.acknowledged.catch((error: unknown) => {
      this.logger.warn(`gateway: cannot follow ${uri} on "${upstream.name}": ${errorMessage(error)}`);
    });
  }
}
