/**
 * What each HTTP endpoint turned out to speak, so the next connection to it skips the probes that
 * found out (the spec's "clients SHOULD cache the era per origin"; we key by the endpoint URL, since
 * one origin may host several servers). A verdict is a hint: a connection that finds it wrong falls
 * back as usual and overwrites it.
 *
 * Where verdicts are kept is an option of the channel (`rememberEra`): by default the process-wide
 * {@link defaultHttpEraStore}, or any {@link HttpEraStore} (one per tenant, or one backed by a file
 * that outlives the process, as the CLI's is), or none.
 */

/**
 * - `modern`: answers 2026-07-28 requests (`server/discover`) by POST;
 * - `streamable-legacy`: Streamable HTTP with the `initialize` handshake (2025-03-26 .. 2025-11-25);
 * - `sse`: the 2024-11-05 HTTP+SSE transport (GET an event stream, POST to its `endpoint`).
 */
export type HttpEra = 'modern' | 'streamable-legacy' | 'sse';

/**
 * Where HTTP client channels keep what each endpoint speaks. Keys are endpoint URLs without their
 * fragment (origin, path and query: {@link endpointKey}). Synchronous, since a channel reads it when
 * the client asks which era to try first; a store backed by something slower should load ahead.
 */
export interface HttpEraStore {
  get(endpoint: string): HttpEra | undefined;
  set(endpoint: string, era: HttpEra): void;
  delete(endpoint: string): void;
}

/** The key of an endpoint: everything but the fragment. */
export const endpointKey = (url: URL): string => url.origin + url.pathname + url.search;

/** An {@link HttpEraStore} in memory, bounded: past `maxEntries`, the least recently used goes. */
export class MemoryHttpEraStore implements HttpEraStore {
  readonly #verdicts = new Map<string, HttpEra>();

  /** `maxEntries`: default 256 endpoints. */
  constructor(private readonly maxEntries = 256) {}

  get size(): number {
    return this.#verdicts.size;
  }

  get(endpoint: string): HttpEra | undefined {
    const verdicts = this.#verdicts;
    const era = verdicts.get(endpoint);
    if (era !== undefined) {
      verdicts.delete(endpoint);
      verdicts.set(endpoint, era);
    }
    return era;
  }

  set(endpoint: string, era: HttpEra): void {
    const verdicts = this.#verdicts;
    if (verdicts.get(endpoint) === era) return;
    verdicts.delete(endpoint);
    verdicts.set(endpoint, era);
    if (verdicts.size > this.maxEntries) verdicts.delete(verdicts.keys().next().value as string);
  }

  delete(endpoint: string): void {
    this.#verdicts.delete(endpoint);
  }

  clear(): void {
    this.#verdicts.clear();
  }
}

/** The store every channel uses unless told otherwise: one per process, 256 endpoints. */
export const defaultHttpEraStore = new MemoryHttpEraStore();

/** Forgets what every endpoint speaks (or one endpoint, given its URL) in {@link defaultHttpEraStore}. */
export function forgetHttpEras(url?: string | URL): void {
  if (url === undefined) defaultHttpEraStore.clear();
  else defaultHttpEraStore.delete(endpointKey(new URL(url)));
}
