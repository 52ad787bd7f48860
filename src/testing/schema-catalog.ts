/**
 * The official JSON Schema of every revision, prepared on first use and shared by every checker.
 *
 * Preparing a revision (deriving the strict variant, dereferencing) takes a few milliseconds, so it
 * happens once per revision and variant; checkers are then cheap enough to create one per connection.
 * The documents themselves come from the caller: `loadSchemaCatalog()` (Node) reads the copies that
 * ship in the package under `spec/schema/<revision>/schema.json`.
 */
import type { Revision } from '../protocol/revisions.js';
import { RevisionSchema } from './revision-schema.js';

export class SchemaCatalog {
  private readonly documents: ReadonlyMap<Revision, unknown>;
  private readonly prepared = new Map<string, RevisionSchema>();

  /** `documents`: each revision's parsed `schema.json`. */
  constructor(documents: Partial<Record<Revision, unknown>>) {
    this.documents = new Map(Object.entries(documents) as [Revision, unknown][]);
  }

  /** The revisions this catalog can check. */
  get revisions(): Revision[] {
    return [...this.documents.keys()];
  }

  /** The prepared schema of `revision`, strict (see `strict-schema.ts`) or as published. */
  revision(revision: Revision, strict: boolean): RevisionSchema {
    const key = `${revision}${strict ? ':strict' : ':official'}`;
    let schema = this.prepared.get(key);
    if (schema === undefined) {
      const document = this.documents.get(revision);
      if (document === undefined) {
        throw new Error(
          `No JSON Schema for revision ${revision} in this catalog; it has ${this.revisions.join(', ') || 'none'}`,
        );
      }
      schema = new RevisionSchema(revision, document, strict);
      this.prepared.set(key, schema);
    }
    return schema;
  }
}
