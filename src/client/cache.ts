/**
 * The client's cache of cacheable 2026-07-28 results (`ttlMs`/`cacheScope`). One cache belongs to
 * one Client, i.e. one authorization context, so `private` entries are never shared. Bounded;
 * `list_changed` and `resources/updated` notifications evict what they make stale.
 */
import type { Params } from '../protocol/jsonrpc.js';

interface Entry {
  result: Record<string, unknown>;
  expiresAt: number;
}

const LIST_METHODS: Record<string, readonly string[]> = {
  'notifications/tools/list_changed': ['tools/list'],
  'notifications/prompts/list_changed': ['prompts/list'],
  'notifications/resources/list_changed': ['resources/list', 'resources/templates/list'],
};

export class ResultCache {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly maxEntries = 500) {}

  /** The key: method plus the params that shape the result (never `_meta`). */
  static key(method: string, params: Params | undefined): string {
    if (!params) return method;
    const { _meta, ...rest } = params;
    return `${method} ${JSON.stringify(rest)}`;
  }

  get(key: string): Record<string, unknown> | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= Date.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.result;
  }

  /** Stores `result` if its hints allow caching. */
  put(key: string, result: Record<string, unknown>): void {
    const ttl = result.ttlMs;
    if (typeof ttl !== 'number' || !(ttl > 0) || result.resultType !== 'complete') return;
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { result, expiresAt: Date.now() + ttl });
  }

  /** Evicts what a change notification makes stale. */
  invalidate(notification: string, params: Params | undefined): void {
    const methods = LIST_METHODS[notification];
    if (methods) {
      for (const key of [...this.entries.keys()]) {
        if (methods.some((m) => key === m || key.startsWith(`${m} `))) this.entries.delete(key);
      }
    } else if (notification === 'notifications/resources/updated' && typeof params?.uri === 'string') {
      this.entries.delete(ResultCache.key('resources/read', { uri: params.uri }));
    }
  }

  clear(): void {
    this.entries.clear();
  }
}
