/**
 * `switchboard skills TARGET [--json]`: the server's Agent Skills (the Skills extension's
 * `skills/list`), and what `switchboard read TARGET skill://...` does for a skill's file: read it
 * and verify it against the skill's entry (size, digest, frontmatter), as a host must.
 */
import type { Client } from '../extensions/client.js';
import { SKILLS_EXTENSION, type SkillEntry } from '../extensions/skills/types.js';
import { SwitchboardError } from '../protocol/errors.js';
import type { ReadResourceResult } from '../protocol/types.js';
import { bytesToBase64 } from '../util/base64.js';

const declares = (client: Client) => client.serverCapabilities.extensions?.[SKILLS_EXTENSION] !== undefined;

/** Every listed skill (`[]` when the server does not declare the extension: it has no skills to list). */
export async function listSkills(client: Client): Promise<SkillEntry[]> {
  return declares(client) ? (await client.listSkills()).skills : [];
}

export function renderSkills(skills: readonly SkillEntry[]): string {
  if (skills.length === 0)
    return 'No skills (the server lists none, or does not serve the Skills extension).\n';
  return skills
    .map((skill) => {
      const files = Array.isArray(skill.resources)
        ? `${skill.resources.length} file(s)`
        : 'generated (dynamic)';
      return `${skill.frontmatter.name}  ${skill.uri}  ${files}\n  ${skill.frontmatter.description.trim()}\n`;
    })
    .join('');
}

/**
 * A `skill://` read: verified against the skill's entry when the server declares the extension
 * (its listing, or `skills/get` for an unlisted `SKILL.md`); `undefined` when it cannot be (the
 * caller reads the resource as any other).
 */
export async function readSkillFile(client: Client, uri: string): Promise<ReadResourceResult | undefined> {
  if (!uri.startsWith('skill://') || !declares(client)) return undefined;
  await client.listSkills();
  try {
    const file = await client.readSkillFile(uri);
    const contents =
      file.text !== undefined
        ? { uri, text: file.text, ...(file.mimeType ? { mimeType: file.mimeType } : {}) }
        : { uri, blob: bytesToBase64(file.bytes), ...(file.mimeType ? { mimeType: file.mimeType } : {}) };
    return { contents: [contents] };
  } catch (error) {
    // No held entry lists it (a file of an unlisted skill): read it as a plain resource.
    if (error instanceof SwitchboardError && error.code === 'CONFIG') return undefined;
    throw error;
  }
}
