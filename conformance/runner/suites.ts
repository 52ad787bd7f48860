/**
 * The two installed versions of the official conformance suite, what each lists, and our policy:
 * which scenarios we do not run (and why), and which warnings we accept (and why).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { runProcess } from './processes.js';

export interface Suite {
  /** Short name used on the command line (`--suite 0.1`). */
  readonly id: string;
  readonly version: string;
  /** The CLI's entry point (`dist/index.js`). */
  readonly cli: string;
  /**
   * The protocol revisions to run server and client scenarios at (`--spec-version`): each selects
   * its wire (dated: `initialize` sessions; 2026-07-28: stateless). Empty: the suite has one wire
   * (0.1.x speaks 2025-11-25 and its `--spec-version` only filters).
   */
  readonly wires: readonly string[];
}

const require = createRequire(import.meta.url);

function suite(id: string, packageName: string, wires: readonly string[]): Suite {
  const manifest = require.resolve(`${packageName}/package.json`);
  const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string; bin: { conformance: string } };
  return { id, version: pkg.version, cli: join(dirname(manifest), pkg.bin.conformance), wires };
}

export function installedSuites(): Suite[] {
  return [
    suite('0.1', '@modelcontextprotocol/conformance', []),
    // The 0.2.0 prerelease, installed under an alias.
    suite('0.2', 'conformance-next', ['2025-06-18', '2025-11-25', '2026-07-28']),
  ];
}

export type Role = 'server' | 'client' | 'authorization';

export interface ListedScenario {
  readonly role: Role;
  readonly name: string;
  /** What `list` prints in brackets: the revisions it applies to, or `extension`, or `draft`. */
  readonly tags: readonly string[];
}

const HEADINGS: Record<string, Role> = {
  'Server scenarios': 'server',
  'Client scenarios': 'client',
  'Authorization server scenarios': 'authorization',
};

/** The scenarios a suite lists (`conformance list`). */
export async function listScenarios(suite: Suite, preload: string, cwd: string): Promise<ListedScenario[]> {
  const listed = await runProcess(process.execPath, ['--import', preload, suite.cli, 'list'], {
    cwd,
    timeoutMs: 60_000,
  });
  if (listed.code !== 0) {
    throw new Error(`conformance ${suite.version} list failed (exit ${listed.code}):\n${listed.stderr}`);
  }
  return parseList(listed.stdout);
}

/** Parses `conformance list` output: headings, then `  - name [tag,tag]` lines. */
export function parseList(output: string): ListedScenario[] {
  const scenarios: ListedScenario[] = [];
  let role: Role | undefined;
  for (const line of output.split('\n')) {
    const heading = Object.keys(HEADINGS).find((h) => line.startsWith(h));
    if (heading) role = HEADINGS[heading];
    const item = /^\s+- (\S+)(?: \[([^\]]*)\])?\s*$/.exec(line);
    if (item && role) scenarios.push({ role, name: item[1]!, tags: item[2] ? item[2].split(',') : [] });
  }
  return scenarios;
}

/** Why a listed scenario is not run, or undefined when it is. Anything new the suites add is run. */
export function skipReason({ role }: ListedScenario): string | undefined {
  if (role === 'authorization') {
    return 'tests an OAuth authorization server, which Switchboard is not (the suite leaves these out of its requirement sets too)';
  }
  return undefined;
}

/**
 * Warnings (SHOULD-level checks) we accept, by `scenario:check-id`, with the reason. Every other
 * warning fails the run, like a failure.
 */
export const ACCEPTED_WARNINGS: Readonly<Record<string, string>> = {
  'input-required-result-ignore-extra-params:sep-2322-ignore-unexpected-params':
    'the check sends inputResponses without the requestState of a previous round. Switchboard takes ' +
    'answers only for questions its sealed requestState says it asked (the spec makes requestState ' +
    'the server-controlled binding and leaves unsolicited answers to the server); it asks again ' +
    'instead, which the spec recommends for missing answers (input-required-result-missing-input-response).',
};
