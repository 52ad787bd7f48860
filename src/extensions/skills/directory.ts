/**
 * Skills from the file system: a directory read into a {@link SkillTreeFile} list, and watched.
 * The core runs on any runtime, so this reaches `node:fs` and `node:path` through
 * `process.getBuiltinModule` (Node >= 20.16, Deno, Bun) instead of importing them: the bundles of
 * the runtime-neutral entry points import no `node:` module. Elsewhere, register skills from memory
 * (`registerSkill({ name, files })`).
 *
 * Only regular files and directories are read: symbolic links are skipped (a link could reach
 * outside the skill), and so are dot-files and dot-directories (`.git`, `.DS_Store`).
 */
import { SwitchboardError } from '../../protocol/errors.js';
import type { SkillWatch } from './plugin.js';
import type { SkillTreeFile } from './skill-set.js';

type Fs = typeof import('node:fs');
type Path = typeof import('node:path');
type Url = typeof import('node:url');

function builtin<T>(name: string): T {
  const get = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process
    ?.getBuiltinModule;
  const module = get?.(name) as T | undefined;
  if (!module) {
    throw new SwitchboardError(
      'CONFIG',
      `Reading skills from a directory needs ${name} (Node 20.16 or later, Deno or Bun); on this runtime register each skill from memory: server.registerSkill({ name, files: { "SKILL.md": text, ... } }).`,
    );
  }
  return module;
}

/** A directory given as a path or a `file:` URL, made absolute. */
export function resolveDirectory(directory: string | URL): string {
  const path = builtin<Path>('node:path');
  const url = builtin<Url>('node:url');
  const dir = directory instanceof URL ? url.fileURLToPath(directory) : directory;
  const absolute = path.resolve(dir);
  const fs = builtin<Fs>('node:fs');
  let stat: import('node:fs').Stats;
  try {
    stat = fs.statSync(absolute);
  } catch {
    throw new SwitchboardError('CONFIG', `The skills directory ${absolute} does not exist.`);
  }
  if (!stat.isDirectory()) throw new SwitchboardError('CONFIG', `${absolute} is not a directory of skills.`);
  return absolute;
}

/** Every file under `root` (paths relative to it, `/`-separated), with its bytes as read now. */
export function readTree(root: string, under = ''): SkillTreeFile[] {
  const fs = builtin<Fs>('node:fs');
  const path = builtin<Path>('node:path');
  const files: SkillTreeFile[] = [];
  const walk = (dir: string, rel: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (entry.name.startsWith('.')) continue;
      const childRel = rel ? `${rel}/${entry.name}` : entry.name;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full, childRel);
      else if (entry.isFile()) files.push({ path: childRel, bytes: new Uint8Array(fs.readFileSync(full)) });
    }
  };
  walk(root, '');
  return under ? files.map((f) => ({ path: `${under}/${f.path}`, bytes: f.bytes })) : files;
}

/** `/a/b/refunds` → `refunds`. */
export const baseName = (directory: string): string => builtin<Path>('node:path').basename(directory);

/** `root/rel` as the file system names it, for errors. */
export const onDisk = (root: string, rel: string): string => builtin<Path>('node:path').join(root, rel);

/**
 * Watches `root` and everything under it (`fs.watch`, recursive), calling `changed` once a burst of
 * events has been quiet for `settleMs` (an editor's save is several events).
 */
export function watchTree(root: string, settleMs = 100): SkillWatch {
  return (changed) => {
    const fs = builtin<Fs>('node:fs');
    let timer: ReturnType<typeof setTimeout> | undefined;
    const watcher = fs.watch(root, { recursive: true }, () => {
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => {
        timer = undefined;
        changed();
      }, settleMs);
    });
    watcher.on('error', () => {}); // the directory went away: keep serving the last set
    return () => {
      if (timer) clearTimeout(timer);
      watcher.close();
    };
  };
}
