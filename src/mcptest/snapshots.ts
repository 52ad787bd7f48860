/**
 * A test file's snapshots: `__snapshots__/<file>.snap.json` beside it, one entry per test (and
 * revision), keys and members in sorted order, so the file changes only when an answer does. What
 * is recorded is the answer less what differs from run to run by nature: `_meta` (cache hints,
 * request ids, tracing) and the 2026-07-28 `resultType`/`ttlMs`, and the paths a test ignores.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { isPlainObject } from '../util/guards.js';
import { canonicalJson, sortKeys } from './compare.js';
import type { SnapshotOptions } from './format.js';
import { replaceAt } from './json-path.js';

/** What an ignored value is recorded as. */
export const IGNORED = '<ignored>';

export function snapshotPath(testFile: string): string {
  return join(dirname(testFile), '__snapshots__', `${basename(testFile)}.snap.json`);
}

/** The answer as a snapshot records it. */
export function snapshotValue(answer: unknown, options: SnapshotOptions): unknown {
  let value = withoutVolatile(answer, true);
  for (const path of options.ignore) value = replaceAt(value, path, IGNORED);
  return sortKeys(value);
}

function withoutVolatile(value: unknown, top: boolean): unknown {
  if (Array.isArray(value)) return value.map((v) => withoutVolatile(v, false));
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) {
    if (key === '_meta') continue;
    if (top && (key === 'resultType' || key === 'ttlMs')) continue;
    out[key] = withoutVolatile(member, false);
  }
  return out;
}

export class SnapshotFile {
  readonly path: string;
  readonly #stored: Record<string, unknown>;
  readonly #next: Record<string, unknown>;
  readonly #seen = new Set<string>();
  #changed = false;

  constructor(testFile: string) {
    this.path = snapshotPath(testFile);
    this.#stored = existsSync(this.path) ? parseStored(this.path) : {};
    this.#next = { ...this.#stored };
  }

  get(key: string): { found: true; value: unknown } | { found: false } {
    this.#seen.add(key);
    return Object.hasOwn(this.#stored, key) ? { found: true, value: this.#stored[key] } : { found: false };
  }

  set(key: string, value: unknown): void {
    this.#seen.add(key);
    this.#next[key] = value;
    this.#changed = true;
  }

  /** Entries no test of the file produced in this run. */
  obsolete(): string[] {
    return Object.keys(this.#stored).filter((k) => !this.#seen.has(k));
  }

  /** Writes the file when an entry was added or replaced, or (`prune`) obsolete ones removed. */
  save(prune: boolean): boolean {
    const obsolete = prune ? this.obsolete() : [];
    if (!this.#changed && obsolete.length === 0) return false;
    for (const key of obsolete) delete this.#next[key];
    mkdirSync(dirname(this.path), { recursive: true });
    writeFileSync(this.path, `${canonicalJson(this.#next)}\n`);
    return true;
  }
}

function parseStored(path: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new SnapshotFileError(
      `${path} is not valid JSON (${error instanceof Error ? error.message : String(error)}); delete it and run with -u to record it again.`,
    );
  }
  if (!isPlainObject(parsed))
    throw new SnapshotFileError(
      `${path} must hold one JSON object, test name → answer; delete it and run with -u.`,
    );
  return parsed;
}

export class SnapshotFileError extends Error {
  override readonly name = 'SnapshotFileError';
}
