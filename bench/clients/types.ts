/** What every load client offers the harness, whatever library sits underneath. */
import type { FetchKind } from './fetches.js';

/** `legacy` = the 2025-11-25 handshake (`initialize`); `modern` = 2026-07-28 (per-request `_meta`, no session). */
export type Era = 'legacy' | 'modern';

export type ClientKind = 'switchboard' | 'sdk-v1' | 'sdk-v2' | 'raw';

export type Target =
  | { readonly kind: 'stdio'; readonly command: string; readonly args: readonly string[] }
  | { readonly kind: 'http'; readonly url: string };

export interface BenchClient {
  /** The stdio server's process id (the client spawned it); undefined over HTTP. */
  readonly serverPid: number | undefined;
  /** `tools/call`; resolves with the result object as the library returns it. */
  call(name: string, args: Record<string, unknown>): Promise<CallResult>;
  /** `tools/list`, every page; resolves with the number of tools. */
  listTools(): Promise<number>;
  close(): Promise<void>;
}

export interface CallResult {
  content?: unknown;
  structuredContent?: unknown;
  isError?: boolean;
}

/** `fetch`: which fetch an HTTP client runs on, for the clients that take one (Switchboard's). */
export type ConnectClient = (era: Era, target: Target, fetch?: FetchKind) => Promise<BenchClient>;

export const CLIENT_INFO = { name: 'bench-client', version: '1.0.0' } as const;
export const MODERN = '2026-07-28';
export const LEGACY = '2025-11-25';
