/**
 * Reads argv into an invocation: which command, its options, its own arguments and the target.
 * Options may appear anywhere before `--`; everything after `--` is the server's command line.
 */

import type { Target } from '../node/target.js';
import { isRevision, REVISIONS, type Revision } from '../protocol/revisions.js';
import { errorMessage } from '../util/guards.js';
import { targetFromWords } from './target.js';
import { parseCommandLine, UsageError } from './usage-error.js';

export interface CliOptions {
  /** Print raw result JSON instead of the readable rendering. */
  readonly json: boolean;
  /** Arguments as one JSON object (`call`, `prompt`); `key=value` pairs are applied on top. */
  readonly args: string | undefined;
  /** Era negotiation: automatic, legacy handshake only, or one pinned revision. */
  readonly protocol: 'auto' | 'legacy' | Revision;
  /** Per-request timeout in milliseconds. */
  readonly timeoutMs: number;
  /**
   * How long `auto` waits for `server/discover` before trying `initialize`: 5 s, or the `--timeout`
   * the user gave (a server known to start slowly is given its time).
   */
  readonly probeTimeoutMs: number;
  /** Forward the server's stderr and report the negotiated connection. */
  readonly verbose: boolean;
  /** Extra HTTP request headers (HTTP targets). */
  readonly headers: Readonly<Record<string, string>>;
  /** Bearer token sent as `Authorization` (HTTP targets). */
  readonly bearer: string | undefined;
}

export type Invocation =
  | { readonly kind: 'help'; readonly command: string | undefined }
  | { readonly kind: 'version' }
  | {
      readonly kind: 'run';
      readonly command: string;
      readonly options: CliOptions;
      /** The command's own arguments (tool name, `key=value` pairs, URI...), target excluded. */
      readonly operands: readonly string[];
      readonly target: Target;
    };

/** `auto` gives up on `server/discover` after this long unless `--timeout` says otherwise. */
const DEFAULT_PROBE_TIMEOUT_MS = 5_000;
export const DEFAULT_TIMEOUT_MS = 60_000;

const OPTIONS = {
  json: { type: 'boolean' },
  args: { type: 'string' },
  protocol: { type: 'string' },
  legacy: { type: 'boolean' },
  timeout: { type: 'string' },
  verbose: { type: 'boolean' },
  header: { type: 'string', multiple: true },
  bearer: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
} as const;

/** `isKnownCommand` decides what counts as a command, so this module need not know the command table. */
export function parseInvocation(
  argv: readonly string[],
  isKnownCommand: (name: string) => boolean,
): Invocation {
  const { values, tokens } = parseCommandLine(argv, OPTIONS, undefined, (error) =>
    explainParseError(error, argv[0]),
  );
  const terminator = tokens.find((t) => t.kind === 'option-terminator');
  const before: string[] = [];
  const after: string[] = [];
  for (const token of tokens) {
    if (token.kind !== 'positional') continue;
    (terminator !== undefined && token.index > terminator.index ? after : before).push(token.value);
  }
  const [command, ...rest] = before;

  if (command === 'help') return { kind: 'help', command: rest[0] };
  if (values.help) return { kind: 'help', command };
  if (values.version) return { kind: 'version' };
  if (command === undefined) {
    throw new UsageError('Missing a command, e.g. switchboard tools "node server.js".');
  }
  if (!isKnownCommand(command)) {
    throw new UsageError(`Unknown command ${JSON.stringify(command)}.`);
  }

  let targetWords: string[];
  let operands: string[];
  if (terminator !== undefined) {
    targetWords = after;
    operands = rest;
  } else {
    targetWords = rest.slice(0, 1);
    operands = rest.slice(1);
  }
  const target = targetFromWords(targetWords, terminator !== undefined);
  return { kind: 'run', command, options: readOptions(values, command), operands, target };
}

function readOptions(
  values: {
    json?: boolean;
    args?: string;
    protocol?: string;
    legacy?: boolean;
    timeout?: string;
    verbose?: boolean;
    header?: string[];
    bearer?: string;
  },
  command: string,
): CliOptions {
  if (values.legacy && values.protocol !== undefined) {
    throw new UsageError(
      '--legacy and --protocol both choose the protocol: use --legacy for any legacy revision, or --protocol <revision> for one.',
      command,
    );
  }
  let protocol: CliOptions['protocol'] = values.legacy ? 'legacy' : 'auto';
  if (values.protocol !== undefined) {
    if (!isRevision(values.protocol)) {
      throw new UsageError(
        `Unknown protocol revision ${JSON.stringify(values.protocol)}; use one of ${REVISIONS.join(', ')}.`,
        command,
      );
    }
    protocol = values.protocol;
  }
  let timeoutMs = DEFAULT_TIMEOUT_MS;
  if (values.timeout !== undefined) {
    timeoutMs = Number(values.timeout);
    if (!/^\d+$/.test(values.timeout) || !Number.isSafeInteger(timeoutMs) || timeoutMs <= 0) {
      throw new UsageError(
        `--timeout takes a positive whole number of milliseconds, got ${JSON.stringify(values.timeout)}.`,
        command,
      );
    }
  }
  const headers: Record<string, string> = {};
  for (const header of values.header ?? []) {
    const colon = header.indexOf(':');
    const name = header.slice(0, colon).trim();
    if (colon < 1 || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
      throw new UsageError(`--header takes "Name: value", got ${JSON.stringify(header)}.`, command);
    }
    headers[name] = header.slice(colon + 1).trim();
  }
  return {
    json: values.json ?? false,
    args: values.args,
    protocol,
    timeoutMs,
    probeTimeoutMs: values.timeout === undefined ? Math.min(DEFAULT_PROBE_TIMEOUT_MS, timeoutMs) : timeoutMs,
    verbose: values.verbose ?? false,
    headers,
    bearer: values.bearer,
  };
}

/** Node's parseArgs messages, reworded for people who run a server command through us. */
function explainParseError(error: unknown, command: string | undefined): string {
  const code = (error as { code?: string }).code;
  const message = errorMessage(error);
  const option = /'(-[^']*)'/.exec(message)?.[1];
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && option) {
    return (
      `Unknown option ${option}. If it belongs to the server's command line, quote the whole command ` +
      `("node server.js ${option}") or put the command after -- (${command ?? 'tools'} -- node server.js ${option}).`
    );
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && option) {
    const name = option.split(' ')[0];
    return `Option ${name} needs a value, e.g. ${name} <value>.`;
  }
  return message;
}
