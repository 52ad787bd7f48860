/**
 * Starting an entry as its client would and talking to it: the same command, arguments,
 * environment and folder (a desktop app's environment has no login shell's PATH; a terminal client
 * passes its own), references expanded as that client expands them, then `server/discover` or
 * `initialize` (the era is negotiated) and `tools/list`.
 */
import { Client } from '../extensions/client.js';
import { openTarget } from '../node/target.js';
import { DEFAULT_INHERITED_ENV_VARS } from '../transports/stdio/child-env.js';
import { StdioClientChannel } from '../transports/stdio/client-channel.js';
import { errorMessage } from '../util/guards.js';
import type { ClientInfo } from './clients.js';
import { expandLaunch, type Launch } from './entries.js';

/** The PATH of a desktop session (launchd's on macOS; a desktop file's on Linux is much the same). */
export const DESKTOP_PATH = '/usr/bin:/bin:/usr/sbin:/sbin';

export type Verification =
  | {
      readonly ok: true;
      readonly server: string;
      readonly revision: string;
      readonly tools: number;
    }
  | { readonly ok: false; readonly reason: string };

export interface VerifyOptions {
  /** The user's environment (references are expanded from it; terminal clients pass it on). */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly home: string;
  readonly projectDir: string;
  /** The folder the client starts servers in. */
  readonly cwd: string;
  readonly timeoutMs: number;
}

/** The environment `client` starts a server with, before the entry's own `env`. */
export function clientEnvironment(
  client: ClientInfo,
  env: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  const base: Record<string, string> = {};
  if (client.terminal) {
    for (const [k, v] of Object.entries(env)) if (v !== undefined) base[k] = v;
    return base;
  }
  for (const name of ['HOME', 'USER', 'LOGNAME', 'SHELL', 'LANG', 'TMPDIR']) {
    const value = env[name];
    if (value !== undefined) base[name] = value;
  }
  base.PATH = DESKTOP_PATH;
  return base;
}

export async function verifyLaunch(
  client: ClientInfo,
  launch: Launch,
  options: VerifyOptions,
): Promise<Verification> {
  const { launch: expanded, missing } = expandLaunch(client, launch, options.env, options);
  if (missing.length > 0) return { ok: false, reason: missing.join(' ') };
  const mcp = new Client(
    { name: `switchboard-verify (as ${client.id})`, version: '1' },
    { version: 'auto', timeoutMs: options.timeoutMs, cache: false },
  );
  let channel: StdioClientChannel | undefined;
  const open = () => {
    if (expanded.kind === 'url') {
      return openTarget(
        { kind: 'http', url: expanded.url, headers: expanded.headers },
        { http: { transport: expanded.transport === 'sse' ? 'sse' : 'streamable', rememberEra: false } },
      );
    }
    // Not openTarget: its `env` only adds to the safe subset of ours, and this environment must be
    // exactly the client's (a desktop app's has no TERM or locale of the shell either).
    const env: Record<string, string | undefined> = Object.fromEntries(
      DEFAULT_INHERITED_ENV_VARS.map((name) => [name, undefined]),
    );
    Object.assign(env, clientEnvironment(client, options.env), expanded.env);
    channel = new StdioClientChannel({
      command: expanded.command,
      args: expanded.args,
      env,
      cwd: expanded.cwd ?? options.cwd,
      stderr: 'pipe',
    });
    return channel;
  };
  try {
    await mcp.connect(open);
    const tools = mcp.serverCapabilities.tools ? (await mcp.listTools()).tools.length : 0;
    const info = mcp.serverInfo;
    return {
      ok: true,
      server: info ? `${info.name} ${info.version}` : 'a server',
      revision: mcp.revision,
      tools,
    };
  } catch (error) {
    const message = errorMessage(error);
    const last = channel?.stderrTail().trim().split('\n').at(-1);
    return {
      ok: false,
      reason: last && !message.includes(last) ? `${message} (its stderr: ${last})` : message,
    };
  } finally {
    await mcp.close().catch(() => undefined);
  }
}
