/**
 * The names the gateway shows: `<server><separator><name>` within the rule clients enforce
 * (`^[a-zA-Z0-9_-]{1,64}$`). A name that breaks the rule (an upstream tool called `fs:read`, or one
 * too long) is cleaned and given a stable hash suffix of the original, so two names that clean up
 * alike still differ and the same tool gets the same name on every start.
 */

export const MAX_NAME_LENGTH = 64;
const ALLOWED = /^[A-Za-z0-9_-]+$/;
const HASH_LENGTH = 6;

/** FNV-1a (32 bits) of the UTF-16 text, in base 36: stable, short, not a secret. */
export function shortHash(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(36).padStart(HASH_LENGTH, '0').slice(-HASH_LENGTH);
}

/** The downstream name of upstream item `name` of server `namespace`. */
export function exposedName(namespace: string, separator: string, name: string): string {
  const whole = `${namespace}${separator}${name}`;
  if (ALLOWED.test(name) && whole.length <= MAX_NAME_LENGTH) return whole;
  return withSuffix(`${namespace}${separator}${name.replace(/[^A-Za-z0-9_-]/g, '_')}`, name);
}

/** `base` cut to fit, then `_<hash of key>`. */
export function withSuffix(base: string, key: string): string {
  const suffix = `_${shortHash(key)}`;
  return `${base.slice(0, MAX_NAME_LENGTH - suffix.length)}${suffix}`;
}

/**
 * Resource URIs (and templates) as the gateway shows them: `gateway://<server>/<original>`, so a
 * read routes back to its server and two servers' `file:///a` stay apart. The original is kept
 * verbatim after the prefix, so a template's `{variables}` remain a template. Two schemes are kept,
 * the server going first in the path: an MCP Apps view (`ui://...`), since a `ui://` URI is all
 * hosts render (`ui://<server>/<rest>`), and an Agent Skill's file (`skill://<server>/<skill-path>/...`,
 * see {@link SKILL_PREFIX}).
 */
export function exposedUri(namespace: string, uri: string): string {
  const kept = keptScheme(uri);
  if (kept !== undefined) return `${kept}${namespace}/${uri.slice(kept.length)}`;
  return `${URI_PREFIX}${namespace}/${uri}`;
}

export const URI_PREFIX = 'gateway://';
/** The scheme of MCP Apps views: kept downstream (the Apps specification requires it). */
export const APP_URI_PREFIX = 'ui://';
/**
 * Agent Skills (SEP-2640) are `skill://<skill-path>/<file-path>`, where a skill path's segments
 * before the skill's name are a prefix the server chooses: the gateway, serving every upstream's
 * skills as one server, puts the upstream's name there. The skill's name stays the last segment of
 * its path (as the SEP requires), `SKILL.md` stays explicit, and relative references inside a skill
 * resolve as before; same-URI skills of two upstreams stay apart.
 */
export const SKILL_PREFIX = 'skill://';

function keptScheme(uri: string): string | undefined {
  return uri.startsWith(APP_URI_PREFIX)
    ? APP_URI_PREFIX
    : uri.startsWith(SKILL_PREFIX)
      ? SKILL_PREFIX
      : undefined;
}

/** The server and original URI of a gateway URI (or a mapped `ui://` or `skill://` one), or undefined when it is not one. */
export function parseExposedUri(uri: string): { namespace: string; uri: string } | undefined {
  const prefix = uri.startsWith(URI_PREFIX) ? URI_PREFIX : keptScheme(uri);
  if (prefix === undefined) return undefined;
  const slash = uri.indexOf('/', prefix.length);
  if (slash === -1) return undefined;
  const rest = uri.slice(slash + 1);
  return {
    namespace: uri.slice(prefix.length, slash),
    uri: prefix === URI_PREFIX ? rest : `${prefix}${rest}`,
  };
}
