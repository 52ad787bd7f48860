/**
 * `npm run conformance`: runs both installed versions of the official MCP conformance suite against
 * Switchboard — every server scenario against the fixture server (./server.ts), every client
 * scenario with the fixture client (./client.ts) — except those `runner/suites.ts` says why it
 * skips. Prints a summary and exits 1 on any failure or unaccepted warning.
 *
 *   node build/conformance/run.js [--suite 0.1|0.2] [--scenario <name>|<prefix/>] [--jobs <n>] [--keep]
 *                                 [--through gateway]
 *
 * `--through gateway` runs the server scenarios against `switchboard gateway` fronting the fixture
 * server (./gateway.ts) instead of the fixture itself: the results must be the same.
 *
 * Results (the suite's checks.json files) go to a temporary directory, kept with --keep or when
 * something failed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { execute, jobDir, type Paths } from './runner/execute.js';
import { type Plan, planSuite } from './runner/plan.js';
import { pool } from './runner/processes.js';
import { type Outcome, report } from './runner/report.js';
import { installedSuites, listScenarios } from './runner/suites.js';

const { values: options } = parseArgs({
  options: {
    suite: { type: 'string' },
    scenario: { type: 'string' },
    jobs: { type: 'string', default: '4' },
    keep: { type: 'boolean', default: false },
    through: { type: 'string' },
  },
});
if (options.through !== undefined && options.through !== 'gateway') {
  console.error(`--through ${JSON.stringify(options.through)}: the only intermediary is "gateway".`);
  process.exit(2);
}
const throughGateway = options.through === 'gateway';

const here = fileURLToPath(new URL('.', import.meta.url));
const cwd = fileURLToPath(new URL('../..', import.meta.url));
const paths: Paths = {
  cwd,
  preload: join(here, 'node20', 'preload.js'),
  server: relative(cwd, join(here, throughGateway ? 'gateway.js' : 'server.js')),
  client: relative(cwd, join(here, 'client.js')),
};
if (/\s/.test(process.execPath) || /\s/.test(paths.client)) {
  console.error(
    'The suite splits the client command on spaces: run from a path without spaces (node or the repository).',
  );
  process.exit(2);
}

const started = Date.now();
const suites = installedSuites().filter((s) => options.suite === undefined || s.id === options.suite);
if (suites.length === 0) {
  console.error(`No suite ${JSON.stringify(options.suite)}; choose 0.1 or 0.2.`);
  process.exit(2);
}
const plans: Plan[] = [];
for (const suite of suites) {
  const listed = await listScenarios(suite, paths.preload, cwd);
  // `--scenario auth/` (ending in a slash) selects every scenario under that prefix.
  const wanted = options.scenario;
  const selected =
    wanted === undefined
      ? listed
      : listed.filter((s) => (wanted.endsWith('/') ? s.name.startsWith(wanted) : s.name === wanted));
  plans.push(planSuite(suite, selected, options.scenario === undefined));
}
// Through the gateway, the server scenarios: the client ones test the fixture client, not a server.
const jobs = plans.flatMap((plan) => plan.jobs).filter((job) => !throughGateway || job.role === 'server');
const root = mkdtempSync(join(tmpdir(), 'switchboard-conformance-'));
console.log(
  `Running ${jobs.length} conformance jobs (${suites.map((s) => s.version).join(', ')}), ${options.jobs} at a time...`,
);
const outcomes: Outcome[] = (
  await pool(
    Math.max(1, Number(options.jobs) || 1),
    jobs.map((job, index) => () => execute(job, jobDir(root, job, index), paths)),
  )
).flat();
console.log(report(suites, plans, outcomes));

const failures = outcomes.filter((o) => o.result.verdict === 'fail').length;
const seconds = ((Date.now() - started) / 1000).toFixed(1);
if (options.keep || failures > 0) console.log(`\nResults: ${root}`);
else rmSync(root, { recursive: true, force: true });
console.log(
  failures > 0
    ? `\nFAILED: ${failures} of ${outcomes.length} scenario runs (${seconds} s).`
    : `\nAll ${outcomes.length} scenario runs passed (${seconds} s).`,
);
process.exitCode = failures > 0 ? 1 : 0;
