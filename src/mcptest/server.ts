/**
 * The server a test file (or `--server`) names, made into connected Clients: one per revision run.
 * A stdio server is a fresh process per connection with this process's environment, started in
 * the current folder as the CLI would start it (a `cwd:` in the file is read from the file's folder).
 */
import { dirname } from 'node:path';
import type { Channel } from '../engine/channel.js';
import { Client } from '../extensions/client.js';
import { loadGatewayConfig } from '../gateway/config.js';
import { formatProblem } from '../gateway/config-source.js';
import {
  describeTarget,
  type HttpTarget,
  openTarget,
  parseTarget,
  type StdioTarget,
  TargetError,
} from '../node/target.js';
import type { Revision } from '../protocol/revisions.js';
import type { StdioClientChannel } from '../transports/stdio/client-channel.js';
import type { ServerSpec } from './format.js';

/** A server that could not be named or reached; the message says what to change. */
export class TestServerError extends Error {
  override readonly name = 'TestServerError';
}

/** Where to reach the server, resolved: a process to start or an endpoint (`sse`: legacy HTTP+SSE). */
export type ResolvedServer = StdioTarget | (HttpTarget & { readonly sse?: boolean });

/** A target line as the CLI takes it: an http(s) URL, or a command line (shell-like quoting, no shell). */
export function parseServerLine(line: string): ResolvedServer {
  try {
    return parseTarget([line]);
  } catch (error) {
    if (error instanceof TargetError) throw new TestServerError(error.message);
    throw error;
  }
}

/** The server of a test file (the parser has already read its `cwd` and `config` paths from the file's folder). */
export function resolveServer(spec: ServerSpec): ResolvedServer {
  switch (spec.kind) {
    case 'line':
      return parseServerLine(spec.line);
    case 'stdio':
      return {
        kind: 'stdio',
        command: spec.command,
        args: spec.args,
        ...(spec.env ? { env: spec.env } : {}),
        ...(spec.cwd !== undefined ? { cwd: spec.cwd } : {}),
      };
    case 'http':
      return { kind: 'http', url: spec.url, ...(spec.headers ? { headers: spec.headers } : {}) };
    case 'config': {
      const loaded = loadGatewayConfig(spec.config);
      if (!loaded.ok) {
        throw new TestServerError(
          `The config file ${spec.config} has problems:\n${loaded.problems.map(formatProblem).join('\n')}`,
        );
      }
      const entry = loaded.config.upstreams.find((u) => u.name === spec.server);
      if (!entry) {
        const names = loaded.config.upstreams.map((u) => u.name);
        throw new TestServerError(
          `${spec.config} has no (enabled) server ${JSON.stringify(spec.server)}; it has ${names.length > 0 ? names.join(', ') : 'none'}.`,
        );
      }
      if (entry.transport === 'stdio') {
        return {
          kind: 'stdio',
          command: entry.command,
          args: entry.args,
          env: entry.env,
          cwd: entry.cwd ?? dirname(spec.config),
        };
      }
      return { kind: 'http', url: entry.url.href, headers: entry.headers, sse: entry.transport === 'sse' };
    }
  }
}

export const describeServer = (server: ResolvedServer): string => describeTarget(server);

/** A connected Client and what to say when the server misbehaves. */
export interface Connection {
  readonly client: Client;
  /** The last lines a stdio server wrote to stderr. */
  stderrTail(): string;
  close(): Promise<void>;
}

export interface ConnectOptions {
  /** Speak exactly this revision; absent: negotiate. */
  readonly revision?: Revision;
  readonly timeoutMs: number;
}

export async function connect(server: ResolvedServer, options: ConnectOptions): Promise<Connection> {
  const client = new Client(
    { name: 'switchboard-test', version: '1' },
    {
      version: options.revision ? { pin: options.revision } : 'auto',
      timeoutMs: options.timeoutMs,
      // A test asks for an answer each time: a cached one would hide a change.
      cache: false,
    },
  );
  let stdio: StdioClientChannel | undefined;
  const open = (): Channel => {
    if (server.kind === 'http') {
      return openTarget(server, {
        http: { transport: server.sse ? 'sse' : 'streamable', rememberEra: false },
      });
    }
    stdio = openTarget(server, { stdio: { inheritEnv: true, stderr: 'pipe' } });
    return stdio;
  };
  try {
    await client.connect(open);
  } catch (error) {
    await client.close().catch(() => undefined);
    const tail = stdio?.stderrTail() ?? '';
    throw new TestServerError(
      `Could not connect to ${describeServer(server)}${options.revision ? ` at ${options.revision}` : ''}: ${error instanceof Error ? error.message : String(error)}${tail ? `\nIts stderr ended with:\n${tail}` : ''}`,
    );
  }
  return { client, stderrTail: () => stdio?.stderrTail() ?? '', close: () => client.close() };
}
