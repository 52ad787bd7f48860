/**
 * What to run: every scenario a suite lists, at every wire it applies to, minus the skipped ones.
 * Server scenarios run a whole wire at a time (`--suite all --spec-version <wire>`, one fixture
 * server each); extension scenarios and client scenarios run one by one.
 */
import { type ListedScenario, type Role, type Suite, skipReason } from './suites.js';

/** The column a result belongs to: a protocol revision, or `extension` (the suite picks). */
export type Wire = string;

/** 0.1.x has one wire, the one its harness negotiates. */
export const SINGLE_WIRE = '2025-11-25';
export const EXTENSION_WIRE = 'extension';

export interface Job {
  readonly suite: Suite;
  readonly role: 'server' | 'client';
  readonly wire: Wire;
  /** Arguments after `server`/`client` (the URL, command and output directory are added). */
  readonly args: readonly string[];
  /** The scenarios this job must report on. */
  readonly expected: readonly string[];
}

export interface Skip {
  readonly suite: Suite;
  readonly role: Role;
  readonly scenario: string;
  readonly reason: string;
}

export interface Plan {
  readonly jobs: readonly Job[];
  readonly skips: readonly Skip[];
}

/**
 * The wires a scenario runs at: its listed revisions the suite runs, or the suite's only wire. A
 * scenario only for older revisions (the 2025-03-26 authorization fallbacks) runs at those.
 */
function wiresOf(suite: Suite, scenario: ListedScenario): Wire[] {
  if (scenario.tags.includes('extension')) return [EXTENSION_WIRE];
  if (suite.wires.length === 0) return [SINGLE_WIRE];
  const wires = suite.wires.filter((wire) => scenario.tags.includes(wire));
  return wires.length > 0 ? wires : scenario.tags.filter((tag) => /^\d{4}-\d{2}-\d{2}$/.test(tag));
}

/** `batch`: server scenarios of one wire in one job (false: one job per scenario, for a subset). */
export function planSuite(suite: Suite, listed: readonly ListedScenario[], batch = true): Plan {
  const jobs: Job[] = [];
  const skips: Skip[] = [];
  const serverByWire = new Map<Wire, string[]>();
  for (const scenario of listed) {
    const reason = skipReason(scenario);
    if (reason !== undefined) {
      skips.push({ suite, role: scenario.role, scenario: scenario.name, reason });
      continue;
    }
    if (scenario.role === 'authorization') continue; // always skipped above
    for (const wire of wiresOf(suite, scenario)) {
      const versionArgs = wire === EXTENSION_WIRE || suite.wires.length === 0 ? [] : ['--spec-version', wire];
      if (scenario.role === 'client' || wire === EXTENSION_WIRE || !batch) {
        jobs.push({
          suite,
          role: scenario.role,
          wire,
          args: ['--scenario', scenario.name, ...versionArgs],
          expected: [scenario.name],
        });
      } else {
        const names = serverByWire.get(wire) ?? [];
        names.push(scenario.name);
        serverByWire.set(wire, names);
      }
    }
  }
  // The whole-wire server jobs are the longest: first, so the pool overlaps them with the rest.
  const wholeWires = [...serverByWire].map(([wire, expected]): Job => {
    const versionArgs = suite.wires.length === 0 ? [] : ['--spec-version', wire];
    return { suite, role: 'server', wire, args: ['--suite', 'all', ...versionArgs], expected };
  });
  return { jobs: [...wholeWires, ...jobs], skips };
}
