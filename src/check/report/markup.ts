/** Escaping for the XML and HTML reports (text and attribute values alike). */

/** Whether XML 1.0 can carry this UTF-16 code unit at all (tab, newline and CR are the only controls). */
const carriable = (code: number) =>
  code === 0x9 || code === 0xa || code === 0xd || (code >= 0x20 && code !== 0xfffe && code !== 0xffff);

export function escapeMarkup(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.charCodeAt(0);
    if (!carriable(code)) out += '\ufffd';
    else if (char === '&') out += '&amp;';
    else if (char === '<') out += '&lt;';
    else if (char === '>') out += '&gt;';
    else if (char === '"') out += '&quot;';
    else out += char;
  }
  return out;
}
