/**
 * A set of skills held in memory: the files of one registration (`registerSkills(directory)`, or
 * one skill), checked when the set is made, with each skill's entry (frontmatter verbatim, every
 * file with its digest and size), its files as resources and its directories. Served from the bytes
 * read at registration, so what a host reads always matches the digests it was given.
 *
 * Paths are relative to the set's namespace root, `/`-separated. Every directory holding a
 * `SKILL.md` is a skill; the directories above it are its organizational prefix. A skill inside
 * another is a skill of its own (listed flat) and, for the enclosing skill, supporting files: its
 * files are in both entries' `resources`, as the specification says.
 */
import { SwitchboardError } from '../../protocol/errors.js';
import type { JsonObject, Resource } from '../../protocol/types.js';
import { readSkillFrontmatter, SkillFileError } from './frontmatter.js';
import { isTextType, mimeTypeOf } from './mime.js';
import {
  DIRECTORY_MIME_TYPE,
  MAX_BYTES_PER_SKILL,
  MAX_RESOURCES_PER_SKILL,
  type SkillEntry,
  skillUri,
} from './types.js';

/** One file of a set: its path under the namespace root and its bytes. */
export interface SkillTreeFile {
  readonly path: string;
  readonly bytes: Uint8Array;
}

export interface SkillSetOptions {
  /** Skill-path segments above every skill of the set (`acme/billing`); none by default. */
  readonly prefix?: string;
  /** How errors name a file of the set (its path on disk, say); the path itself by default. */
  readonly describe?: (path: string) => string;
}

/** A file as it is served: its URI, type, bytes, and its text when it is served as text. */
export interface ServedFile {
  readonly uri: string;
  /** The file's path within the outermost skill that holds it, as its resource name. */
  readonly name: string;
  readonly mimeType: string;
  readonly bytes: Uint8Array;
  readonly text: string | undefined;
}

interface Skill {
  readonly path: string;
  readonly uri: string;
  readonly frontmatter: JsonObject;
  /** Paths (under the namespace root) of its files, sorted. */
  readonly files: readonly string[];
}

// ignoreBOM: a byte order mark stays in the text, so the text encodes back to the digested bytes.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export class SkillSet {
  readonly #skills: Skill[];
  readonly #prefix: string;
  readonly #files = new Map<string, ServedFile>();
  /** Directory URI → its children (files and subdirectories), sorted by URI. */
  readonly #directories = new Map<string, Resource[]>();
  #entries: Promise<SkillEntry[]> | undefined;

  /** Checks every `SKILL.md` (a {@link SkillFileError} names the first broken one) and indexes the files. */
  constructor(files: readonly SkillTreeFile[], options: SkillSetOptions = {}) {
    const describe = options.describe ?? ((path: string) => path);
    const prefix = normalizePrefix(options.prefix);
    this.#prefix = prefix;
    const sorted = [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    const skillDirs = sorted.filter((f) => isSkillFile(f.path)).map((f) => dirOf(f.path));
    if (skillDirs.includes('')) {
      throw new SkillFileError(
        describe('SKILL.md'),
        'name-directory',
        'a SKILL.md at the top of a skills directory makes that directory one skill: register it with registerSkill(directory), or move the skill into a subdirectory named after it',
      );
    }
    const texts = new Map<string, Uint8Array>(sorted.map((f) => [f.path, f.bytes]));
    this.#skills = skillDirs.map((dir) => {
      const file = `${dir}/SKILL.md`;
      const text = decodeText(texts.get(file)!, describe(file));
      const frontmatter = readSkillFrontmatter(text, describe(file), dir.slice(dir.lastIndexOf('/') + 1));
      const path = prefix ? `${prefix}/${dir}` : dir;
      return {
        path,
        uri: skillUri(`${path}/SKILL.md`),
        frontmatter,
        files: sorted.filter((f) => f.path.startsWith(`${dir}/`)).map((f) => f.path),
      };
    });
    for (const skill of this.#skills) {
      if (skill.files.length > MAX_RESOURCES_PER_SKILL) {
        throw new SwitchboardError(
          'CONFIG',
          `The skill ${skill.path} has ${skill.files.length} files; hosts need accept only ${MAX_RESOURCES_PER_SKILL} per skill (SKILL.md and nested skills included). Split it.`,
        );
      }
      const bytes = skill.files.reduce((sum, f) => sum + texts.get(f)!.byteLength, 0);
      if (bytes > MAX_BYTES_PER_SKILL) {
        throw new SwitchboardError(
          'CONFIG',
          `The skill ${skill.path} holds ${bytes} bytes; hosts need accept only ${MAX_BYTES_PER_SKILL} (16 MiB) per skill. Move large files out of it.`,
        );
      }
    }
    const outermost = (path: string) =>
      this.#skills.find((s) => path.startsWith(`${relativeDir(s, prefix)}/`));
    for (const file of sorted) {
      const owner = outermost(file.path);
      if (!owner) continue; // outside every skill: not served
      const full = prefix ? `${prefix}/${file.path}` : file.path;
      const mimeType = mimeTypeOf(file.path);
      const served: ServedFile = {
        uri: skillUri(full),
        name: file.path.slice(relativeDir(owner, prefix).length + 1),
        mimeType,
        bytes: file.bytes,
        text: isTextType(mimeType) ? tryText(file.bytes) : undefined,
      };
      this.#files.set(served.uri, served);
      this.#index(full, served);
    }
  }

  /** The skill paths of the set (`acme/billing/refunds`), sorted. */
  get paths(): string[] {
    return this.#skills.map((s) => s.path);
  }

  /** The files served as resources, by URI. */
  get files(): ReadonlyMap<string, ServedFile> {
    return this.#files;
  }

  /** The skills' `SKILL.md` URIs with their frontmatter (no digests: those are {@link entries}). */
  get skills(): { uri: string; frontmatter: JsonObject }[] {
    return this.#skills.map(({ uri, frontmatter }) => ({ uri, frontmatter }));
  }

  /** Every skill's entry, sorted by URI (the digests are computed once, on first use). */
  entries(): Promise<SkillEntry[]> {
    this.#entries ??= Promise.all(this.#skills.map((s) => this.#entry(s)));
    return this.#entries;
  }

  /** The children of a directory of the set, or undefined when the URI is no directory of it. */
  directory(uri: string): readonly Resource[] | undefined {
    return this.#directories.get(uri);
  }

  async #entry(skill: Skill): Promise<SkillEntry> {
    const resources = await Promise.all(
      skill.files.map(async (path) => {
        const file = this.#files.get(skillUri(this.#prefix ? `${this.#prefix}/${path}` : path))!;
        return { uri: file.uri, digest: await sha256(file.bytes), size: file.bytes.byteLength };
      }),
    );
    return { uri: skill.uri, frontmatter: skill.frontmatter as SkillEntry['frontmatter'], resources };
  }

  /** Lists `file` under each directory above it, up to the namespace's first segment. */
  #index(path: string, file: ServedFile): void {
    const segments = path.split('/');
    let child: Resource = {
      uri: file.uri,
      name: segments.at(-1)!,
      mimeType: file.mimeType,
      size: file.bytes.byteLength,
    };
    for (let depth = segments.length - 1; depth >= 1; depth--) {
      const dir = skillUri(segments.slice(0, depth).join('/'));
      let children = this.#directories.get(dir);
      const known = children !== undefined;
      if (!children) {
        children = [];
        this.#directories.set(dir, children);
      }
      if (!children.some((c) => c.uri === child.uri)) {
        children.push(child);
        children.sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0));
      }
      if (known) return; // its ancestors list it already
      child = { uri: dir, name: segments[depth - 1]!, mimeType: DIRECTORY_MIME_TYPE };
    }
  }
}

const isSkillFile = (path: string) => path === 'SKILL.md' || path.endsWith('/SKILL.md');
const dirOf = (path: string) => (path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '');

/** The skill's directory relative to the namespace root (its path without the set's prefix). */
function relativeDir(skill: Skill, prefix: string): string {
  return prefix ? skill.path.slice(prefix.length + 1) : skill.path;
}

function normalizePrefix(prefix: string | undefined): string {
  if (prefix === undefined) return '';
  const trimmed = prefix.replace(/^\/+|\/+$/g, '');
  if (trimmed.split('/').some((s) => s.length === 0 || s === '.' || s === '..')) {
    throw new SwitchboardError(
      'CONFIG',
      `The skills prefix ${JSON.stringify(prefix)} must be /-separated path segments, none empty, "." or "..": e.g. "acme/billing".`,
    );
  }
  return trimmed;
}

function decodeText(bytes: Uint8Array, file: string): string {
  const text = tryText(bytes);
  if (text === undefined) throw new SkillFileError(file, 'frontmatter', 'is not UTF-8 text');
  return text;
}

function tryText(bytes: Uint8Array): string | undefined {
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}

/** `sha256:<64 lowercase hex>` of the bytes (Web Crypto). */
export async function sha256(bytes: Uint8Array): Promise<string> {
  const hash = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
  let hex = '';
  for (const b of hash) hex += b.toString(16).padStart(2, '0');
  return `sha256:${hex}`;
}
