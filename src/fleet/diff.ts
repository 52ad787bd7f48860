/**
 * A unified diff of two texts by lines (`--dry-run` prints what a command would change). Longest
 * common subsequence over the lines that differ, after the common head and tail are set aside, so a
 * one-entry change in a large file (~/.claude.json) costs little.
 */
export function unifiedDiff(file: string, before: string, after: string, context = 3): string {
  if (before === after) return '';
  const a = splitLines(before);
  const b = splitLines(after);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  )
    tail++;
  const ops = middle(a.slice(head, a.length - tail), b.slice(head, b.length - tail));
  const lines: { op: ' ' | '-' | '+'; text: string }[] = [
    ...a.slice(0, head).map((text) => ({ op: ' ' as const, text })),
    ...ops,
    ...a.slice(a.length - tail).map((text) => ({ op: ' ' as const, text })),
  ];
  const out = [`--- ${before === '' ? '/dev/null' : file}`, `+++ ${file}`];
  // Hunks: changed lines with `context` unchanged lines around them.
  const changed = lines.map((l, i) => (l.op === ' ' ? -1 : i)).filter((i) => i >= 0);
  let i = 0;
  while (i < changed.length) {
    let start = Math.max(0, changed[i]! - context);
    let end = Math.min(lines.length, changed[i]! + context + 1);
    while (i + 1 < changed.length && changed[i + 1]! - context <= end) {
      i++;
      end = Math.min(lines.length, changed[i]! + context + 1);
    }
    i++;
    const aStart = lines.slice(0, start).filter((l) => l.op !== '+').length;
    const bStart = lines.slice(0, start).filter((l) => l.op !== '-').length;
    const hunk = lines.slice(start, end);
    const aLen = hunk.filter((l) => l.op !== '+').length;
    const bLen = hunk.filter((l) => l.op !== '-').length;
    out.push(
      `@@ -${aLen === 0 ? aStart : aStart + 1},${aLen} +${bLen === 0 ? bStart : bStart + 1},${bLen} @@`,
    );
    for (const l of hunk) out.push(`${l.op}${l.text}`);
    start = end;
  }
  return `${out.join('\n')}\n`;
}

function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

function middle(a: string[], b: string[]): { op: ' ' | '-' | '+'; text: string }[] {
  // lcs[i][j]: the length of the longest common subsequence of a[i..] and b[j..].
  const lcs = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--)
      lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const out: { op: ' ' | '-' | '+'; text: string }[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      out.push({ op: ' ', text: a[i++]! });
      j++;
    } else if (i < a.length && (j === b.length || lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) {
      // Removed lines before added ones, as diff and patch print them.
      out.push({ op: '-', text: a[i++]! });
    } else {
      out.push({ op: '+', text: b[j++]! });
    }
  }
  return out;
}
