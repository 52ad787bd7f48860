/**
 * The server's change notifications and how a client opts into each: in 2026-07-28 through a field
 * of the `subscriptions/listen` filter, in the legacy era through capabilities (`list_changed`) and
 * `resources/subscribe` (`resources/updated`). Shared by the server's hub and the client.
 */
import type { SubscriptionFilter } from './types.js';

/** Each `subscriptions/listen` filter field and the notification it opts into. */
export const LISTEN_NOTIFICATIONS = {
  toolsListChanged: 'notifications/tools/list_changed',
  promptsListChanged: 'notifications/prompts/list_changed',
  resourcesListChanged: 'notifications/resources/list_changed',
  resourceSubscriptions: 'notifications/resources/updated',
} as const satisfies Record<keyof SubscriptionFilter, string>;

export const RESOURCE_UPDATED = LISTEN_NOTIFICATIONS.resourceSubscriptions;

/** The three `list_changed` notifications, by the capability (and registry kind) they belong to. */
export const LIST_CHANGED = {
  tools: LISTEN_NOTIFICATIONS.toolsListChanged,
  prompts: LISTEN_NOTIFICATIONS.promptsListChanged,
  resources: LISTEN_NOTIFICATIONS.resourcesListChanged,
} as const;
export type ListChangedKind = keyof typeof LIST_CHANGED;

/** The first message of every listen stream: the filter the server agreed to. */
export const SUBSCRIPTIONS_ACKNOWLEDGED = 'notifications/subscriptions/acknowledged';

/** The `list_changed` kind a method names, if it is one of the three. */
export function listChangedKind(method: string): ListChangedKind | undefined {
  switch (method) {
    case LIST_CHANGED.tools:
      return 'tools';
    case LIST_CHANGED.prompts:
      return 'prompts';
    case LIST_CHANGED.resources:
      return 'resources';
    default:
      return undefined;
  }
}
