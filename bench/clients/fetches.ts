/**
 * The fetches the Switchboard HTTP client can run on, for the side-by-side fetch measurement
 * (`bench/scenarios/http-fetch.ts`): `node` is `nodeFetch` (switchboard/node, as the other HTTP
 * cells use: undici's dispatcher), `node-signal` the same cancelled through an AbortSignal instead of
 * `init.cancel`, `undici` is undici's `request()` behind the same `FetchLike` shape, `global` is
 * Node's built-in fetch. Only the one a job names is loaded.
 */
import type { FetchLike } from 'switchboard/http';

export type FetchKind = 'node' | 'node-signal' | 'undici' | 'global';

export async function loadFetch(kind: FetchKind): Promise<FetchLike> {
  switch (kind) {
    case 'node':
      return (await import('switchboard/node')).nodeFetch;
    case 'node-signal': {
      // The same fetch without the channel's cheap cancellation: it then watches an AbortSignal.
      const { nodeFetch } = await import('switchboard/node');
      return (url, init) => nodeFetch(url, { ...init, cancel: undefined });
    }
    case 'undici':
      return (await import('./undici-fetch.js')).undiciFetch;
    case 'global':
      return (url, init) => fetch(url, init);
  }
}
