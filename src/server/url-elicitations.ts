/**
 * URL-mode elicitations in flight on 2025-11-25 connections, so the server can send
 * `notifications/elicitation/complete` when the out-of-band interaction finishes — to the one client
 * that started it (the spec's MUST) and only once. Bounded: entries expire after an hour, and the
 * oldest go first when the table is full. (2026-07-28 has no such notification: a modern client
 * learns the outcome by retrying the request.)
 */

/** Sends a notification on the connection an elicitation was issued on; false once it closed. */
export type ConnectionNotify = (method: string, params: Record<string, unknown>) => boolean;

const TTL_MS = 60 * 60_000;

export class UrlElicitationTracker {
  private readonly pending = new Map<string, { notify: ConnectionNotify; expiresAt: number }>();

  constructor(private readonly maxEntries = 10_000) {}

  track(elicitationId: string, notify: ConnectionNotify): void {
    const now = Date.now();
    for (const [id, entry] of this.pending) {
      if (entry.expiresAt > now) break;
      this.pending.delete(id);
    }
    if (this.pending.size >= this.maxEntries) this.pending.delete(this.pending.keys().next().value!);
    this.pending.delete(elicitationId);
    this.pending.set(elicitationId, { notify, expiresAt: now + TTL_MS });
  }

  /** Sends the completion notification; false if the id is unknown, expired, or its connection closed. */
  complete(elicitationId: string): boolean {
    const entry = this.pending.get(elicitationId);
    if (!entry) return false;
    this.pending.delete(elicitationId);
    if (entry.expiresAt <= Date.now()) return false;
    return entry.notify('notifications/elicitation/complete', { elicitationId });
  }
}
