/**
 * Protocol revisions and what each one can carry. Everything that differs between revisions is
 * decided here, by feature flag, so the rest of the code asks "does this revision have X?" instead
 * of comparing date strings.
 */

export const MODERN_REVISIONS = ['2026-07-28'] as const;
export const LEGACY_REVISIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const;
/** Every revision Switchboard speaks, newest first. */
export const REVISIONS = [...MODERN_REVISIONS, ...LEGACY_REVISIONS] as const;

export type ModernRevision = (typeof MODERN_REVISIONS)[number];
export type LegacyRevision = (typeof LEGACY_REVISIONS)[number];
export type Revision = ModernRevision | LegacyRevision;
export type Era = 'legacy' | 'modern';

export const LATEST_REVISION: ModernRevision = '2026-07-28';
export const LATEST_LEGACY_REVISION: LegacyRevision = '2025-11-25';

export const isRevision = (v: unknown): v is Revision => (REVISIONS as readonly unknown[]).includes(v);
export const isModernRevision = (v: unknown): v is ModernRevision =>
  (MODERN_REVISIONS as readonly unknown[]).includes(v);
export const isLegacyRevision = (v: unknown): v is LegacyRevision =>
  (LEGACY_REVISIONS as readonly unknown[]).includes(v);
export const eraOf = (revision: Revision): Era => (isModernRevision(revision) ? 'modern' : 'legacy');

/** What a revision's wire format can carry. */
export interface RevisionFeatures {
  readonly revision: Revision;
  readonly era: Era;
  /** JSON-RPC batches (2025-03-26 only). */
  readonly batching: boolean;
  /** Tool annotations, `audio` content, `completions` capability, progress `message`. */
  readonly annotations: boolean;
  /** `title`, `_meta` on descriptors, `outputSchema`/`structuredContent`, `resource_link`, elicitation, completion `context`, `lastModified`. */
  readonly structured: boolean;
  /** `icons`, `description`/`websiteUrl` on Implementation, sampling tools, URL elicitation, tasks. */
  readonly icons: boolean;
  /** `resultType`, `ttlMs`/`cacheScope`, `extensions`, no handshake. */
  readonly modern: boolean;
  /** Code for a missing resource. */
  readonly resourceNotFoundCode: number;
}

const table: Record<Revision, RevisionFeatures> = Object.create(null);
for (const revision of REVISIONS) {
  const at = (since: Revision) => revision >= since;
  table[revision] = Object.freeze({
    revision,
    era: eraOf(revision),
    batching: revision === '2025-03-26',
    annotations: at('2025-03-26'),
    structured: at('2025-06-18'),
    icons: at('2025-11-25'),
    modern: at('2026-07-28'),
    resourceNotFoundCode: at('2026-07-28') ? -32602 : -32002,
  });
}

export const featuresOf = (revision: Revision): RevisionFeatures => table[revision];
