/**
 * Snapshots: a server's surface (its tools, resources, templates and prompts, with their schemas
 * and annotations, and sample results of its read-only tools) written to a file, and what changed
 * since. A team that depends on a server pins it with `--snapshot` and checks it with `--against`:
 * a tool whose description or schema changed under it is flagged, since a model acts on both.
 */
import { isRevision, REVISIONS, type Revision } from '../protocol/revisions.js';
import { canonicalJson } from '../server/request-state.js';
import { isPlainObject } from '../util/guards.js';
import type { Json } from './wire.js';

export const SNAPSHOT_FORMAT = 'switchboard-check-snapshot/1';

/** One read-only tool's answer to the arguments the checker made up for it. */
export interface ToolSample {
  readonly arguments: Json;
  /** The result's content, structuredContent and isError (no `_meta`, no cache fields). */
  readonly result: Json;
}

/** What a server offers, as one revision showed it. */
export interface Surface {
  readonly revision: Revision;
  readonly tools: readonly Json[];
  readonly resources: readonly Json[];
  readonly resourceTemplates: readonly Json[];
  readonly prompts: readonly Json[];
  /** Keyed by tool name. */
  readonly samples: Readonly<Record<string, ToolSample>>;
}

/** The file `--snapshot` writes. Field names are a contract. */
export interface Snapshot extends Surface {
  readonly format: typeof SNAPSHOT_FORMAT;
  readonly target: string;
  readonly server?: { readonly name: string; readonly version: string };
  readonly takenAt: string;
}

export type SurfaceKind = 'tool' | 'resource' | 'resourceTemplate' | 'prompt' | 'sample';

/** One difference between a snapshot and the server now. */
export interface SurfaceChange {
  readonly kind: SurfaceKind;
  /** The tool or prompt name, the resource URI, the template's uriTemplate. */
  readonly name: string;
  readonly change: 'added' | 'removed' | 'changed';
  /** For `changed`: the fields that differ (`description`, `inputSchema`, `annotations`...). */
  readonly fields?: readonly string[];
}

/** Collects a surface while the probes run; `surface()` is the result. */
export class SurfaceRecorder {
  tools: Json[] = [];
  resources: Json[] = [];
  resourceTemplates: Json[] = [];
  prompts: Json[] = [];
  readonly #samples: Record<string, ToolSample> = {};

  constructor(readonly revision: Revision) {}

  sample(tool: string, args: Json, result: Json): void {
    const kept: Json = {};
    for (const key of ['content', 'structuredContent', 'isError'] as const)
      if (result[key] !== undefined) kept[key] = result[key];
    this.#samples[tool] = { arguments: args, result: kept };
  }

  surface(): Surface {
    return {
      revision: this.revision,
      tools: this.tools,
      resources: this.resources,
      resourceTemplates: this.resourceTemplates,
      prompts: this.prompts,
      samples: { ...this.#samples },
    };
  }
}

export function toSnapshot(
  surface: Surface,
  about: { readonly target: string; readonly server?: Snapshot['server'] },
): Snapshot {
  return {
    format: SNAPSHOT_FORMAT,
    target: about.target,
    ...(about.server ? { server: about.server } : {}),
    takenAt: new Date().toISOString(),
    ...surface,
  };
}

/** Reads a snapshot file's text; throws an error that says what is wrong with it. */
export function parseSnapshot(text: string, file: string): Snapshot {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`${file} is not JSON (${(error as Error).message}); write it with --snapshot.`);
  }
  if (!isPlainObject(value) || value.format !== SNAPSHOT_FORMAT) {
    throw new Error(`${file} is not a switchboard check snapshot (no "format": "${SNAPSHOT_FORMAT}").`);
  }
  for (const key of ['tools', 'resources', 'resourceTemplates', 'prompts'] as const) {
    if (!Array.isArray(value[key])) throw new Error(`${file}: "${key}" must be an array.`);
  }
  if (!isPlainObject(value.samples)) throw new Error(`${file}: "samples" must be an object.`);
  if (!isRevision(value.revision)) {
    throw new Error(
      `${file}: "revision" must be one of ${REVISIONS.join(', ')}, got ${JSON.stringify(value.revision)}.`,
    );
  }
  return value as unknown as Snapshot;
}

const KEYS: Record<Exclude<SurfaceKind, 'sample'>, { list: keyof Surface; key: string }> = {
  tool: { list: 'tools', key: 'name' },
  resource: { list: 'resources', key: 'uri' },
  resourceTemplate: { list: 'resourceTemplates', key: 'uriTemplate' },
  prompt: { list: 'prompts', key: 'name' },
};

/** What differs between `before` (a snapshot) and `after` (the server now), in a stable order. */
export function compareSurfaces(before: Surface, after: Surface): SurfaceChange[] {
  const changes: SurfaceChange[] = [];
  for (const [kind, { list, key }] of Object.entries(KEYS) as [
    keyof typeof KEYS,
    (typeof KEYS)[keyof typeof KEYS],
  ][]) {
    const index = (items: readonly Json[]) => new Map(items.map((item) => [String(item[key]), item]));
    changes.push(...compareMaps(kind, index(before[list] as Json[]), index(after[list] as Json[])));
  }
  // A tool called before and not now (or now and not before) shows in the tool list's changes;
  // only a different answer to a tool called both times is a sample change.
  for (const [name, sample] of Object.entries(before.samples)) {
    const current = after.samples[name];
    if (!current) continue;
    const fields = differingFields(sample.result, current.result);
    if (canonicalJson(sample.arguments) !== canonicalJson(current.arguments)) fields.unshift('arguments');
    if (fields.length > 0) changes.push({ kind: 'sample', name, change: 'changed', fields });
  }
  return changes;
}

function compareMaps(
  kind: SurfaceKind,
  before: Map<string, Json>,
  after: Map<string, Json>,
): SurfaceChange[] {
  const changes: SurfaceChange[] = [];
  for (const [name, item] of before) {
    const current = after.get(name);
    if (!current) changes.push({ kind, name, change: 'removed' });
    else if (canonicalJson(item) !== canonicalJson(current))
      changes.push({ kind, name, change: 'changed', fields: differingFields(item, current) });
  }
  for (const name of after.keys()) if (!before.has(name)) changes.push({ kind, name, change: 'added' });
  return changes;
}

function differingFields(a: Json, b: Json): string[] {
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  return keys.filter((k) => canonicalJson(a[k]) !== canonicalJson(b[k]));
}

/** The changes for a terminal, one per line. */
export function formatChanges(changes: readonly SurfaceChange[], file: string): string {
  if (changes.length === 0) return `Surface: unchanged since ${file}.\n`;
  const lines = [`Surface: ${changes.length} change(s) since ${file}:`];
  for (const c of changes) {
    const what = c.change === 'changed' ? `changed (${c.fields?.join(', ')})` : c.change;
    lines.push(`  ${c.kind} ${JSON.stringify(c.name)} ${what}`);
  }
  return `${lines.join('\n')}\n`;
}
