// A small `fs.globSync` for Node 20, which lacks it (added in Node 22). The official conformance suite
// imports it (only to collect `**/checks.json` result files), so without it the suite does not even load
// on Node 20. This covers the pattern language the suite needs and a little more: `**` (any number of
// directories), `*` and `?` within one path segment, and literal segments. It walks real directories only
// (no symlink following, so no cycles) and returns paths relative to `cwd` like Node's own globSync.
import { type Dirent, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

export interface GlobSyncOptions {
  cwd?: string;
}

export function globSync(pattern: string | readonly string[], options: GlobSyncOptions = {}): string[] {
  const root = resolve(options.cwd ?? '.');
  const found = new Set<string>();
  for (const one of typeof pattern === 'string' ? [pattern] : pattern) {
    const segments = one.split('/').filter((s) => s !== '' && s !== '.');
    walk(root, '', segments.map(compileSegment), found);
  }
  return [...found];
}

/** A compiled path segment: `**`, or a matcher for one directory entry name. */
type Segment = '**' | RegExp;

function compileSegment(segment: string): Segment {
  if (segment === '**') return '**';
  const source = segment.replace(/[.+^${}()|[\]\\*?]/g, (c) =>
    c === '*' ? '[^/]*' : c === '?' ? '[^/]' : `\\${c}`,
  );
  return new RegExp(`^${source}$`);
}

function walk(dir: string, relative: string, segments: readonly Segment[], found: Set<string>): void {
  const [head, ...rest] = segments;
  if (head === undefined) {
    if (relative !== '') found.add(relative);
    return;
  }
  // `**` matches zero directories (try the rest here) or one more (descend, keeping the `**`).
  if (head === '**') walk(dir, relative, rest, found);
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return; // not a directory, or unreadable: nothing matches below it
  }
  for (const entry of entries) {
    const path = relative === '' ? entry.name : join(relative, entry.name);
    if (head === '**') {
      if (entry.isDirectory()) walk(join(dir, entry.name), path, segments, found);
    } else if (head.test(entry.name)) {
      if (rest.length === 0) found.add(path);
      else if (entry.isDirectory()) walk(join(dir, entry.name), path, rest, found);
    }
  }
}
