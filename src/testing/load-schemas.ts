/**
 * Node-only: reads the official schemas shipped with the package (`spec/schema/<revision>/schema.json`,
 * the tasks extension's `spec/extensions/tasks/schema.json`, merged into 2026-07-28: see
 * `tasks-schema.ts`; the Skills extension's `spec/extensions/skills/schema.json`, merged into every
 * revision: see `skills-schema.ts`). Kept apart so that the rest of the checker stays runtime-neutral; the
 * `switchboard/testing` entry may depend on Node.
 */
import { readFile } from 'node:fs/promises';
import { MODERN_REVISIONS, REVISIONS } from '../protocol/revisions.js';
import { packageFile } from '../util/package-file.js';
import { SchemaCatalog } from './schema-catalog.js';
import { withSkillsExtension } from './skills-schema.js';
import { withTasksExtension } from './tasks-schema.js';

const specUrl = (path: string) => packageFile(`spec/${path}`);

let shared: Promise<SchemaCatalog> | undefined;

/** The catalog of every revision's schema, read once per process. */
export function loadSchemaCatalog(): Promise<SchemaCatalog> {
  shared ??= readAll().catch((error: unknown) => {
    shared = undefined;
    throw error;
  });
  return shared;
}

async function readSchema(path: string, what: string): Promise<unknown> {
  const url = specUrl(path);
  try {
    return JSON.parse(await readFile(url, 'utf8'));
  } catch (error) {
    throw new Error(
      `Cannot read the JSON Schema of ${what} at ${url.pathname}: ${(error as Error).message}. ` +
        'It ships in the package under spec/; reinstall the package or restore the file.',
      { cause: error },
    );
  }
}

async function readAll(): Promise<SchemaCatalog> {
  const [tasks, skills, ...documents] = await Promise.all([
    readSchema('extensions/tasks/schema.json', 'the tasks extension'),
    readSchema('extensions/skills/schema.json', 'the Skills extension'),
    ...REVISIONS.map((revision) => readSchema(`schema/${revision}/schema.json`, `revision ${revision}`)),
  ]);
  const entries = REVISIONS.map((revision, i) => {
    // SEP-2640 negotiates the Skills extension in legacy initialize too: every revision has it.
    const document = withSkillsExtension(documents[i], skills);
    // The extensions a modern peer may negotiate are part of what its messages may say.
    return [
      revision,
      (MODERN_REVISIONS as readonly string[]).includes(revision)
        ? withTasksExtension(document, tasks)
        : document,
    ] as const;
  });
  return new SchemaCatalog(Object.fromEntries(entries));
}
