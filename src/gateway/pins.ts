/**
 * Tool pinning (`switchboard gateway --lock FILE`): the lock file records a hash of every tool's
 * definition (title, description, schemas, annotations) the first time the gateway sees it. A tool
 * whose definition later differs from its recorded hash is hidden and reported until someone
 * approves the new definition (`switchboard gateway approve`): the defence against a server that
 * changes what a tool says after people trusted it.
 */
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { SwitchboardError } from '../protocol/errors.js';
import type { Tool } from '../protocol/types.js';
import { canonicalJson } from '../server/request-state.js';

const LOCK_VERSION = 1;

/** A tool held back because its definition changed since it was pinned. */
export interface PendingTool {
  /** Its downstream name. */
  readonly name: string;
  readonly pinned: string;
  readonly found: string;
}

/** The hash that pins a tool: what a model reads of it, not where it comes from. */
export function toolHash(tool: Tool): string {
  const { title, description, inputSchema, outputSchema, annotations } = tool;
  const definition = canonicalJson({ title, description, inputSchema, outputSchema, annotations });
  return `sha256:${createHash('sha256').update(definition).digest('hex')}`;
}

export class ToolPins {
  private readonly pinned: Map<string, string>;
  private readonly held = new Map<string, PendingTool>();

  private constructor(
    readonly file: string,
    pinned: Map<string, string>,
  ) {
    this.pinned = pinned;
  }

  /** Reads the lock file, or starts an empty one when it does not exist yet. */
  static load(file: string): ToolPins {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new ToolPins(file, new Map());
      throw new SwitchboardError('CONFIG', `Cannot read the lock file ${file}: ${(error as Error).message}`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new SwitchboardError(
        'CONFIG',
        `The lock file ${file} is not JSON. Delete it to pin every tool afresh.`,
      );
    }
    const tools = (parsed as { version?: unknown; tools?: unknown }).tools;
    if (
      (parsed as { version?: unknown }).version !== LOCK_VERSION ||
      typeof tools !== 'object' ||
      tools === null
    ) {
      throw new SwitchboardError(
        'CONFIG',
        `The lock file ${file} is not a version ${LOCK_VERSION} lock ({ "version": 1, "tools": { name: hash } }). Delete it to pin every tool afresh.`,
      );
    }
    const pinned = new Map<string, string>();
    for (const [name, hash] of Object.entries(tools)) if (typeof hash === 'string') pinned.set(name, hash);
    return new ToolPins(file, pinned);
  }

  /**
   * Whether tool `name` may be shown: a tool never seen is pinned now (and the file written); one
   * whose hash differs from its pin is held back until approved.
   */
  admit(name: string, tool: Tool): boolean {
    const found = toolHash(tool);
    const pinned = this.pinned.get(name);
    if (pinned === undefined) {
      this.pinned.set(name, found);
      this.save();
    }
    if (pinned === undefined || pinned === found) {
      this.held.delete(name);
      return true;
    }
    this.held.set(name, { name, pinned, found });
    return false;
  }

  /** The tools held back now. */
  pending(): PendingTool[] {
    return [...this.held.values()];
  }

  /** Pins the current definitions of the held tools named (all of them when none is named). */
  approve(names: readonly string[] = []): PendingTool[] {
    const chosen = this.pending().filter((p) => names.length === 0 || names.includes(p.name));
    for (const tool of chosen) {
      this.pinned.set(tool.name, tool.found);
      this.held.delete(tool.name);
    }
    if (chosen.length > 0) this.save();
    return chosen;
  }

  private save(): void {
    const tools = Object.fromEntries([...this.pinned].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    // Written whole and renamed, so a crash never leaves half a lock.
    const temporary = `${this.file}.tmp-${process.pid}`;
    writeFileSync(temporary, `${JSON.stringify({ version: LOCK_VERSION, tools }, null, 2)}\n`);
    renameSync(temporary, this.file);
  }
}
