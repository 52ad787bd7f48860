#!/usr/bin/env node
// The package as npm would publish it, checked by the tools users' tooling trusts (part of `npm run
// lint`, after a build): publint (exports and bin name published files, fields well-formed) and Are
// the Types Wrong (every export's types resolve under node16 and bundlers; the package is ESM-only).
// Packs with --ignore-scripts: the build that `prepare` would run again is already there.
// Usage: node scripts/check-package.js
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const run = (command, args) =>
  execFileSync(command, args, { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
const bin = (name) => join('node_modules', '.bin', name);
const dir = mkdtempSync(join(tmpdir(), 'switchboard-pack-'));
try {
  const [{ filename }] = JSON.parse(
    run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir]),
  );
  const tarball = join(dir, filename);
  process.stdout.write(run(bin('publint'), ['--strict', tarball]));
  process.stdout.write(
    run(bin('attw'), [tarball, '--profile', 'esm-only', '--format', 'table-flipped', '--no-color']),
  );
} catch (error) {
  // Each tool printed what is wrong; its exit status is ours.
  if (typeof error.stdout === 'string') process.stdout.write(error.stdout);
  process.exitCode = typeof error.status === 'number' && error.status !== 0 ? error.status : 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
