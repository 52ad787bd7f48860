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
 * verbatim after the prefix, so a template's `{variables}` remain a template. A `skill://` URI
 * keeps its scheme, with the server as the first segment of its skill path
 * (`skill://<server>/<skill-path>/<file-path>`, see {@link SKILL_PREFIX}).
 */
export function exposedUri(namespace: string, uri: string): string {
  if (uri.startsWith(SKILL_PREFIX)) return `${SKILL_PREFIX}${namespace}/${uri.slice(SKILL_PREFIX.length)}`;
  return `${URI_PREFIX}${namespace}/${uri}`;
}

export const URI_PREFIX = 'gateway://';

/**
 * Agent Skills (SEP-2640) are `skill://<skill-path>/<file-path>`, where a skill path's segments
 * before the skill's name are a prefix the server chooses: the gateway, serving every upstream's
 * skills as one server, puts the upstream's name there. The skill's name stays the last segment of
 * its path (as the SEP requires), `SKILL.md` stays explicit, and relative references inside a skill
 * resolve as before; same-URI skills of two upstreams stay apart.
 */
export const SKILL_PREFIX = 'skill://';

/** The server and original URI of a gateway URI, or undefined when it is not one. */
export function parseExposedUri(uri: string): { namespace: string; uri: string } | undefined {
  const skill = uri.startsWith(SKILL_PREFIX);
  if (!skill && !uri.startsWith(URI_PREFIX)) return undefined;
  const start = skill ? SKILL_PREFIX.length : URI_PREFIX.length;
  const slash = uri.indexOf('/', start);
  if (slash === -1) return undefined;
  const namespace = uri.slice(start, slash);
  return { namespace, uri: skill ? `${SKILL_PREFIX}${uri.slice(slash + 1)}` : uri.slice(slash + 1) };
}
