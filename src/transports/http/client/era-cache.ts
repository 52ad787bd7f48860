/**
 * What each HTTP endpoint turned out to speak, so the next connection to it skips the probes that
 * found out (the spec's "clients SHOULD cache the era per origin"; we key by the endpoint URL, since
 * one origin may host several servers). Module-level, bounded, least recently used out first.
 * A verdict is a hint: a connection that finds it wrong falls back as usual and overwrites it.
 */

/**
 * - `modern`: answers 2026-07-28 requests (`server/discover`) by POST;
 * - `streamable-legacy`: Streamable HTTP with the `initialize` handshake (2025-03-26 .. 2025-11-25);
 * - `sse`: the 2024-11-05 HTTP+SSE transport (GET an event stream, POST to its `endpoint`).
 */
export type HttpEra = 'modern' | 'streamable-legacy' | 'sse';

const MAX_ENTRIES = 256;
const verdicts = new Map<string, HttpEra>();

/** The cache key of an endpoint: everything but the fragment. */
export const endpointKey = (url: URL): string => url.origin + url.pathname + url.search;

export function recallEra(key: string): HttpEra | undefined {
  const era = verdicts.get(key);
  if (era !== undefined) {
    verdicts.delete(key);
    verdicts.set(key, era);
  }
  return era;
}

export function rememberEra(key: string, era: HttpEra): void {
  if (verdicts.get(key) === era) return;
  verdicts.delete(key);
  verdicts.set(key, era);
  if (verdicts.size > MAX_ENTRIES) verdicts.delete(verdicts.keys().next().value as string);
}

export function forgetEra(key: string): void {
  verdicts.delete(key);
}

/** Forgets every endpoint's era (or one endpoint's, given its URL). */
export function forgetHttpEras(url?: string | URL): void {
  if (url === undefined) verdicts.clear();
  else verdicts.delete(endpointKey(new URL(url)));
}
