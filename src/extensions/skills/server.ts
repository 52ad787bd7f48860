/**
 * What `Server.registerSkills` and `Server.registerSkill` do: turn a directory (or one skill's
 * files, from disk or memory) into a checked {@link SkillSet} and hand it to the plugin, with a
 * watch when asked for.
 */
import { SwitchboardError } from '../../protocol/errors.js';
import { baseName, onDisk, readTree, resolveDirectory, watchTree } from './directory.js';
import type { SkillsPlugin, SkillsRegistration } from './plugin.js';
import { SkillSet, type SkillTreeFile } from './skill-set.js';

export interface SkillsOptions {
  /** Skill-path segments above the skills (`acme/billing` serves `skill://acme/billing/<name>/...`). */
  prefix?: string;
  /**
   * Watch the directory (Node's recursive `fs.watch`) and serve what it holds after each change: a
   * skill added, removed or edited changes `skills/list` and the resources (`list_changed`; an edited
   * file's subscribers get `resources/updated`). A change that breaks a `SKILL.md` is reported
   * (the server's logger) and the last good skills stay served.
   */
  watch?: boolean;
}

/** One skill held in memory: its name (the skill directory's) and its files by path (`SKILL.md` among them). */
export interface InlineSkill {
  name: string;
  files: Record<string, string | Uint8Array>;
}

const encoder = new TextEncoder();

/** Every skill under `directory` (each subdirectory with a SKILL.md, nested ones too). */
export function registerSkillsDirectory(
  plugin: SkillsPlugin,
  directory: string | URL,
  options: SkillsOptions = {},
): SkillsRegistration {
  const root = resolveDirectory(directory);
  const load = () => {
    const set = new SkillSet(readTree(root), { prefix: options.prefix, describe: (p) => onDisk(root, p) });
    if (set.paths.length === 0) {
      throw new SwitchboardError(
        'CONFIG',
        `${root} holds no skill: a skill is a subdirectory with a SKILL.md (e.g. ${onDisk(root, 'my-skill/SKILL.md')}).`,
      );
    }
    return set;
  };
  return plugin.add(load, options.watch ? watchTree(root) : undefined);
}

/** One skill: a directory whose SKILL.md is at its top, or an {@link InlineSkill}. */
export function registerOneSkill(
  plugin: SkillsPlugin,
  skill: string | URL | InlineSkill,
  options: SkillsOptions = {},
): SkillsRegistration {
  if (typeof skill === 'string' || skill instanceof URL) {
    const dir = resolveDirectory(skill);
    const name = baseName(dir);
    const load = () =>
      checkOne(
        new SkillSet(readTree(dir, name), {
          prefix: options.prefix,
          describe: (p) => onDisk(dir, p.slice(name.length + 1)),
        }),
        onDisk(dir, 'SKILL.md'),
        name,
        options.prefix,
      );
    return plugin.add(load, options.watch ? watchTree(dir) : undefined);
  }
  if (options.watch)
    throw new SwitchboardError('CONFIG', 'watch applies to skills on disk, not to an InlineSkill.');
  if (typeof skill?.name !== 'string' || typeof skill.files !== 'object' || skill.files === null) {
    throw new SwitchboardError(
      'CONFIG',
      'registerSkill() takes a directory, or { name, files: { "SKILL.md": text, "references/x.md": text or bytes } }.',
    );
  }
  const files: SkillTreeFile[] = Object.entries(skill.files).map(([path, content]) => ({
    path: `${skill.name}/${path.replace(/^\/+/, '')}`,
    bytes: typeof content === 'string' ? encoder.encode(content) : content,
  }));
  const set = checkOne(
    new SkillSet(files, { prefix: options.prefix }),
    `${skill.name}/SKILL.md`,
    skill.name,
    options.prefix,
  );
  return plugin.add(() => set);
}

/** A one-skill registration must have its SKILL.md at the top of the skill's directory. */
function checkOne(set: SkillSet, file: string, name: string, prefix: string | undefined): SkillSet {
  const trimmed = prefix?.replace(/^\/+|\/+$/g, '');
  if (!set.paths.includes(trimmed ? `${trimmed}/${name}` : name)) {
    throw new SwitchboardError(
      'CONFIG',
      `${file} is missing: a skill's directory holds a SKILL.md at its top.`,
    );
  }
  return set;
}
