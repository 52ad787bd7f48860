/**
 * The client side of the Skills extension: the entries a client holds (from `skills/list` and
 * `skills/get`) and the verification a host owes a skill file before using it (SEP-2640, Integrity
 * and Verification): the file is listed in the held entry, its size and SHA-256 digest match, and a
 * `SKILL.md`'s frontmatter equals the entry's field by field. `Client` (extensions/client.ts) calls
 * these; they are exported for hosts that fetch content their own way.
 */
import { SwitchboardError } from '../../protocol/errors.js';
import type { ReadResourceResult } from '../../protocol/types.js';
import { base64ToBytes } from '../../util/base64.js';
import { isPlainObject } from '../../util/guards.js';
import { parseFrontmatter } from './frontmatter.js';
import { sha256 } from './skill-set.js';
import { DYNAMIC_RESOURCES, type SkillEntry } from './types.js';

/** A skill file read and verified against the entry that lists it. */
export interface VerifiedSkillFile {
  uri: string;
  mimeType?: string;
  /** The content as text, when the server sent text. */
  text?: string;
  bytes: Uint8Array;
  /** The entry it was verified against. */
  entry: SkillEntry;
}

const encoder = new TextEncoder();

const failed = (uri: string, problem: string) =>
  new SwitchboardError(
    'INVALID_RESULT',
    `${uri} failed verification: ${problem}. Do not use it; refresh the entry with getSkill() (the skill may have changed since it was listed) and read again.`,
  );

/**
 * The held entry a read of `uri` resolves to: the deepest skill whose `resources` list it (a nested
 * skill's file is in its enclosing skill's entry too).
 */
export function entryFor(entries: Iterable<SkillEntry>, uri: string): SkillEntry | undefined {
  let best: SkillEntry | undefined;
  for (const entry of entries) {
    if (!Array.isArray(entry.resources) || !entry.resources.some((r) => r.uri === uri)) continue;
    if (!best || entry.uri.length > best.uri.length) best = entry;
  }
  return best;
}

/** Checks a `resources/read` result of `uri` against `entry`; returns the file, or throws naming the mismatch. */
export async function verifySkillFile(
  entry: SkillEntry,
  uri: string,
  result: ReadResourceResult,
): Promise<VerifiedSkillFile> {
  const content = result.contents.find((c) => c.uri === uri) ?? result.contents[0];
  if (!content) throw failed(uri, 'the server sent no content');
  const text = 'text' in content && typeof content.text === 'string' ? content.text : undefined;
  const blob = 'blob' in content && typeof content.blob === 'string' ? content.blob : undefined;
  const bytes =
    text !== undefined ? encoder.encode(text) : blob !== undefined ? base64ToBytes(blob) : undefined;
  if (!bytes) throw failed(uri, 'the content has neither text nor blob');
  if (entry.resources !== DYNAMIC_RESOURCES) {
    const listed = entry.resources.find((r) => r.uri === uri);
    if (!listed) throw failed(uri, `the entry of ${entry.uri} does not list it`);
    if (bytes.byteLength !== listed.size) {
      throw failed(uri, `${bytes.byteLength} bytes arrived, the entry says ${listed.size}`);
    }
    const digest = await sha256(bytes);
    if (digest !== listed.digest)
      throw failed(uri, `its digest is ${digest}, the entry says ${listed.digest}`);
  }
  if (uri === entry.uri) {
    if (text === undefined) throw failed(uri, 'a SKILL.md must arrive as text');
    let frontmatter: Record<string, unknown>;
    try {
      frontmatter = parseFrontmatter(text, uri);
    } catch (error) {
      throw failed(uri, (error as Error).message);
    }
    const differs = [...new Set([...Object.keys(frontmatter), ...Object.keys(entry.frontmatter)])].filter(
      (key) => !sameJson(frontmatter[key], entry.frontmatter[key]),
    );
    if (differs.length > 0) {
      throw failed(
        uri,
        `its frontmatter differs from the entry's in ${differs.map((k) => JSON.stringify(k)).join(', ')}`,
      );
    }
  }
  const file: VerifiedSkillFile = { uri, bytes, entry };
  if (content.mimeType !== undefined) file.mimeType = content.mimeType;
  if (text !== undefined) file.text = text;
  return file;
}

function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a))
    return Array.isArray(b) && a.length === b.length && a.every((x, i) => sameJson(x, b[i]));
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => k in b && sameJson(a[k], b[k]));
  }
  return false;
}
