/**
 * Opens a connected Client for a target. For stdio targets the CLI runs in the user's own shell, so
 * the server gets the user's whole environment (`inheritEnv`); its stderr is forwarded only with
 * `--verbose` and otherwise kept for error messages.
 */
import { readFileSync } from 'node:fs';
import type { VersionNegotiation } from '../client/client.js';
import type { Channel } from '../engine/channel.js';
import { Client } from '../extensions/client.js';
import { nodeFetch } from '../node/fetch.js';
import { openTarget, type Target } from '../node/target.js';
import type { HttpEra, HttpEraStore } from '../transports/http/client/era-store.js';
import type { StreamableHttpClientChannel } from '../transports/http/client/streamable-channel.js';
import type { StdioClientChannel } from '../transports/stdio/client-channel.js';
import { lineLogger } from '../util/logger.js';
import { packageFile } from '../util/package-file.js';
import { EraMemory } from './era-memory.js';
import type { CliOptions } from './invocation.js';
import { cliOAuthClient } from './sign-in.js';

export interface Session {
  readonly client: Client;
  /** Connects and negotiates the era. */
  connect(): Promise<void>;
  /** The last lines the server wrote to stderr (empty over transports without one). */
  stderrTail(): string;
  /** The transport in use: `stdio`, `Streamable HTTP` or `HTTP+SSE`. */
  transport(): string;
  /** Disconnects and, for stdio, waits for the server process to exit. */
  close(): Promise<void>;
}

/** The CLI's own version, from the package it ships in. */
export function cliVersion(): string {
  const pkg = JSON.parse(readFileSync(packageFile('package.json'), 'utf8')) as {
    version?: string;
  };
  return pkg.version ?? '0.0.0';
}

/**
 * `report` prints to the user's stderr (escaped by the caller): warnings, and with `--verbose` the
 * server's stderr. `memory` keeps what each server spoke between runs (used when the era is negotiated).
 */
export function createSession(
  target: Target,
  options: CliOptions,
  report: (text: string) => void,
  memory: EraMemory = EraMemory.forUser(),
): Session {
  // Only a negotiated era is worth remembering: a --protocol choice says nothing about the server.
  const negotiated = options.protocol === 'auto';
  // What concerns no single call (a tool the HTTP channel dropped for an invalid x-mcp-header, a
  // malformed frame) is worth seeing even without --verbose; the channels use the client's logger.
  const logger = lineLogger(report);
  const client = new Client(
    { name: 'switchboard-cli', version: cliVersion() },
    {
      version: negotiation(options.protocol),
      timeoutMs: options.timeoutMs,
      probeTimeoutMs: options.probeTimeoutMs,
      // One command, one answer: never serve a result from the 2026-07-28 cache.
      cache: false,
      logger,
    },
  );
  if (target.kind === 'http') {
    let channel: StreamableHttpClientChannel | undefined;
    // Without credentials of the user's own, stored tokens go with every request and a 401 signs in;
    // the time the user takes at the browser counts against no timeout (the era probe's least of all).
    const ownCredentials =
      options.bearer !== undefined ||
      Object.keys(options.headers ?? {}).some((h) => h.toLowerCase() === 'authorization');
    const fetch = ownCredentials
      ? nodeFetch
      : cliOAuthClient(report).fetch(nodeFetch, { holdTimeouts: () => client.holdTimeouts() });
    const open = (): Channel =>
      (channel = openTarget(
        { ...target, headers: options.headers },
        {
          http: {
            fetch,
            bearerToken: options.bearer,
            // The channel reads and records what the endpoint speaks in the file that outlives this run.
            rememberEra: negotiated ? fileEraStore(memory, () => client.probeUnanswered) : false,
          },
        },
      ));
    return {
      client,
      connect: () => client.connect(open),
      stderrTail: () => '',
      transport: () => (channel?.activeTransport === 'sse' ? 'HTTP+SSE' : 'Streamable HTTP'),
      close: () => client.close(),
    };
  }
  // `auto` may need a second process when a legacy server hangs up on the server/discover probe,
  // so the client gets a factory; the session reports on whichever process is current.
  const server = `stdio ${JSON.stringify([process.cwd(), target.command, ...(target.args ?? [])])}`;
  const known = negotiated ? memory.recall(server) : undefined;
  let channel: StdioClientChannel | undefined;
  const open = () => {
    channel = openTarget(target, {
      stdio: {
        inheritEnv: true,
        stderr: options.verbose ? report : 'pipe',
        preferredEra: known === 'legacy' || known === 'modern' ? known : undefined,
      },
    });
    return channel;
  };
  return {
    client,
    async connect() {
      await client.connect(open);
      // A probe that timed out says the server was slow, not that it is legacy: nothing learned.
      if (negotiated && client.era !== known && !client.probeUnanswered) memory.remember(server, client.era);
    },
    stderrTail: () => channel?.stderrTail() ?? '',
    transport: () => 'stdio',
    close: () => client.close(),
  };
}

function negotiation(protocol: CliOptions['protocol']): VersionNegotiation {
  return protocol === 'auto' || protocol === 'legacy' ? protocol : { pin: protocol };
}

const isHttpEra = (era: string): era is HttpEra =>
  era === 'modern' || era === 'streamable-legacy' || era === 'sse';

/**
 * The HTTP channel's era store over the CLI's era file (keys: `http <endpoint>`); written on change
 * only, and not when `server/discover` went unanswered (a slow server is not thereby a legacy one).
 */
function fileEraStore(memory: EraMemory, probeUnanswered: () => boolean): HttpEraStore {
  const key = (endpoint: string) => `http ${endpoint}`;
  return {
    get(endpoint) {
      const era = memory.recall(key(endpoint));
      return era !== undefined && isHttpEra(era) ? era : undefined;
    },
    set(endpoint, era) {
      if (!probeUnanswered() && memory.recall(key(endpoint)) !== era) memory.remember(key(endpoint), era);
    },
    // A remembered era that proved wrong is overwritten by what the connection finds.
    delete() {},
  };
}
