/**
 * The one line (or paragraph) the CLI prints when something fails: what failed, why, and what to do,
 * in terms of the CLI's own options rather than the library's.
 */
import { ErrorCode, ProtocolError, SwitchboardError } from '../protocol/errors.js';
import type { Revision } from '../protocol/revisions.js';
import { errorMessage } from '../util/guards.js';

const CODE_NAMES: Record<number, string> = Object.fromEntries(
  Object.entries(ErrorCode).map(([name, code]) => [
    code,
    name.replace(/(?<=[a-z])([A-Z])/g, (c) => ` ${c.toLowerCase()}`),
  ]),
);

export interface FailureContext {
  /** What the CLI was doing, e.g. `connect to node server.js` or `call tool "add"`. */
  readonly action: string;
  readonly timeoutMs: number;
  readonly verbose: boolean;
  /** How the protocol was chosen (`--protocol`, `--legacy`, or neither). */
  readonly protocol: 'auto' | 'legacy' | Revision;
  /** The last lines the server wrote to stderr. */
  readonly stderrTail: string;
}

export function describeFailure(error: unknown, context: FailureContext): string {
  let reason: string;
  // The server's stderr explains a server that went silent; one that answered said what it had to
  // (and a closed connection's message quotes the stderr already).
  let showTail = false;
  if (error instanceof ProtocolError) {
    reason = `the server answered with error ${describeCode(error)}: ${error.message}`;
    if (error.code === ErrorCode.MethodNotFound) reason += ' The server may not offer this feature.';
  } else if (error instanceof SwitchboardError) {
    reason = localReason(error, context);
    showTail = error.code === 'TIMEOUT';
  } else {
    reason = errorMessage(error);
  }
  let text = `switchboard: could not ${context.action}: ${reason}`;
  const tail = context.stderrTail;
  if (showTail && !context.verbose && tail !== '') text += `\nLast lines of the server's stderr:\n${tail}`;
  return text;
}

const describeCode = (error: ProtocolError): string => {
  const name = CODE_NAMES[error.code];
  return `${error.code}${name ? ` (${name})` : ''}`;
};

function localReason(error: SwitchboardError, context: FailureContext): string {
  // Closing errors wrap what actually happened (a spawn failure, the process exiting): say that.
  const cause = error.cause instanceof Error ? error.cause : undefined;
  switch (error.code) {
    case 'TIMEOUT':
      return (
        `the server gave no answer within ${context.timeoutMs} ms. If it is just slow, raise --timeout <ms>` +
        (context.verbose ? '.' : '; run with --verbose to watch what it writes to stderr.')
      );
    case 'CONNECTION_CLOSED':
    case 'NOT_CONNECTED':
      return cause ? cause.message : error.message;
    case 'NEGOTIATION_FAILED':
      return negotiationReason(error, context.protocol);
    default:
      return error.message;
  }
}

/** A failed handshake, in terms of the CLI's options (the library's advice names its own). */
function negotiationReason(error: SwitchboardError, protocol: FailureContext['protocol']): string {
  const refusal = error.cause instanceof ProtocolError ? error.cause : undefined;
  if (!refusal) {
    const advice =
      protocol === 'auto'
        ? 'Choose the protocol yourself with --legacy or --protocol <revision>.'
        : `Leave out ${protocol === 'legacy' ? '--legacy' : '--protocol'} to let the CLI negotiate.`;
    return `${error.message} ${advice}`;
  }
  const why = `${describeCode(refusal)}: ${refusal.message}`;
  if (protocol === 'auto') {
    return `the server answered neither server/discover nor initialize (${why}). Check that the command or URL is an MCP server.`;
  }
  if (protocol === 'legacy') {
    return `the server refused the legacy handshake, initialize (${why}). Leave out --legacy: it may speak only protocol 2026-07-28.`;
  }
  return `the server does not speak protocol ${protocol}: it refused the handshake (${why}). Leave out --protocol to let the CLI find a revision you both speak.`;
}
