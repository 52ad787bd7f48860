/**
 * The model of a `*.mcptest.yaml` (or `.mcptest.json`) file once read and checked: the server to
 * test, the revisions to run at, and the tests in order. Field names are the file's (docs/test.md);
 * they are a contract.
 */
import type { Revision } from '../protocol/revisions.js';
import type { JsonPath } from './json-path.js';

/** Where a thing was written: 1-based line and column in its file. */
export interface Position {
  readonly line: number;
  readonly column: number;
}

/**
 * The server a file names: a target line as the CLI takes it (a command line or a URL), an
 * `mcpServers`-style entry, or one entry of an `mcpServers` config file.
 */
export type ServerSpec =
  | { readonly kind: 'line'; readonly line: string }
  | {
      readonly kind: 'stdio';
      readonly command: string;
      readonly args: readonly string[];
      readonly env?: Readonly<Record<string, string>>;
      readonly cwd?: string;
    }
  | { readonly kind: 'http'; readonly url: string; readonly headers?: Readonly<Record<string, string>> }
  | { readonly kind: 'config'; readonly config: string; readonly server: string };

/** What a test does: one request to the server. */
export type Step =
  | { readonly kind: 'call'; readonly tool: string; readonly args?: Readonly<Record<string, unknown>> }
  | { readonly kind: 'read'; readonly uri: string }
  | { readonly kind: 'prompt'; readonly name: string; readonly args?: Readonly<Record<string, string>> }
  | { readonly kind: 'request'; readonly method: string; readonly params?: Readonly<Record<string, unknown>> }
  /** Every page of a list, its items sorted by name (or URI): a snapshot that ordering cannot break. */
  | { readonly kind: 'list'; readonly of: ListKind };

export const LIST_KINDS = ['tools', 'resources', 'resourceTemplates', 'prompts'] as const;
export type ListKind = (typeof LIST_KINDS)[number];

export const OUTCOMES = ['ok', 'isError', 'error'] as const;
/** `ok`: a result (a tool's without isError); `isError`: a tool result with isError; `error`: a JSON-RPC error. */
export type Outcome = (typeof OUTCOMES)[number];

/** Exactly one of the three. `matches` is a regular expression run in linear time (RE2). */
export type TextExpectation =
  | { readonly equals: string }
  | { readonly contains: string }
  | { readonly matches: string };

/** A value found at `path` in the answer: equal to a JSON value, or a string containing or matching text. */
export type JsonExpectation = { readonly path: JsonPath; readonly source: string } & (
  | { readonly equals: unknown }
  | { readonly contains: string }
  | { readonly matches: string }
  | { readonly exists: boolean }
);

export interface Bound {
  readonly lt?: number;
  readonly lte?: number;
  readonly gt?: number;
  readonly gte?: number;
}

export interface Expectations {
  /** Default `ok`, or `error` when `error` is given. */
  readonly outcome: Outcome;
  readonly text?: TextExpectation;
  /** A subset: every member given must be there with that value; arrays must match item by item. */
  readonly structuredContent?: unknown;
  readonly json?: readonly JsonExpectation[];
  readonly error?: { readonly code?: number; readonly message?: TextExpectation };
  readonly durationMs?: Bound;
}

export interface SnapshotOptions {
  /** Paths whose values are left out of the snapshot (a time, a generated id). */
  readonly ignore: readonly JsonPath[];
  readonly ignoreSources: readonly string[];
}

export interface TestCase {
  readonly name: string;
  readonly step: Step;
  readonly expect: Expectations;
  /** Compare the answer with the one recorded in the file's snapshot. */
  readonly snapshot?: SnapshotOptions;
  /** Variables later tests may use as `${name}`: the value at each path of the answer. */
  readonly save?: Readonly<Record<string, JsonPath>>;
  /** A reason not to run it (`skip: true` or `skip: "why"`): reported as not run. */
  readonly skip?: string;
  /** Set on tests `--generate` wrote: the fingerprint of what it wrote (an edited test no longer matches). */
  readonly generated?: string;
  readonly at: Position;
}

export interface TestFile {
  /** The path it was read from. */
  readonly file: string;
  /** Absent only when a `--server` is given instead. */
  readonly server?: ServerSpec;
  /** Run every test at each of these; absent: at the revision the client and server agree on. */
  readonly revisions?: readonly Revision[];
  /** Longest wait for one answer, in ms (default 30 s). */
  readonly timeoutMs?: number;
  readonly tests: readonly TestCase[];
}
