/**
 * The official conformance suite's detection rate on the seeded client bugs of
 * test/fixtures/check-client-raw.ts, to set beside `switchboard check --client`'s (docs/check.md).
 * Every client scenario of both installed suite versions (but authorization, which needs a client
 * that signs in, and extensions) runs with the clean client and with each bug; a bug counts as
 * detected when some scenario reports a failure or a warning that the clean client's run does not.
 *
 *   npm run build && node build/conformance/client-detection.js [--jobs <n>] [--bug <name>]
 *
 * Prints one line per bug (detected or not, and by which checks) and the rate.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { CLIENT_BUGS } from '../test/fixtures/check-client-bugs.js';
import { type Job, planSuite } from './runner/plan.js';
import { pool, runProcess } from './runner/processes.js';
import { readResults } from './runner/results.js';
import { installedSuites, listScenarios } from './runner/suites.js';

const { values: options } = parseArgs({
  options: { jobs: { type: 'string', default: '3' }, bug: { type: 'string', multiple: true } },
});
const cwd = fileURLToPath(new URL('../..', import.meta.url));
const here = fileURLToPath(new URL('.', import.meta.url));
const preload = join(here, 'node20', 'preload.js');
const client = relative(cwd, fileURLToPath(new URL('../test/fixtures/check-client-raw.js', import.meta.url)));

const jobs: Job[] = [];
for (const suite of installedSuites()) {
  const listed = await listScenarios(suite, preload, cwd);
  const clientScenarios = listed.filter(
    (s) => s.role === 'client' && !s.name.startsWith('auth/') && !s.tags.includes('extension'),
  );
  jobs.push(...planSuite(suite, clientScenarios).jobs);
}

/** The failures and warnings of every scenario run of one client variant, as `suite scenario@wire: check`. */
async function problems(bug: string | undefined): Promise<Set<string>> {
  const root = mkdtempSync(join(tmpdir(), 'checkc-conformance-'));
  const found = new Set<string>();
  try {
    await pool(
      Number(options.jobs),
      jobs.map((job, index) => async () => {
        const out = join(root, String(index));
        const command = [process.execPath, client, ...(bug ? [bug] : [])].join(' ');
        await runProcess(
          process.execPath,
          [
            '--import',
            preload,
            job.suite.cli,
            'client',
            '--command',
            command,
            '--timeout',
            '15000',
            ...job.args,
            '-o',
            out,
          ],
          { cwd, timeoutMs: 120_000 },
        );
        for (const [scenario, checks] of readResults(out))
          for (const check of checks)
            if (check.status === 'FAILURE' || check.status === 'WARNING')
              found.add(`${job.suite.id} ${scenario}@${job.wire}: ${check.id} ${check.status}`);
      }),
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return found;
}

const bugs = options.bug ?? [...CLIENT_BUGS];
const started = Date.now();
const clean = await problems(undefined);
console.log(`${jobs.length} scenario runs per client; the clean client: ${clean.size} failure(s)/warning(s)`);
for (const p of clean) console.log(`  clean: ${p}`);
let detected = 0;
for (const bug of bugs) {
  const extra = [...(await problems(bug))].filter((p) => !clean.has(p));
  if (extra.length > 0) detected++;
  console.log(
    `${extra.length > 0 ? 'DETECTED' : 'missed  '} ${bug}${extra.length > 0 ? `: ${extra.join('; ')}` : ''}`,
  );
}
console.log(
  `conformance suite: ${detected} of ${bugs.length} seeded client bugs detected (${Math.round((Date.now() - started) / 1000)} s)`,
);
