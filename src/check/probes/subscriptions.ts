/**
 * Subscriptions: a server that declares them is subscribed to its first listed resource (legacy:
 * resources/subscribe; 2026-07-28: a subscriptions/listen stream, with the list-changed types it
 * declares), and what it sends is awaited while the other probes run, then judged: updates name
 * the subscribed URI; on 2026-07-28 the stream starts with its acknowledgment, carries its
 * subscription id and only what was asked for. The subscription ends with unsubscribe or a
 * cancellation of the listen request.
 */
import { META } from '../../protocol/meta.js';
import { brief, describeReply, type Json } from '../wire.js';
import type { ProbeContext } from './context.js';
import { declaredImplemented } from './protocol.js';

const UPDATED = 'notifications/resources/updated';
const ACKNOWLEDGED = 'notifications/subscriptions/acknowledged';
/** Filter fields of subscriptions/listen and the notification each asks for. */
const LIST_CHANGED = {
  toolsListChanged: ['tools', 'notifications/tools/list_changed'],
  promptsListChanged: ['prompts', 'notifications/prompts/list_changed'],
  resourcesListChanged: ['resources', 'notifications/resources/list_changed'],
} as const;
const LISTEN_TYPES = new Set<unknown>([
  ACKNOWLEDGED,
  UPDATED,
  ...Object.values(LIST_CHANGED).map(([, method]) => method),
]);
/** How long after subscribing the checker waits (alongside the other probes) for an update. */
const UPDATE_WAIT_MS = 500;

const capability = (ctx: ProbeContext, name: string): Json | undefined => {
  const value = ctx.capabilities[name];
  return typeof value === 'object' && value !== null ? (value as Json) : undefined;
};

export async function probeSubscriptions(ctx: ProbeContext, resources: readonly Json[]): Promise<void> {
  if (ctx.modern) await listen(ctx, resources);
  else await subscribe(ctx, resources);
}

async function subscribe(ctx: ProbeContext, resources: readonly Json[]): Promise<void> {
  const v = ctx.verdicts;
  const uri = resources[0]?.uri;
  if (capability(ctx, 'resources')?.subscribe !== true || typeof uri !== 'string') {
    v.notApplicable(
      'subscriptions.updated-uri',
      'the server declares no resource subscriptions, or lists no resource to subscribe to',
    );
    return;
  }
  const since = ctx.wire.notifications.length;
  const reply = await ctx.request('resources/subscribe', { uri });
  declaredImplemented(
    ctx,
    'resources.subscribe',
    'resources/subscribe',
    reply.kind === 'result',
    describeReply(reply),
  );
  if (reply.kind !== 'result') return;
  ctx.pending.push(
    ctx.wire
      .notification((n) => n.method === UPDATED, UPDATE_WAIT_MS)
      .then(async () => {
        const updates = ctx.wire.notifications.slice(since).filter((n) => n.method === UPDATED);
        if (updates.length === 0)
          v.notTested('subscriptions.updated-uri', `${uri} did not change within the check (no update came)`);
        for (const update of updates) {
          const named = (update.params as Json | undefined)?.uri;
          v.expect(
            'subscriptions.updated-uri',
            named === uri,
            'updates name the subscribed resource',
            () => `the client subscribed only to ${uri}, yet the server sent ${brief(update)}`,
          );
        }
        const off = await ctx.request('resources/unsubscribe', { uri });
        declaredImplemented(
          ctx,
          'resources.subscribe',
          'resources/unsubscribe',
          off.kind === 'result',
          describeReply(off),
        );
      }),
  );
}

async function listen(ctx: ProbeContext, resources: readonly Json[]): Promise<void> {
  const v = ctx.verdicts;
  const filter: Json = {};
  const allowed = new Set<unknown>([ACKNOWLEDGED]);
  const declared: string[] = [];
  for (const [field, [name, method]] of Object.entries(LIST_CHANGED)) {
    if (capability(ctx, name)?.listChanged === true) {
      filter[field] = true;
      allowed.add(method);
      declared.push(`${name}.listChanged`);
    }
  }
  const uri = resources[0]?.uri;
  if (capability(ctx, 'resources')?.subscribe === true && typeof uri === 'string') {
    filter.resourceSubscriptions = [uri];
    declared.push('resources.subscribe');
  }
  const ids = ['subscriptions.acknowledged', 'subscriptions.requested-only', 'subscriptions.subscription-id'];
  if (Object.keys(filter).length === 0) {
    for (const id of ids)
      v.notApplicable(id, 'the server declares no list changes and no resource subscriptions');
    return;
  }
  const since = ctx.wire.notifications.length;
  const { id, reply } = ctx.begin('subscriptions/listen', { notifications: filter }, 2 ** 31 - 1);
  const onStream = () => ctx.wire.notifications.slice(since).filter((n) => LISTEN_TYPES.has(n.method));
  const first = await Promise.race([
    ctx.wire
      .notification((n) => LISTEN_TYPES.has(n.method), ctx.options.timeoutMs)
      .then((notification) => ({ notification, reply: undefined })),
    reply.then((answer) => ({ notification: undefined, reply: answer })),
  ]);
  if (!first.notification) {
    const answer = first.reply ? describeReply(first.reply) : 'nothing';
    if (first.reply?.kind === 'error')
      declaredImplemented(ctx, declared.join(', '), 'subscriptions/listen', false, answer);
    v.fail(
      'subscriptions.acknowledged',
      `subscriptions/listen ${brief(filter)} was answered with ${answer} instead of an acknowledgment`,
    );
    return;
  }
  declaredImplemented(ctx, declared.join(', '), 'subscriptions/listen', true);
  const wait = (n: Json) => n.method === UPDATED;
  ctx.pending.push(
    (filter.resourceSubscriptions
      ? ctx.wire.notification(wait, UPDATE_WAIT_MS)
      : Promise.resolve(undefined)
    ).then(() => {
      const stream = onStream();
      const ack = stream[0]!;
      const granted = (ack.params as Json | undefined)?.notifications;
      v.expect(
        'subscriptions.acknowledged',
        ack.method === ACKNOWLEDGED && subset(granted, filter),
        'the stream starts with an acknowledgment of a subset of the filter',
        () =>
          ack.method === ACKNOWLEDGED
            ? `subscriptions/listen ${brief(filter)} was acknowledged with ${brief(granted)}, which is not a subset of it`
            : `the first message of the subscriptions/listen ${brief(filter)} stream is ${brief(ack)}, not ${ACKNOWLEDGED}`,
      );
      for (const n of stream) {
        const params = (n.params ?? {}) as Json;
        const asked =
          allowed.has(n.method) ||
          (n.method === UPDATED &&
            Array.isArray(filter.resourceSubscriptions) &&
            filter.resourceSubscriptions.includes(params.uri));
        v.expect(
          'subscriptions.requested-only',
          asked,
          'the stream carries only what was asked for',
          () => `subscriptions/listen asked for ${brief(filter)}, yet the server sent ${brief(n)}`,
        );
        const subscription = (params._meta as Json | undefined)?.[META.subscriptionId];
        v.expect(
          'subscriptions.subscription-id',
          subscription === id,
          'listen notifications carry the subscription id',
          () =>
            `${brief(n)} has _meta["${META.subscriptionId}"] ${brief(subscription)}; it must be ${id}, the id of the subscriptions/listen request`,
        );
      }
      // Ends the subscription: notifications/cancelled on stdio, the stream closed over HTTP.
      ctx.wire.notify('notifications/cancelled', { requestId: id, _meta: ctx.envelope() });
    }),
  );
}

/** Whether the acknowledged filter grants nothing beyond the requested one. */
function subset(granted: unknown, requested: Json): boolean {
  if (typeof granted !== 'object' || granted === null) return false;
  return Object.entries(granted as Json).every(([field, value]) => {
    if (field === 'resourceSubscriptions') {
      const asked = requested.resourceSubscriptions;
      return Array.isArray(value) && Array.isArray(asked) && value.every((uri) => asked.includes(uri));
    }
    return value !== true || requested[field] === true;
  });
}
