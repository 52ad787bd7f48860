/**
 * Markdown a server sends (contents typed `text/markdown`), rendered as elements, never as HTML:
 * headings, paragraphs, lists, quotes, rules and fenced code; inline code, strong, emphasis and
 * links. Raw HTML in the text stays text; only http(s) and mailto links become links (opened in a
 * new tab, without referrer); images are shown as links, since the page loads nothing from elsewhere.
 * Headings start at h4, below the page's own.
 */
import type { ComponentChildren, VNode } from 'preact';

const INLINE =
  /`([^`]+)`|\*\*(.+?)\*\*|__(.+?)__|\*([^*\s][^*]*?)\*|_([^_\s][^_]*?)_|(!?)\[([^\]]*)\]\(([^)\s]+)\)/g;

function safeHref(href: string): string | undefined {
  return /^(https?:|mailto:)/i.test(href) ? href : undefined;
}

function inline(text: string): ComponentChildren[] {
  const out: ComponentChildren[] = [];
  let last = 0;
  for (const m of text.matchAll(INLINE)) {
    if (m.index > last) out.push(text.slice(last, m.index));
    const [, code, strong1, strong2, em1, em2, bang, label, href] = m;
    const key = out.length;
    if (code !== undefined) out.push(<code key={key}>{code}</code>);
    else if (strong1 !== undefined || strong2 !== undefined)
      out.push(<strong key={key}>{inline(strong1 ?? strong2 ?? '')}</strong>);
    else if (em1 !== undefined || em2 !== undefined) out.push(<em key={key}>{inline(em1 ?? em2 ?? '')}</em>);
    else {
      const target = safeHref(href ?? '');
      const shown = bang ? `image: ${label || href}` : (label ?? '');
      out.push(
        target ? (
          <a key={key} href={target} target="_blank" rel="noopener noreferrer">
            {bang ? shown : inline(shown)}
          </a>
        ) : (
          m[0]
        ),
      );
    }
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

const HEADING = /^(#{1,6})\s+(.*?)\s*#*\s*$/;
const BULLET = /^\s*[-*+]\s+(.*)$/;
const NUMBERED = /^\s*\d+[.)]\s+(.*)$/;
const RULE = /^\s*([-*_])(\s*\1){2,}\s*$/;
const FENCE = /^\s*(```|~~~)/;

function blocks(lines: readonly string[]): VNode[] {
  const out: VNode[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    const key = out.length;
    const fence = FENCE.exec(line);
    if (fence) {
      const body: string[] = [];
      for (i++; i < lines.length && !lines[i]!.trimStart().startsWith(fence[1]!); i++) body.push(lines[i]!);
      i++;
      out.push(
        <pre key={key} class="mono">
          <code>{body.join('\n')}</code>
        </pre>,
      );
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      const Tag = `h${Math.min(6, heading[1]!.length + 3)}` as 'h4';
      out.push(<Tag key={key}>{inline(heading[2]!)}</Tag>);
      i++;
      continue;
    }
    if (RULE.test(line)) {
      out.push(<hr key={key} />);
      i++;
      continue;
    }
    if (line.trim() === '') {
      i++;
      continue;
    }
    if (line.startsWith('>')) {
      const quoted: string[] = [];
      for (; i < lines.length && lines[i]!.startsWith('>'); i++) quoted.push(lines[i]!.replace(/^>\s?/, ''));
      out.push(<blockquote key={key}>{blocks(quoted)}</blockquote>);
      continue;
    }
    const list = BULLET.test(line) ? BULLET : NUMBERED.test(line) ? NUMBERED : undefined;
    if (list) {
      const items: string[] = [];
      for (; i < lines.length && lines[i]!.trim() !== ''; i++) {
        const item = list.exec(lines[i]!);
        if (item) items.push(item[1]!);
        else items[items.length - 1] += ` ${lines[i]!.trim()}`;
      }
      const children = items.map((item, n) => <li key={n}>{inline(item)}</li>);
      out.push(list === BULLET ? <ul key={key}>{children}</ul> : <ol key={key}>{children}</ol>);
      continue;
    }
    const paragraph: string[] = [];
    for (
      ;
      i < lines.length &&
      lines[i]!.trim() !== '' &&
      !HEADING.test(lines[i]!) &&
      !FENCE.test(lines[i]!) &&
      !BULLET.test(lines[i]!) &&
      !lines[i]!.startsWith('>');
      i++
    )
      paragraph.push(lines[i]!.trim());
    out.push(<p key={key}>{inline(paragraph.join(' '))}</p>);
  }
  return out;
}

export function Markdown({ text }: { text: string }) {
  return <div class="markdown">{blocks(text.replace(/\r\n?/g, '\n').split('\n'))}</div>;
}
