/**
 * The one line (or paragraph) the CLI prints when something fails: what failed, why, and what to do,
 * in terms of the CLI's own options rather than the library's.
 */
import { ErrorCode, ProtocolError, SwitchboardError } from '../protocol/errors.js';

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
  /** The last lines the server wrote to stderr. */
  readonly stderrTail: string;
}

export function describeFailure(error: unknown, context: FailureContext): string {
  let reason: string;
  let showTail = true;
  if (error instanceof ProtocolError) {
    const name = CODE_NAMES[error.code];
    reason = `the server answered with error ${error.code}${name ? ` (${name})` : ''}: ${error.message}`;
    // Caller mistakes (unknown method, bad params) are explained by the message itself.
    showTail = error.code === ErrorCode.InternalError;
    if (error.code === ErrorCode.MethodNotFound) reason += ' The server may not offer this feature.';
  } else if (error instanceof SwitchboardError) {
    reason = localReason(error, context);
    // The explanation of a closed connection already quotes the server's stderr (or says it was empty).
    showTail = !CLOSED_CODES.has(error.code);
  } else {
    reason = error instanceof Error ? error.message : String(error);
  }
  let text = `switchboard: could not ${context.action}: ${reason}`;
  const tail = context.stderrTail;
  if (showTail && !context.verbose && tail !== '') text += `\nLast lines of the server's stderr:\n${tail}`;
  return text;
}

const CLOSED_CODES: ReadonlySet<string> = new Set(['CONNECTION_CLOSED', 'NOT_CONNECTED', 'TRANSPORT']);

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
      return `${error.message} Choose the protocol yourself with --legacy or --protocol <revision>.`;
    default:
      return error.message;
  }
}
