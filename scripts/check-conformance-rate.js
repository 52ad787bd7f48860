#!/usr/bin/env node
// The official conformance suite (@modelcontextprotocol/conformance, every server scenario) on the
// deliberately broken HTTP servers of the `switchboard check` detection tests: a seeded bug counts as
// found when a check the suite passes on the correct server fails with the bug. The stdio servers are
// not run: the suite takes only a URL. docs/check.md reports the result next to `switchboard check`'s.
// Usage: node scripts/check-conformance-rate.js   (after npm run build; about 10 s per server)
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AUTH_BUGS, startProtected } from '../build/test/fixtures/check-auth-server.js';
import { HTTP_BUGS, startBrokenHttp } from '../build/test/fixtures/check-http-server.js';

const repo = fileURLToPath(new URL('../', import.meta.url));
const cli = join(repo, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
const preload = join(repo, 'build/conformance/node20/preload.js');

/** The ids of the checks the suite passed against `url`. */
async function passedChecks(url) {
  const out = mkdtempSync(join(tmpdir(), 'switchboard-conformance-rate-'));
  try {
    await new Promise((resolve) => {
      execFile(process.execPath, ['--import', preload, cli, 'server', '--url', url, '-o', out], () =>
        resolve(),
      );
    });
    const passed = new Set();
    for (const dir of readdirSync(out)) {
      const checks = JSON.parse(readFileSync(join(out, dir, 'checks.json'), 'utf8'));
      for (const check of checks)
        if (check.status === 'SUCCESS') passed.add(`${dir.split('-20')[0]}:${check.id}`);
    }
    return passed;
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

async function measure(label, bugs, start) {
  const clean = await start(undefined);
  const baseline = await passedChecks(clean.url).finally(() => clean.close());
  const found = [];
  for (const bug of bugs) {
    const server = await start(bug);
    const passed = await passedChecks(server.url).finally(() => server.close());
    const lost = [...baseline].filter((id) => !passed.has(id));
    console.log(`${label} ${bug}: ${lost.length > 0 ? `found (${lost.join(', ')})` : 'not found'}`);
    if (lost.length > 0) found.push(bug);
  }
  return found.length;
}

const http = await measure('http', HTTP_BUGS, (bug) => startBrokenHttp(bug));
const auth = await measure('auth', AUTH_BUGS, (bug) => startProtected(bug));
const total = HTTP_BUGS.length + AUTH_BUGS.length;
console.log(`The official conformance suite finds ${http + auth} of ${total} seeded HTTP bugs.`);
