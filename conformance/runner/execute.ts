/** Runs one job of the plan: the suite's CLI against the fixture server, or against the client. */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Job } from './plan.js';
import { runProcess, startFixtureServer } from './processes.js';
import type { Outcome } from './report.js';
import { judge, readResults } from './results.js';

export interface Paths {
  /** Where the suite's CLI runs (the repository: the client command is relative to it). */
  readonly cwd: string;
  /** The Node 20 `fs.globSync` preload (see node20/preload.ts). */
  readonly preload: string;
  /** The compiled fixture server and client, relative to `cwd`. */
  readonly server: string;
  readonly client: string;
}

/** A job that could not run at all reports every scenario it owed as failed with this reason. */
function failed(job: Job, problem: string): Outcome[] {
  return job.expected.map((scenario) => ({
    suite: job.suite,
    role: job.role,
    wire: job.wire,
    result: judge(scenario, [], [problem]),
  }));
}

/** Lines of the CLI's stderr that explain a client run that went wrong. */
function clientTrouble(stderr: string): string[] {
  const problems: string[] = [];
  const exited = /Client exited with code (-?\d+)/.exec(stderr);
  if (exited) {
    const said = /Stderr:\n([\s\S]*?)(?:\nResults saved|\nChecks:|$)/.exec(stderr)?.[1]?.trim();
    problems.push(`the client exited with code ${exited[1]}${said ? `: ${said.split('\n')[0]}` : ''}`);
  }
  if (/Client timed out/.test(stderr)) problems.push('the client timed out');
  return problems;
}

export async function execute(job: Job, outputDir: string, paths: Paths): Promise<Outcome[]> {
  mkdirSync(outputDir, { recursive: true });
  const base = ['--import', paths.preload, job.suite.cli, job.role];
  let target: string[];
  let stop = async () => {};
  if (job.role === 'server') {
    let fixture: Awaited<ReturnType<typeof startFixtureServer>>;
    try {
      fixture = await startFixtureServer(paths.server, paths.cwd);
    } catch (error) {
      return failed(job, (error as Error).message);
    }
    stop = fixture.stop;
    target = ['--url', fixture.url];
  } else {
    // The suite splits the command on spaces and appends the URL.
    target = ['--command', `${process.execPath} ${paths.client}`, '--timeout', '30000'];
  }
  let finished: Awaited<ReturnType<typeof runProcess>>;
  try {
    finished = await runProcess(process.execPath, [...base, ...target, ...job.args, '-o', outputDir], {
      cwd: paths.cwd,
      timeoutMs: 10 * 60_000,
    });
  } finally {
    await stop();
  }
  if (finished.timedOut) return failed(job, 'the suite did not finish within 10 minutes');
  const results = readResults(outputDir);
  const trouble = job.role === 'client' ? clientTrouble(finished.stderr) : [];
  return job.expected.map((scenario) => {
    const checks = results.get(scenario);
    const missing =
      checks === undefined
        ? [
            `no result (the suite exited with code ${finished.code}): ${finished.stderr.trim().split('\n').slice(-3).join(' | ')}`,
          ]
        : [];
    return {
      suite: job.suite,
      role: job.role,
      wire: job.wire,
      result: judge(scenario, checks ?? [], [...missing, ...trouble]),
    };
  });
}

/** A directory name for a job's results. */
export const jobDir = (root: string, job: Job, index: number): string =>
  join(root, `${index}-${job.suite.id}-${job.role}-${job.wire}`);
