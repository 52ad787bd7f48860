/**
 * Tool pinning (`switchboard gateway --lock FILE`): the lock file records a hash of every tool's
 * definition (title, description, schemas, annotations) the first time the gateway sees it. A tool
 * whose definition later differs from its recorded hash is hidden and reported until someone
 * approves the new definition (`switchboard gateway approve`): the defence against a server that
 * changes what a tool says after people trusted it. Skills (SEP-2640) are pinned the same way, by
 * their `SKILL.md` URI, over their frontmatter and every file's digest and size (the entry's
 * `resources`, to which the SEP binds a user's approval).
 */
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { SkillEntry } from '../extensions/skills/types.js';
import { SwitchboardError } from '../protocol/errors.js';
import type { Tool } from '../protocol/types.js';
import { canonicalJson } from '../server/request-state.js';
import { isPlainObject } from '../util/guards.js';

const LOCK_VERSION = 1;

/** A tool (or skill) held back because its definition changed since it was pinned. */
export interface PendingTool {
  readonly kind: 'tool' | 'skill';
  /** Its downstream name (a skill's: the URI of its `SKILL.md`). */
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

/**
 * The hash that pins a skill: its frontmatter and its files (URI, digest, size, in URI order); a
 * `"dynamic"` skill, which publishes no digests, is pinned by its frontmatter alone.
 */
export function skillHash(entry: SkillEntry): string {
  const resources = Array.isArray(entry.resources)
    ? entry.resources
        .map(({ uri, digest, size }) => ({ uri, digest, size }))
        .sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0))
    : entry.resources;
  const definition = canonicalJson({ frontmatter: entry.frontmatter, resources });
  return `sha256:${createHash('sha256').update(definition).digest('hex')}`;
}

type Kind = PendingTool['kind'];

export class ToolPins {
  private readonly pinned: Record<Kind, Map<string, string>>;
  private readonly held = new Map<string, PendingTool>();

  private constructor(
    readonly file: string,
    pinned: Record<Kind, Map<string, string>>,
  ) {
    this.pinned = pinned;
  }

  /** Reads the lock file, or starts an empty one when it does not exist yet. */
  static load(file: string): ToolPins {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT')
        return new ToolPins(file, { tool: new Map(), skill: new Map() });
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
    const {
      version,
      tools,
      skills = {},
    } = parsed as { version?: unknown; tools?: unknown; skills?: unknown };
    if (version !== LOCK_VERSION || !isPlainObject(tools) || !isPlainObject(skills)) {
      throw new SwitchboardError(
        'CONFIG',
        `The lock file ${file} is not a version ${LOCK_VERSION} lock ({ "version": 1, "tools": { name: hash }, "skills": { uri: hash } }). Delete it to pin every tool afresh.`,
      );
    }
    const read = (record: object) => {
      const pinned = new Map<string, string>();
      for (const [key, hash] of Object.entries(record)) if (typeof hash === 'string') pinned.set(key, hash);
      return pinned;
    };
    return new ToolPins(file, { tool: read(tools), skill: read(skills) });
  }

  /**
   * Whether tool `name` may be shown: a tool never seen is pinned now (and the file written); one
   * whose hash differs from its pin is held back until approved.
   */
  admit(name: string, tool: Tool): boolean {
    return this.admitHash('tool', name, toolHash(tool));
  }

  /** Whether the skill whose `SKILL.md` is shown at `uri` may be shown (as {@link admit} for a tool). */
  admitSkill(uri: string, entry: SkillEntry): boolean {
    return this.admitHash('skill', uri, skillHash(entry));
  }

  private admitHash(kind: Kind, name: string, found: string): boolean {
    const pins = this.pinned[kind];
    const pinned = pins.get(name);
    if (pinned === undefined) {
      pins.set(name, found);
      this.save();
    }
    const key = `${kind}\0${name}`;
    if (pinned === undefined || pinned === found) {
      this.held.delete(key);
      return true;
    }
    this.held.set(key, { kind, name, pinned, found });
    return false;
  }

  /** The tools and skills held back now. */
  pending(): PendingTool[] {
    return [...this.held.values()];
  }

  /** Pins the current definitions of the held tools and skills named (all of them when none is named). */
  approve(names: readonly string[] = []): PendingTool[] {
    const chosen = this.pending().filter((p) => names.length === 0 || names.includes(p.name));
    for (const item of chosen) {
      this.pinned[item.kind].set(item.name, item.found);
      this.held.delete(`${item.kind}\0${item.name}`);
    }
    if (chosen.length > 0) this.save();
    return chosen;
  }

  private save(): void {
    const sorted = (pins: Map<string, string>) =>
      Object.fromEntries([...pins].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    const lock = {
      version: LOCK_VERSION,
      tools: sorted(this.pinned.tool),
      ...(this.pinned.skill.size > 0 ? { skills: sorted(this.pinned.skill) } : {}),
    };
    // Written whole and renamed, so a crash never leaves half a lock.
    const temporary = `${this.file}.tmp-${process.pid}`;
    writeFileSync(temporary, `${JSON.stringify(lock, null, 2)}\n`);
    renameSync(temporary, this.file);
  }
}
