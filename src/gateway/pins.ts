/**
 * Tool pinning (`switchboard gateway --lock FILE`): the lock file records every tool's definition
 * (title, description, schemas, annotations) and its hash the first time the gateway sees it. A tool
 * whose definition later differs from its recorded hash is hidden and reported until someone
 * approves the new definition (`switchboard gateway approve`, or the admin endpoint, admin.ts): the
 * defence against a server that changes what a tool says after people trusted it. The definitions
 * are kept so that what changed can be shown (version 1 locks held hashes only; they are still read). Skills (SEP-2640) are pinned the same way, by
 * their `SKILL.md` URI, over their frontmatter and every file's digest and size (the entry's
 * `resources`, to which the SEP binds a user's approval); a URI never is a tool's name (`://`), so
 * both share one set of pins, kept apart in the lock file (`tools`, `skills`).
 *
 * With `gateway.redis` the pins are shared ({@link SharedPins}): the lock file seeds them, the first
 * node to see a tool pins it for all, and an approval on any node holds on every node at once.
 */
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { SkillEntry } from '../extensions/skills/types.js';
import { SwitchboardError } from '../protocol/errors.js';
import type { Tool } from '../protocol/types.js';
import { compareKeys } from '../server/pagination.js';
import { canonicalJson } from '../server/request-state.js';
import { isPlainObject } from '../util/guards.js';

/** The lock written; version 1 (hashes only) is still read. */
const LOCK_VERSION = 2;
const LOCK_SHAPE =
  '{ "version": 2, "tools": { name: { "hash": "sha256:...", "definition": {...} } }, "skills": { uri: {...} } }';

/**
 * What a pin records of a tool or skill: exactly what its hash is over (a tool's title,
 * description, schemas and annotations; a skill's frontmatter and files), so a held one can be
 * shown beside what was approved.
 */
export type PinnedDefinition = { readonly [key: string]: unknown };

/** A tool (or skill) held back because its definition changed since it was pinned. */
export interface PendingTool {
  readonly kind: 'tool' | 'skill';
  /** Its downstream name (a skill's: the URI of its `SKILL.md`). */
  readonly name: string;
  readonly pinned: string;
  readonly found: string;
  /** The definition pinned; unknown for a pin of a version 1 lock, or one another node made first. */
  readonly pinnedDefinition?: PinnedDefinition;
  readonly foundDefinition: PinnedDefinition;
}

const hashOf = (definition: PinnedDefinition): string =>
  `sha256:${createHash('sha256').update(canonicalJson(definition)).digest('hex')}`;

/** A skill's pinned definition: its frontmatter and its files (URI, digest, size, in URI order). */
export function skillDefinition(entry: SkillEntry): PinnedDefinition {
  const resources = Array.isArray(entry.resources)
    ? entry.resources
        .map(({ uri, digest, size }) => ({ uri, digest, size }))
        .sort((a, b) => compareKeys(a.uri, b.uri))
    : entry.resources;
  return JSON.parse(canonicalJson({ frontmatter: entry.frontmatter, resources })) as PinnedDefinition;
}

/**
 * The hash that pins a skill: its frontmatter and its files (URI, digest, size, in URI order); a
 * `"dynamic"` skill, which publishes no digests, is pinned by its frontmatter alone.
 */
export const skillHash = (entry: SkillEntry): string => hashOf(skillDefinition(entry));

/** A tool's pinned definition: what a model reads of it, not where it comes from. */
export function toolDefinition(tool: Tool): PinnedDefinition {
  const { title, description, inputSchema, outputSchema, annotations } = tool;
  return JSON.parse(
    canonicalJson({ title, description, inputSchema, outputSchema, annotations }),
  ) as PinnedDefinition;
}

/** The hash that pins a tool: what a model reads of it, not where it comes from. */
export const toolHash = (tool: Tool): string => hashOf(toolDefinition(tool));

/** A skill's pin is keyed by its URI, a tool's by its name (which never holds `://`). */
const kindOf = (name: string): PendingTool['kind'] => (name.includes('://') ? 'skill' : 'tool');

/** Pins held in common by the nodes of a cluster (the Redis pin store). */
export interface SharedPins {
  /** Adds the pins of `seed` that no node has yet; resolves to every pin in force. */
  load(seed: ReadonlyMap<string, string>): Promise<Map<string, string>>;
  /** Pins `name` to `hash` unless some node pinned it already; resolves to the pin in force. */
  pinFirst(name: string, hash: string): Promise<string>;
  /** Sets these pins (approvals) and tells the other nodes. */
  approve(pins: ReadonlyMap<string, string>): Promise<void>;
  /** `listener` runs when another node approved. */
  onChange(listener: () => void): void;
}

export class ToolPins {
  private readonly pinned: Map<string, string>;
  /** The definitions known by hash: those pinned, and those held (to pin when approved). */
  readonly #definitions: Map<string, PinnedDefinition>;
  private readonly held = new Map<string, PendingTool>();
  #shared: SharedPins | undefined;
  /** The writes to the shared pins, in order. */
  #sharing: Promise<void> = Promise.resolve();
  /** Runs when the pins changed elsewhere (another node pinned first, or approved): admit the tools again. */
  onChange: () => void = () => {};
  /** Told when the shared pins cannot be read or written (this node goes on with the pins it has). */
  onerror: (error: Error) => void = () => {};

  private constructor(
    readonly file: string,
    pinned: Map<string, string>,
    definitions: Map<string, PinnedDefinition>,
  ) {
    this.pinned = pinned;
    this.#definitions = definitions;
  }

  /**
   * Reads the lock file, or starts an empty one when it does not exist yet. A version 1 lock
   * (hashes only) is read as it is and written as version 2 (with the definitions) when next saved.
   */
  static load(file: string): ToolPins {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new ToolPins(file, new Map(), new Map());
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
    const refuse = (what: string) =>
      new SwitchboardError(
        'CONFIG',
        `The lock file ${file} ${what} (a lock is ${LOCK_SHAPE}; version 1 held { name: hash }). Delete it to pin every tool afresh.`,
      );
    if ((version !== 1 && version !== LOCK_VERSION) || !isPlainObject(tools) || !isPlainObject(skills))
      throw refuse(`is not a version 1 or ${LOCK_VERSION} lock`);
    const pinned = new Map<string, string>();
    const definitions = new Map<string, PinnedDefinition>();
    for (const record of [tools, skills]) {
      for (const [name, pin] of Object.entries(record)) {
        if (version === 1) {
          if (typeof pin === 'string') pinned.set(name, pin);
          continue;
        }
        if (!isPlainObject(pin) || typeof pin.hash !== 'string')
          throw refuse(`pins ${JSON.stringify(name)} without a "hash"`);
        pinned.set(name, pin.hash);
        // A definition that is not what its hash is over is not kept (the hash alone still pins).
        if (isPlainObject(pin.definition) && hashOf(pin.definition) === pin.hash)
          definitions.set(pin.hash, pin.definition);
      }
    }
    return new ToolPins(file, pinned, definitions);
  }

  /**
   * Shares the pins with the other nodes: the lock file's pins that no node has yet are added, then
   * the shared ones are in force here (and written to the lock file). Call before the first admit.
   */
  async share(shared: SharedPins): Promise<void> {
    this.#adopt(await shared.load(this.pinned));
    this.#shared = shared;
    shared.onChange(() => {
      shared.load(new Map()).then(
        (pins) => {
          this.#adopt(pins);
          this.onChange();
        },
        (error: unknown) => this.onerror(error as Error),
      );
    });
  }

  /** Resolves when what this node pinned or approved is in the shared pins. */
  settled(): Promise<void> {
    return this.#sharing;
  }

  #adopt(pins: ReadonlyMap<string, string>): void {
    this.pinned.clear();
    for (const [name, hash] of pins) this.pinned.set(name, hash);
    this.save();
  }

  #share(write: (shared: SharedPins) => Promise<void>): void {
    const shared = this.#shared;
    if (!shared) return;
    this.#sharing = this.#sharing
      .then(() => write(shared))
      .catch((error: unknown) => this.onerror(error as Error));
  }

  /**
   * Whether tool `name` may be shown: a tool never seen is pinned now (and the file written); one
   * whose hash differs from its pin is held back until approved. Shared: when another node pinned
   * the tool first with another definition, that pin wins and the tools are admitted again.
   */
  admit(name: string, tool: Tool): boolean {
    return this.admitDefinition(name, toolDefinition(tool));
  }

  /** Whether the skill whose `SKILL.md` is shown at `uri` may be shown (as {@link admit} for a tool). */
  admitSkill(uri: string, entry: SkillEntry): boolean {
    return this.admitDefinition(uri, skillDefinition(entry));
  }

  private admitDefinition(name: string, definition: PinnedDefinition): boolean {
    const found = hashOf(definition);
    const pinned = this.pinned.get(name);
    if (pinned === undefined) {
      this.pinned.set(name, found);
      this.#definitions.set(found, definition);
      this.save();
      this.#share(async (shared) => {
        const inForce = await shared.pinFirst(name, found);
        if (inForce === found || this.pinned.get(name) !== found) return;
        this.pinned.set(name, inForce);
        this.save();
        this.onChange();
      });
    }
    if (pinned === undefined || pinned === found) {
      this.held.delete(name);
      // A pin from a version 1 lock (or another node) learns its definition: the lock keeps it.
      if (!this.#definitions.has(found)) {
        this.#definitions.set(found, definition);
        this.save();
      }
      return true;
    }
    const before = this.#definitions.get(pinned);
    this.#definitions.set(found, definition);
    this.held.set(name, {
      kind: kindOf(name),
      name,
      pinned,
      found,
      ...(before ? { pinnedDefinition: before } : {}),
      foundDefinition: definition,
    });
    return false;
  }

  /** The tools and skills held back now. */
  pending(): PendingTool[] {
    return [...this.held.values()];
  }

  /** Pins the current definitions of the held tools and skills named (all of them when none is named). */
  approve(names: readonly string[] = []): PendingTool[] {
    const chosen = this.pending().filter((p) => names.length === 0 || names.includes(p.name));
    for (const tool of chosen) {
      this.pinned.set(tool.name, tool.found);
      this.held.delete(tool.name);
    }
    if (chosen.length > 0) {
      this.save();
      this.#share((shared) => shared.approve(new Map(chosen.map((tool) => [tool.name, tool.found]))));
    }
    return chosen;
  }

  private save(): void {
    const sorted = [...this.pinned].sort(([a], [b]) => compareKeys(a, b));
    // Only the definitions still pinned or held are kept.
    const kept = new Set([...this.pinned.values(), ...[...this.held.values()].map((p) => p.found)]);
    for (const hash of this.#definitions.keys()) if (!kept.has(hash)) this.#definitions.delete(hash);
    const entry = ([name, hash]: [string, string]) => {
      const definition = this.#definitions.get(hash);
      return [name, definition ? { hash, definition } : { hash }] as const;
    };
    const tools = Object.fromEntries(sorted.filter(([name]) => kindOf(name) === 'tool').map(entry));
    const skills = Object.fromEntries(sorted.filter(([name]) => kindOf(name) === 'skill').map(entry));
    const lock = { version: LOCK_VERSION, tools, ...(Object.keys(skills).length > 0 ? { skills } : {}) };
    // Written whole and renamed, so a crash never leaves half a lock.
    const temporary = `${this.file}.tmp-${process.pid}`;
    writeFileSync(temporary, `${JSON.stringify(lock, null, 2)}\n`);
    renameSync(temporary, this.file);
  }
}
