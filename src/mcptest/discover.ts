/**
 * Which files a run takes: the files named, and under each folder named (default: the current
 * one) every `*.mcptest.yaml`, `*.mcptest.yml` and `*.mcptest.json`, in sorted order, leaving out
 * `node_modules` and dot-folders.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export const TEST_FILE = /\.mcptest\.(?:ya?ml|json)$/;

export function findTestFiles(paths: readonly string[]): string[] {
  const found: string[] = [];
  for (const path of paths.length > 0 ? paths : ['.']) {
    let isFolder: boolean;
    try {
      isFolder = statSync(path).isDirectory();
    } catch {
      // A file that does not exist is reported by the reader, with its name.
      found.push(path);
      continue;
    }
    if (isFolder) found.push(...walk(path));
    else found.push(path);
  }
  return [...new Set(found)];
}

function walk(folder: string): string[] {
  const out: string[] = [];
  const entries = readdirSync(folder, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name));
  for (const entry of entries) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    const path = join(folder, entry.name);
    if (entry.isDirectory()) out.push(...walk(path));
    else if (TEST_FILE.test(entry.name)) out.push(path);
  }
  return out;
}
