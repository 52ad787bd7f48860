/**
 * Node-only: reads the official schemas shipped with the package (`spec/schema/<revision>/schema.json`).
 * Kept apart so that the rest of the checker stays runtime-neutral; the `switchboard/testing` entry
 * may depend on Node.
 */
import { readFile } from 'node:fs/promises';
import { REVISIONS, type Revision } from '../protocol/revisions.js';
import { SchemaCatalog } from './schema-catalog.js';

/** This module sits at `build/src/testing/`; the schemas at the package root. */
const schemaUrl = (revision: Revision) =>
  new URL(`../../../spec/schema/${revision}/schema.json`, import.meta.url);

let shared: Promise<SchemaCatalog> | undefined;

/** The catalog of every revision's schema, read once per process. */
export function loadSchemaCatalog(): Promise<SchemaCatalog> {
  shared ??= readAll().catch((error: unknown) => {
    shared = undefined;
    throw error;
  });
  return shared;
}

async function readAll(): Promise<SchemaCatalog> {
  const entries = await Promise.all(
    REVISIONS.map(async (revision) => {
      const url = schemaUrl(revision);
      try {
        return [revision, JSON.parse(await readFile(url, 'utf8'))] as const;
      } catch (error) {
        throw new Error(
          `Cannot read the JSON Schema of revision ${revision} at ${url.pathname}: ${(error as Error).message}. ` +
            'It ships in the package under spec/schema/; reinstall the package or restore the file.',
          { cause: error },
        );
      }
    }),
  );
  return new SchemaCatalog(Object.fromEntries(entries));
}
