/**
 * Keyset pagination over a list kept in a deterministic order (sorted by key). A cursor names the
 * last key of the previous page, so pages stay consistent while items are added or removed between
 * calls, and any string a client invents either decodes to "start after this key" or is rejected
 * with -32602 — it can never index out of range.
 */
import { invalidParams } from '../protocol/errors.js';
import { base64UrlToBytes, bytesToBase64Url } from '../util/base64.js';

const PREFIX = 'c1.';
const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

export const encodeCursor = (lastKey: string): string => PREFIX + bytesToBase64Url(encoder.encode(lastKey));

export function decodeCursor(cursor: string): string {
  if (cursor.startsWith(PREFIX) && /^[A-Za-z0-9_-]*$/.test(cursor.slice(PREFIX.length))) {
    try {
      return decoder.decode(base64UrlToBytes(cursor.slice(PREFIX.length)));
    } catch {
      // fall through to the error below
    }
  }
  throw invalidParams(
    `Invalid cursor ${JSON.stringify(cursor.length > 64 ? `${cursor.slice(0, 64)}…` : cursor)}: ` +
      'pass back a nextCursor exactly as the server returned it, or omit the cursor to start over.',
  );
}

/** Index of the first key strictly greater than `key` in the sorted `keys`. */
function firstAfter(keys: readonly string[], key: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid]! <= key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export interface Page<T> {
  items: T[];
  nextCursor?: string;
}

/** One page of `items` (sorted by `keys`, same length) after `cursor`. */
export function paginate<T>(
  items: readonly T[],
  keys: readonly string[],
  cursor: string | undefined,
  pageSize: number,
): Page<T> {
  const start = cursor === undefined ? 0 : firstAfter(keys, decodeCursor(cursor));
  const end = Math.min(items.length, start + pageSize);
  const page: Page<T> = { items: items.slice(start, end) };
  if (end < items.length) page.nextCursor = encodeCursor(keys[end - 1]!);
  return page;
}

/** Code-unit order: deterministic and cheap, the same everywhere. */
export const compareKeys = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
