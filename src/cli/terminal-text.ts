/**
 * Text from a server, made safe for a terminal. A server controls tool titles, descriptions,
 * results, error messages and its stderr; printed as they are, escape sequences in them could set
 * the window title, clear the screen, write to the clipboard (OSC 52) or reorder what the user reads
 * (bidi overrides). Every control character but newline and tab is shown as a visible escape
 * instead: `\x1b`, `\x9b`, `\u202e`. `--json` output is left as the server sent it.
 */

/** C0 controls but tab and newline, DEL, C1 controls, and the bidi embedding/override/isolate marks. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;
const CONTROLS = new RegExp(CONTROL.source, 'g');

export function escapeControls(text: string): string {
  if (!CONTROL.test(text)) return text;
  // A Windows line end is a line end, not a carriage return to show.
  return text.replace(/\r\n/g, '\n').replace(CONTROLS, (c) => {
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16)}`;
  });
}
