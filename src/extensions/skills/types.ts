/**
 * The Skills extension (`io.modelcontextprotocol/skills`, SEP-2640; the working group's stable
 * specification): a server serves Agent Skills (a directory with a `SKILL.md` and supporting files)
 * as `skill://<skill-path>/<file-path>` resources, lists them with `skills/list`, answers one by URI
 * with `skills/get` and lists a directory's children with `resources/directory/read`. What both
 * sides share: the identifiers, the wire shapes and their checks, and the skill URI helpers.
 */
import { SwitchboardError } from '../../protocol/errors.js';
import type { JsonObject } from '../../protocol/types.js';
import { isPlainObject } from '../../util/guards.js';

/** The extension's identifier, in `capabilities.extensions` of the server (and of a client that declares it). */
export const SKILLS_EXTENSION = 'io.modelcontextprotocol/skills';
export const SKILLS_LIST = 'skills/list';
export const SKILLS_GET = 'skills/get';
export const DIRECTORY_READ = 'resources/directory/read';
/** The MIME type of a directory resource (`resources/directory/read` lists subdirectories with it). */
export const DIRECTORY_MIME_TYPE = 'inode/directory';
/** `resources` of a skill whose content is generated, so that no digests can be published. */
export const DYNAMIC_RESOURCES = 'dynamic';
/** What every conforming host accepts of one skill (the specification's Limits). */
export const MAX_RESOURCES_PER_SKILL = 512;
export const MAX_BYTES_PER_SKILL = 16 * 1024 * 1024;

/** One file of a skill: its URI, the SHA-256 of its raw bytes (`sha256:<64 hex>`) and its length. */
export interface SkillResource {
  uri: string;
  digest: string;
  size: number;
}

/** The entry for one skill, as `skills/list` and `skills/get` carry it. */
export interface SkillEntry {
  /** The URI of the skill's `SKILL.md`. */
  uri: string;
  /** The `SKILL.md` frontmatter, verbatim, as JSON (`name` and `description` always present). */
  frontmatter: { name: string; description: string; [field: string]: unknown };
  /** Every file of the skill (nested skills' included), or `"dynamic"` for generated content. */
  resources: SkillResource[] | typeof DYNAMIC_RESOURCES;
}

export interface ListSkillsResult {
  skills: SkillEntry[];
  nextCursor?: string;
}

export interface GetSkillResult {
  skill: SkillEntry;
}

/** The extension's settings in `capabilities.extensions[SKILLS_EXTENSION]`. */
export interface SkillsCapability extends JsonObject {
  /** The server answers `resources/directory/read`. */
  directoryRead?: boolean;
}

const DIGEST = /^sha256:[0-9a-f]{64}$/;

const invalid = (method: string, problem: string): never => {
  throw new SwitchboardError('INVALID_RESULT', `The server's ${method} result is malformed: ${problem}.`);
};

/** Checks one skill entry's shape, naming what is wrong (`where`: `skills[3]`, `skill`). */
export function checkSkillEntry(value: unknown, method: string, where: string): asserts value is SkillEntry {
  if (!isPlainObject(value)) invalid(method, `${where} is not an object`);
  const entry = value as Record<string, unknown>;
  if (typeof entry.uri !== 'string' || entry.uri.length === 0)
    invalid(method, `${where}.uri is not a string`);
  const fm = entry.frontmatter;
  if (!isPlainObject(fm)) invalid(method, `${where}.frontmatter is not an object`);
  const { name, description } = fm as Record<string, unknown>;
  if (typeof name !== 'string' || typeof description !== 'string') {
    invalid(method, `${where}.frontmatter lacks a string name and description`);
  }
  if (entry.resources === DYNAMIC_RESOURCES) return;
  if (!Array.isArray(entry.resources))
    invalid(method, `${where}.resources is neither an array nor "dynamic"`);
  for (const [i, r] of (entry.resources as unknown[]).entries()) {
    const at = `${where}.resources[${i}]`;
    if (!isPlainObject(r) || typeof r.uri !== 'string') invalid(method, `${at}.uri is not a string`);
    const file = r as Record<string, unknown>;
    if (typeof file.digest !== 'string' || !DIGEST.test(file.digest)) {
      invalid(method, `${at}.digest is not sha256:<64 lowercase hex digits>`);
    }
    if (!Number.isSafeInteger(file.size) || (file.size as number) < 0) {
      invalid(method, `${at}.size is not a byte count`);
    }
  }
}

export function checkListSkillsResult(value: Record<string, unknown>, method: string): void {
  if (!Array.isArray(value.skills)) invalid(method, 'skills is not an array');
  for (const [i, entry] of (value.skills as unknown[]).entries())
    checkSkillEntry(entry, method, `skills[${i}]`);
  if (value.nextCursor !== undefined && typeof value.nextCursor !== 'string') {
    invalid(method, 'nextCursor is not a string');
  }
}

export function checkGetSkillResult(value: Record<string, unknown>, method: string): void {
  checkSkillEntry(value.skill, method, 'skill');
}

// --- skill URIs --------------------------------------------------------------------------------

/** `skill://<path>/SKILL.md` → `skill://<path>`: the skill's root directory (no trailing slash). */
export function skillRoot(skillUri: string): string | undefined {
  return skillUri.endsWith('/SKILL.md') ? skillUri.slice(0, -'/SKILL.md'.length) : undefined;
}

/** The skill's name as its URI says it: the segment before `/SKILL.md`. */
export function skillNameOf(skillUri: string): string | undefined {
  const root = skillRoot(skillUri);
  if (root === undefined) return undefined;
  const at = root.lastIndexOf('/');
  const name = root.slice(at + 1);
  return name.length > 0 && !root.endsWith('://') ? decodeURIComponent(name) : undefined;
}

/** `skill://` URI segments: each percent-encoded as RFC 3986 path segments need, `/` kept as the separator. */
export function skillUri(path: string): string {
  return `skill://${path.split('/').map(encodeSegment).join('/')}`;
}

const encodeSegment = (segment: string): string =>
  encodeURIComponent(segment).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
