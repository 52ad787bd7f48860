/**
 * The console's command center (`switchboard console --config FILE`): every server of a config with
 * its health, last check score and history, its pinned tools and those whose definitions changed
 * since they were pinned (with the diff), a check run from the page, and an approve action. The
 * pins are the tools' definitions as first seen (trust on first use, as the gateway's `--lock`),
 * kept in `<history>.pins.json` beside the history file when there is one.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { Json } from '../check/wire.js';
import { unifiedDiff } from '../fleet/diff.js';
import { checkFleet, configTargets, type FleetResult, type FleetTarget } from '../fleet/fleet-check.js';
import { appendRun, type FleetRun, fleetRun, latestResults, readRuns } from '../fleet/history.js';
import { loadGatewayConfig } from '../gateway/config.js';
import { formatProblem } from '../gateway/config-source.js';
import { SwitchboardError } from '../protocol/errors.js';
import { BadRequest } from './connection.js';
import type { FleetServerView, FleetToolChange, FleetView } from './fleet-types.js';

type Pins = Record<string, Record<string, Json>>;

/**
 * The tools' definitions as first seen, by server (trust on first use), kept in `<history>.pins.json`
 * beside the history file when there is one, in memory otherwise.
 */
export class PinFile {
  readonly pins: Pins;

  constructor(readonly file: string | undefined) {
    this.pins = this.#read();
  }

  #read(): Pins {
    if (!this.file) return {};
    try {
      return JSON.parse(readFileSync(this.file, 'utf8')) as Pins;
    } catch {
      return {};
    }
  }

  save(): void {
    if (this.file) writeFileSync(this.file, `${JSON.stringify(this.pins, null, 2)}\n`);
  }

  /** Pins a tool's current definition, or forgets a removed one (`current` undefined). */
  approve(server: string, tool: string, current: Json | undefined): void {
    this.pins[server] ??= {};
    const pins = this.pins[server];
    if (current === undefined) {
      if (!(tool in pins))
        throw new BadRequest(`The server ${JSON.stringify(server)} has no tool ${JSON.stringify(tool)}.`);
      delete pins[tool];
    } else pins[tool] = current;
    this.save();
  }
}

/** A server's last score (unless it could not be checked) and the score of each run it is in, oldest first. */
export function fleetScores(
  runs: readonly FleetRun[],
  name: string,
  last: FleetResult | undefined,
): Pick<FleetServerView, 'last' | 'history'> {
  const mine = runs.filter((r) => r.servers.some((s) => s.name === name));
  const at = mine.at(-1)?.at;
  return {
    ...(last && at && !last.error
      ? {
          last: {
            at,
            score: last.score,
            mustFailures: last.mustFailures,
            revisions: last.revisions,
            changes: last.changes,
          },
        }
      : {}),
    history: mine.map((r) => {
      const s = r.servers.find((x) => x.name === name)!;
      return { at: r.at, score: s.error ? null : s.score };
    }),
  };
}

/**
 * How a server's tools differ from their pins: added, changed (with the diff) and, when `listed`
 * (the tools are known, not merely absent), removed.
 */
export function toolChanges(
  tools: ReadonlyMap<string, Json>,
  pins: Readonly<Record<string, Json>>,
  listed: boolean,
): FleetToolChange[] {
  const changed: FleetToolChange[] = [];
  for (const [name, definition] of tools) {
    const pinned = pins[name];
    if (pinned === undefined)
      changed.push({ tool: name, change: 'added', diff: unifiedDiff(name, '', pretty(definition)) });
    else if (pretty(pinned) !== pretty(definition))
      changed.push({
        tool: name,
        change: 'changed',
        diff: unifiedDiff(name, pretty(pinned), pretty(definition)),
      });
  }
  for (const name of Object.keys(pins))
    if (listed && !tools.has(name))
      changed.push({ tool: name, change: 'removed', diff: unifiedDiff(name, pretty(pins[name]!), '') });
  return changed;
}

export class ConsoleFleet {
  readonly #targets: FleetTarget[];
  readonly #runs: FleetRun[];
  readonly #pins: PinFile;
  #checking: Promise<void> | undefined;

  constructor(
    readonly config: string,
    readonly history?: string,
  ) {
    const loaded = loadGatewayConfig(config);
    if (!loaded.ok) throw new SwitchboardError('CONFIG', loaded.problems.map(formatProblem).join('\n'));
    this.#targets = configTargets(loaded.config);
    this.#runs = history ? readRuns(history) : [];
    this.#pins = new PinFile(history ? `${history}.pins.json` : undefined);
  }

  view(): FleetView {
    const latest = latestResults(this.#runs);
    return {
      config: this.config,
      ...(this.history ? { history: this.history } : {}),
      checking: this.#checking !== undefined,
      servers: this.#targets.map((t) => this.#serverView(t, latest.get(t.name))),
    };
  }

  #serverView(target: FleetTarget, last: FleetResult | undefined): FleetServerView {
    const tools = this.#currentTools(last);
    const pins = this.#pins.pins[target.name] ?? {};
    const changed = toolChanges(tools, pins, last?.surface !== undefined);
    return {
      name: target.name,
      transport: target.transport,
      target: last?.target ?? target.name,
      health: last === undefined ? 'unknown' : last.error ? 'down' : 'up',
      ...(last?.error ? { error: last.error } : {}),
      ...fleetScores(this.#runs, target.name, last),
      pinned: Object.keys(pins).sort(),
      changed,
    };
  }

  #currentTools(last: FleetResult | undefined): Map<string, Json> {
    const tools = new Map<string, Json>();
    for (const tool of last?.surface?.tools ?? []) tools.set(String(tool.name), tool);
    return tools;
  }

  /** Checks the servers (one, or all); a second request while one runs waits for it. */
  async check(server?: string): Promise<FleetView> {
    const targets = server === undefined ? this.#targets : this.#targets.filter((t) => t.name === server);
    if (targets.length === 0) throw new BadRequest(`The config has no server ${JSON.stringify(server)}.`);
    if (this.#checking) await this.#checking;
    this.#checking = (async () => {
      const results = await checkFleet(targets, { concurrency: 2, previous: latestResults(this.#runs) });
      const run = fleetRun(this.config, results);
      this.#runs.push(run);
      if (this.history) appendRun(this.history, run);
      // Trust on first use: a server's tools are pinned the first time it is seen.
      for (const result of results) {
        if (!result.surface || this.#pins.pins[result.name] !== undefined) continue;
        this.#pins.pins[result.name] = Object.fromEntries(this.#currentTools(result));
      }
      this.#pins.save();
    })().finally(() => {
      this.#checking = undefined;
    });
    await this.#checking;
    return this.view();
  }

  /** Pins a tool's current definition (or forgets a removed one). */
  approve(server: string, tool: string): FleetView {
    const last = latestResults(this.#runs).get(server);
    if (!last) throw new BadRequest(`The server ${JSON.stringify(server)} has not been checked yet.`);
    this.#pins.approve(server, tool, this.#currentTools(last).get(tool));
    return this.view();
  }
}

/** A definition as the diffs show it. */
export const pretty = (value: Json) => `${JSON.stringify(value, null, 2)}\n`;
