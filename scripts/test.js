#!/usr/bin/env node
// Runs the compiled test suite (build/test/**/*.test.js) with node:test.
// Usage: node scripts/test.js [substring ...]  — only files whose path contains one of the substrings.
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = 'build/test';
const filters = process.argv.slice(2);

function collect(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return collect(path);
    return name.endsWith('.test.js') ? [path] : [];
  });
}

const files = collect(root)
  .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)))
  .sort();
if (files.length === 0) {
  console.error(`No test files under ${root} match ${JSON.stringify(filters)}. Did the build run?`);
  process.exit(1);
}
// Tests are mostly I/O bound (child processes, loopback sockets), so run more files than cores.
const child = spawn(process.execPath, ['--test', '--test-concurrency=4', '--test-timeout=60000', ...files], {
  stdio: 'inherit',
});
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
