/**
 * What the message checker reports, and the error thrown when a test asserts there is nothing to report.
 */
import type { RequestId } from '../protocol/jsonrpc.js';
import type { Revision } from '../protocol/revisions.js';
import type { Sender } from './revision-schema.js';

/** One way a message departs from its revision's JSON Schema. */
export interface SchemaViolation {
  /** The revision the message was checked under; `unknown` when it could not be told from the traffic. */
  readonly revision: Revision | 'unknown';
  /** Who sent the message. */
  readonly sender: Sender;
  /** The definition the message (or its `result`/`error`) was checked against, e.g. `ListToolsResult`. */
  readonly definition: string;
  /** RFC 6901 pointer into the message, e.g. `/result/tools/0/title`; `` for the whole message. */
  readonly pointer: string;
  /** The offending value; undefined when a required member is missing. */
  readonly value: unknown;
  /**
   * The failing JSON Schema keyword (`additionalProperties`, `required`, `type`, `anyOf`...), or, for
   * checks the schema cannot express: `method` (not in this revision or not from this sender),
   * `id` (a response to no known request, a reused request id), `resultType`, `batch`, `json`,
   * `revision` (a channel could not tell which revision the message belongs to).
   */
  readonly keyword: string;
  /** What is wrong, in words. */
  readonly reason: string;
  /** Where the schema rejects it: innermost definition and path, e.g. `Tool/additionalProperties`. */
  readonly schemaLocation: string;
  /** The request method the message carries or answers, when known. */
  readonly method?: string;
  readonly id?: RequestId | null;
  /** The caller's label for the message (a test step, a transport). */
  readonly label?: string;
  /** The whole violation on one line: revision, sender, definition, pointer, reason, value. */
  readonly message: string;
}

/** Completes a violation with its one-line `message`. */
export function makeViolation(fields: Omit<SchemaViolation, 'message'>): SchemaViolation {
  return { ...fields, message: formatViolation(fields) };
}

function formatViolation(v: Omit<SchemaViolation, 'message'>): string {
  const about = [v.method, v.id === undefined ? undefined : `id ${JSON.stringify(v.id)}`]
    .filter(Boolean)
    .join(', ');
  const where = v.label ? ` [${v.label}]` : '';
  const value = v.value === undefined ? '(absent)' : preview(v.value);
  return (
    `${v.revision} ${v.sender} → ${v.definition}${about ? ` (${about})` : ''}${where}: ` +
    `${v.pointer || '(message)'}: ${v.reason}; value: ${value}`
  );
}

function preview(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 160 ? `${text.slice(0, 157)}...` : text;
}

/** Thrown by `assertValid`/`assertClean`. Shaped like `node:assert`'s AssertionError (`code: 'ERR_ASSERTION'`). */
export class SchemaViolationError extends Error {
  override name = 'SchemaViolationError';
  readonly code = 'ERR_ASSERTION';
  readonly violations: readonly SchemaViolation[];

  constructor(violations: readonly SchemaViolation[], what = 'message') {
    const count = violations.length === 1 ? '1 schema violation' : `${violations.length} schema violations`;
    super(
      `${count} in ${what}:\n${violations.map((v) => `  - ${v.message}`).join('\n')}\n` +
        'Fix the sender so that it only sends what the negotiated revision defines (see switchboard/testing).',
    );
    this.violations = violations;
  }
}
