/**
 * Verdicts: what the probes found for each requirement in each revision, and the score. A
 * requirement is passed only when a probe exercised it and saw it kept; one no probe reached is
 * `not-tested`, with the reason, never passed.
 */
import type { Revision } from '../protocol/revisions.js';
import {
  type Area,
  appliesTo,
  type Level,
  levelIn,
  REQUIREMENTS,
  type Requirement,
  type Role,
  requirement,
  roleOf,
  sectionIn,
  type TransportKind,
} from './requirements.js';

/**
 * `advice`: a MAY the server does not take up, or a hardening rule (advice the spec does not
 * give) it does not keep: reported, never a warning, never in the score.
 */
export type Status = 'passed' | 'failed' | 'warning' | 'advice' | 'not-applicable' | 'not-tested';

/** One verdict: one requirement in one revision over one transport. Field names are a contract. */
export interface CheckEntry {
  readonly id: string;
  readonly level: Level;
  readonly area: Area;
  readonly revision: Revision;
  readonly transport: TransportKind;
  readonly status: Status;
  /** What was seen (for a failure: what the server did and what the rule says). */
  readonly message: string;
  /** The spec page the rule comes from. */
  readonly section: string;
  /** For failures and warnings: what was sent and what came back, one item per occurrence. */
  readonly evidence?: readonly string[];
}

export interface CheckSummary {
  readonly passed: number;
  readonly failed: number;
  readonly warnings: number;
  /** MAY rules not taken up and hardening advice not kept (they weigh nothing in the score). */
  readonly advice: number;
  /** Not applicable plus not tested. */
  readonly skipped: number;
  /** 0-100: the weight of the passed checks over the weight of those exercised (MUST weighs most). */
  readonly score: number;
}

/** How much a requirement of each level weighs in the score: what the spec does not require weighs nothing. */
const WEIGHT: Record<Level, number> = { MUST: 10, SHOULD: 3, MAY: 0, HARDENING: 0 };

/** The status of a broken rule: only a MUST fails; a SHOULD warns; a MAY or a hardening rule advises. */
export function brokenStatus(level: Level): 'failed' | 'warning' | 'advice' {
  return level === 'MUST' ? 'failed' : level === 'SHOULD' ? 'warning' : 'advice';
}
/** Evidence items kept per verdict; the count of the rest is noted. */
const MAX_EVIDENCE = 5;

interface Outcome {
  failures: string[];
  passes: string[];
  skip?: { status: 'not-applicable' | 'not-tested'; why: string };
}

/** Collects the verdicts of one revision over one transport. */
export class Verdicts {
  readonly #outcomes = new Map<string, Outcome>();

  constructor(
    readonly revision: Revision,
    readonly transport: TransportKind,
    /** Whose rules these verdicts are on: a server check never lists the client rules, nor the reverse. */
    readonly role: Role = 'server',
  ) {}

  #applies(req: Requirement): boolean {
    return roleOf(req) === this.role && appliesTo(req, this.revision, this.transport);
  }

  #outcome(id: string): Outcome | undefined {
    const req = requirement(id);
    if (!this.#applies(req)) return undefined;
    let outcome = this.#outcomes.get(id);
    if (!outcome) {
      outcome = { failures: [], passes: [] };
      this.#outcomes.set(id, outcome);
    }
    return outcome;
  }

  /** The rule was exercised and kept. */
  pass(id: string, message: string): void {
    this.#outcome(id)?.passes.push(message);
  }

  /** The rule was exercised and broken: `evidence` says what was sent, what came back, and why it is wrong. */
  fail(id: string, evidence: string): void {
    this.#outcome(id)?.failures.push(evidence);
  }

  /** Records `pass` or `fail` by `kept`. */
  expect(id: string, kept: boolean, passMessage: string, failEvidence: () => string): void {
    if (kept) this.pass(id, passMessage);
    else this.fail(id, failEvidence());
  }

  /** The rule does not apply to this server (e.g. it declares no tools). Ignored once a probe ran. */
  notApplicable(id: string, why: string): void {
    const outcome = this.#outcome(id);
    if (outcome && !outcome.skip) outcome.skip = { status: 'not-applicable', why };
  }

  /** The rule applies but could not be exercised; `why` says what stood in the way. */
  notTested(id: string, why: string): void {
    const outcome = this.#outcome(id);
    if (outcome) outcome.skip = { status: 'not-tested', why };
  }

  /**
   * Every requirement of this revision and transport, in catalogue order, with its verdict.
   * `unreached` is the verdict of those no probe reached (by default: not tested, no probe yet).
   */
  entries(
    unreached: { status: 'not-applicable' | 'not-tested'; why: string } = {
      status: 'not-tested',
      why: 'no probe exercises this rule yet',
    },
  ): CheckEntry[] {
    const entries: CheckEntry[] = [];
    for (const req of REQUIREMENTS) {
      if (!this.#applies(req)) continue;
      const outcome = this.#outcomes.get(req.id);
      const base = {
        id: req.id,
        level: levelIn(req, this.revision),
        area: req.area,
        revision: this.revision,
        transport: this.transport,
        section: sectionIn(req, this.revision),
      };
      if (outcome && outcome.failures.length > 0) {
        const evidence = outcome.failures.slice(0, MAX_EVIDENCE);
        if (outcome.failures.length > MAX_EVIDENCE) {
          evidence.push(`... and ${outcome.failures.length - MAX_EVIDENCE} more`);
        }
        entries.push({
          ...base,
          status: brokenStatus(levelIn(req, this.revision)),
          message: `${outcome.failures[0]!.split('\n')[0]}${outcome.failures.length > 1 ? ` (${outcome.failures.length} occurrences)` : ''}`,
          evidence,
        });
      } else if (outcome && outcome.passes.length > 0) {
        entries.push({ ...base, status: 'passed', message: outcome.passes[0]! });
      } else if (outcome?.skip) {
        entries.push({ ...base, status: outcome.skip.status, message: outcome.skip.why });
      } else {
        entries.push({ ...base, status: unreached.status, message: unreached.why });
      }
    }
    return entries;
  }
}

export function summarize(entries: readonly CheckEntry[]): CheckSummary {
  let passed = 0;
  let failed = 0;
  let warnings = 0;
  let advice = 0;
  let skipped = 0;
  let earned = 0;
  let possible = 0;
  for (const entry of entries) {
    const weight = WEIGHT[entry.level];
    if (entry.status === 'passed') {
      passed++;
      earned += weight;
      possible += weight;
    } else if (entry.status === 'failed') {
      failed++;
      possible += weight;
    } else if (entry.status === 'warning') {
      warnings++;
      possible += weight;
    } else if (entry.status === 'advice') {
      advice++;
    } else {
      skipped++;
    }
  }
  const score = possible === 0 ? 0 : Math.floor((100 * earned) / possible);
  return { passed, failed, warnings, advice, skipped, score };
}
