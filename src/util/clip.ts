/**
 * Peer text echoed in an error message is cut to a readable length: a 1 MB method name or session id
 * must not come back as a 1 MB message (nor fill a log).
 */

/** The first `max` UTF-16 units of `text`, never ending on half a surrogate pair. */
export function headOf(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = text.slice(0, max);
  const last = head.charCodeAt(head.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? head.slice(0, -1) : head;
}

/** `text`, or its first `max` characters followed by `... (N characters)`. */
export function clip(text: string, max = 100): string {
  return text.length <= max ? text : `${headOf(text, max)}... (${text.length} characters)`;
}

/** A one-line JSON rendering of `value` (String() when it is no JSON), cut to `max` characters with `…`. */
export function jsonPreview(value: unknown, max: number): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > max ? `${headOf(text, max)}…` : text;
}
