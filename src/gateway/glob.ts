/**
 * The globs of gateway configs (`include`, `exclude`, `gateway.access`, `gateway.rateLimits`): `*`
 * is any run of characters (`/` too: `gateway://files/*` covers every depth), `?` one character;
 * everything else stands for itself.
 */
const SPECIALS = /[.+^${}()|[\]\\]/g;

export function glob(pattern: string): RegExp {
  return new RegExp(`^${pattern.replace(SPECIALS, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`, 's');
}

/** The part of a glob before its first wildcard: every name it matches starts with it. */
export function literalPrefix(pattern: string): string {
  const wildcard = pattern.search(/[*?]/);
  return wildcard === -1 ? pattern : pattern.slice(0, wildcard);
}
