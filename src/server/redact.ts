/**
 * Redaction of log messages (`ctx.log`), so secrets never reach a client's log view. The spec says
 * log messages MUST NOT contain credentials or secrets; a handler that logs a request object or a
 * config blob would leak them without noticing. Every message passes through the server's `redact`
 * option, and the default, {@link redactSecrets}, masks:
 * - the value of any key that names a secret: after lower-casing and dropping `-`/`_`, a key that
 *   is or ends with `password`, `passwd`, `secret`, `token`, `apikey`, `authorization`, `cookie`,
 *   `privatekey`, `credential(s)` or `sessionid` (so `dbPassword`, `x-api-key`, `accessToken`,
 *   `set-cookie`, `clientSecret`; but not `maxTokens` or `tokenCount`);
 * - inside strings (a process's stderr, an error message): bearer credentials (`Bearer abc...`
 *   becomes `Bearer [REDACTED]`) and the value after a secret-naming key written as text
 *   (`API_KEY=sk-1`, `password: hunter2`, `"token":"abc"` keep the key and lose the value).
 * Errors become `{ name, message }` (their own JSON is `{}`). Input is never mutated; cycles and
 * very deep nesting are cut.
 */
import type { LoggingLevel } from '../protocol/types.js';

/** Rewrites a log message's data before it is sent; return what may be shown to the client. */
export type RedactFn = (data: unknown, level: LoggingLevel, logger: string | undefined) => unknown;

export const REDACTED = '[REDACTED]';

const SECRET_KEY =
  /(?:password|passwd|secret|token|apikey|authorization|cookie|privatekey|credentials?|sessionid)$/;
const BEARER = /\b(Bearer|Basic)\s+[A-Za-z0-9\-._~+/]+=*/gi;
/**
 * `key=value`, `key: value`, `"key": "value"` in text, for a key that ends like a secret-naming one
 * (confirmed by {@link isSecretKey}): the key (word characters, `-`, `.`, optionally quoted), `=` or
 * `:`, and the value (quoted, or up to a space, comma, `;` or `&`). Only such keys are matched, so a
 * value is never taken for another key's (`note: API_KEY=...`). A key starts only after a character
 * that cannot be in one, so a long word is scanned once, not once per character.
 */
const KEY_VALUE =
  /(?<![A-Za-z0-9_.-])(["']?)([A-Za-z0-9_.-]*?(?:pass[-_]?(?:word|wd)|secret|token|api[-_]?key|authorization|cookie|private[-_]?key|credentials?|session[-_]?id))\1(\s*[:=]\s*)("[^"\n]*"|'[^'\n]*'|[^\s"',;&]+)/gi;
const MAX_DEPTH = 32;

export const isSecretKey = (key: string): boolean => SECRET_KEY.test(key.toLowerCase().replace(/[-_]/g, ''));

/** Text with the string rules applied: bearer credentials and values after secret-naming keys masked. */
export function redactText(text: string): string {
  const masked = text.replace(BEARER, `$1 ${REDACTED}`);
  if (!masked.includes('=') && !masked.includes(':')) return masked;
  return masked.replace(KEY_VALUE, (match, quote: string, key: string, between: string, value: string) =>
    // `Authorization: Bearer [REDACTED]`: the bearer rule already masked what follows.
    isSecretKey(key.slice(key.lastIndexOf('.') + 1)) && !/^(?:Bearer|Basic)$/i.test(value)
      ? `${quote}${key}${quote}${between}${quoted(value, REDACTED)}`
      : match,
  );
}

/** `replacement` in the quotes `value` had, if any. */
const quoted = (value: string, replacement: string): string =>
  value[0] === '"' || value[0] === "'" ? `${value[0]}${replacement}${value[0]}` : replacement;

/** The default {@link RedactFn}: masks values under secret-looking keys and bearer credentials. */
export function redactSecrets(data: unknown): unknown {
  return walk(data, 0, new WeakSet());
}

function walk(value: unknown, depth: number, seen: WeakSet<object>): unknown {
  if (typeof value === 'string') return redactText(value);
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= MAX_DEPTH || seen.has(value)) return '[…]';
  seen.add(value);
  try {
    if (value instanceof Error) {
      return { name: value.name, message: walk(value.message, depth + 1, seen) };
    }
    if (Array.isArray(value)) return value.map((v) => walk(v, depth + 1, seen));
    const source =
      typeof (value as { toJSON?: unknown }).toJSON === 'function'
        ? (value as { toJSON(): unknown }).toJSON()
        : value;
    if (typeof source !== 'object' || source === null) return walk(source, depth + 1, seen);
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(source)) {
      out[key] = isSecretKey(key) && v !== undefined && v !== null ? REDACTED : walk(v, depth + 1, seen);
    }
    return out;
  } finally {
    seen.delete(value);
  }
}
