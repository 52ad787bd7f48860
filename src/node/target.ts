/**
 * "A target → a channel", once for every part of Switchboard that talks to a server someone named
 * (the CLI, `check`, the console, the gateway): what a target is, how its string form reads (a
 * command line to spawn over stdio, or an `http(s)://` URL of a Streamable HTTP or HTTP+SSE
 * endpoint), how it is shown, and the channel that reaches it. Each caller adds only what differs
 * for it (the environment a child gets, where its stderr goes, the `fetch` to use).
 */
import {
  StreamableHttpClientChannel,
  type StreamableHttpClientChannelOptions,
} from '../transports/http/client/streamable-channel.js';
import { StdioClientChannel, type StdioClientChannelOptions } from '../transports/stdio/client-channel.js';
import { CommandLineError, splitCommandLine } from '../util/command-line.js';
import { nodeFetch } from './fetch.js';

/** A server to spawn and talk to over its stdin/stdout. */
export interface StdioTarget {
  readonly kind: 'stdio';
  readonly command: string;
  readonly args?: readonly string[];
  readonly cwd?: string;
  /** Variables set in the server's environment, on top of what `inheritEnv` gives it. */
  readonly env?: Readonly<Record<string, string>>;
}

/** A Streamable HTTP (or legacy HTTP+SSE) endpoint. */
export interface HttpTarget {
  readonly kind: 'http';
  readonly url: string | URL;
  /** Headers sent with every request (e.g. authorization). */
  readonly headers?: Readonly<Record<string, string>>;
}

export type Target = StdioTarget | HttpTarget;

/** A target's string form that cannot be read; the message says what is wrong and what to write. */
export class TargetError extends Error {
  override readonly name = 'TargetError';
}

/**
 * Reads a target from the words that name it: either one word holding a whole command line
 * (`"node server.js --flag"`, split with shell-like quoting) or an `http(s)://` URL, or, with
 * `fromDoubleDash`, the words after `--` taken as they are (`-- npx -y some-server`).
 */
export function parseTarget(words: readonly string[], fromDoubleDash = false): Target {
  const [first] = words;
  if (first === undefined || (words.length === 1 && first.trim() === '')) {
    throw new TargetError(
      'Missing the server to talk to: give its command line as one quoted argument ("node server.js") or after -- (-- node server.js).',
    );
  }
  if (!fromDoubleDash && words.length === 1 && /^https?:\/\//i.test(first.trim())) {
    try {
      return { kind: 'http', url: new URL(first.trim()) };
    } catch {
      throw new TargetError(
        `${JSON.stringify(first.trim())} is not a valid URL; give the full endpoint, e.g. http://127.0.0.1:7420/mcp.`,
      );
    }
  }
  const [command, ...args] = fromDoubleDash ? words : splitTargetLine(first);
  if (command === undefined || command === '') {
    throw new TargetError(`The server command ${JSON.stringify(first)} names no program to run.`);
  }
  return { kind: 'stdio', command, args };
}

function splitTargetLine(line: string): string[] {
  try {
    return splitCommandLine(line);
  } catch (error) {
    if (error instanceof CommandLineError) throw new TargetError(error.message);
    throw error;
  }
}

/** The target as a person would type it: the URL, or the command line quoted where a word needs it. */
export function describeTarget(target: Target): string {
  if (target.kind === 'http') return String(target.url);
  return [target.command, ...(target.args ?? [])]
    .map((w) => (/^[\w@%+=:,./-]+$/.test(w) ? w : JSON.stringify(w)))
    .join(' ');
}

/** What a caller sets beyond the target itself, per kind of target. */
export interface OpenTargetOptions {
  /** A stdio target's channel (default: the safe environment subset, stderr copied to ours). */
  readonly stdio?: Omit<StdioClientChannelOptions, 'command' | 'args' | 'cwd' | 'env'>;
  /** An HTTP target's channel; `fetch` defaults to `nodeFetch` (its body cap and connection pool). */
  readonly http?: Omit<StreamableHttpClientChannelOptions, 'headers'>;
}

/** The channel that reaches `target`, not yet started (a Client's `connect` starts it). */
export function openTarget(target: StdioTarget, options?: OpenTargetOptions): StdioClientChannel;
export function openTarget(target: HttpTarget, options?: OpenTargetOptions): StreamableHttpClientChannel;
export function openTarget(
  target: Target,
  options?: OpenTargetOptions,
): StdioClientChannel | StreamableHttpClientChannel;
export function openTarget(
  target: Target,
  options: OpenTargetOptions = {},
): StdioClientChannel | StreamableHttpClientChannel {
  if (target.kind === 'http') {
    return new StreamableHttpClientChannel(target.url, {
      ...options.http,
      fetch: options.http?.fetch ?? nodeFetch,
      ...(target.headers ? { headers: { ...target.headers } } : {}),
    });
  }
  return new StdioClientChannel({
    ...options.stdio,
    command: target.command,
    args: target.args ?? [],
    ...(target.cwd !== undefined ? { cwd: target.cwd } : {}),
    ...(target.env ? { env: target.env } : {}),
  });
}
