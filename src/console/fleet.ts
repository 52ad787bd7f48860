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
import {
  appendRun,
  type FleetRun,
  forHistory,
  latestResults,
  RUN_FORMAT,
  readRuns,
} from '../fleet/history.js';
import { loadGatewayConfig } from '../gateway/config.js';
import { formatProblem } from '../gateway/config-source.js';
import { SwitchboardError } from '../protocol/errors.js';
import { BadRequest } from './connection.js';
import type { FleetServerView, FleetToolChange, FleetView } from './fleet-types.js';

type Pins = Record<string, Record<string, Json>>;

export class ConsoleFleet {
  readonly #targets: FleetTarget[];
  readonly #runs: FleetRun[];
  readonly #pins: Pins;
  #checking: Promise<void> | undefined;

  constructor(
    readonly config: string,
    readonly history?: string,
  ) {
    const loaded = loadGatewayConfig(config);
    if (!loaded.ok) throw new SwitchboardError('CONFIG', loaded.problems.map(formatProblem).join('\n'));
    this.#targets = configTargets(loaded.config);
    this.#runs = history ? readRuns(history) : [];
    this.#pins = this.#readPins();
  }

  get #pinsFile(): string | undefined {
    return this.history ? `${this.history}.pins.json` : undefined;
  }

  #readPins(): Pins {
    if (!this.#pinsFile) return {};
    try {
      return JSON.parse(readFileSync(this.#pinsFile, 'utf8')) as Pins;
    } catch {
      return {};
    }
  }

  #savePins(): void {
    if (this.#pinsFile) writeFileSync(this.#pinsFile, `${JSON.stringify(this.#pins, null, 2)}\n`);
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
    const runs = this.#runs.filter((r) => r.servers.some((s) => s.name === target.name));
    const at = runs.at(-1)?.at;
    const tools = this.#currentTools(last);
    const pins = this.#pins[target.name] ?? {};
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
      if (last?.surface && !tools.has(name))
        changed.push({ tool: name, change: 'removed', diff: unifiedDiff(name, pretty(pins[name]!), '') });
    return {
      name: target.name,
      transport: target.transport,
      target: last?.target ?? target.name,
      health: last === undefined ? 'unknown' : last.error ? 'down' : 'up',
      ...(last?.error ? { error: last.error } : {}),
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
      history: runs.map((r) => {
        const s = r.servers.find((x) => x.name === target.name)!;
        return { at: r.at, score: s.error ? null : s.score };
      }),
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
      const run: FleetRun = {
        format: RUN_FORMAT,
        at: new Date().toISOString(),
        source: this.config,
        servers: results.map(forHistory),
      };
      this.#runs.push(run);
      if (this.history) appendRun(this.history, run);
      // Trust on first use: a server's tools are pinned the first time it is seen.
      for (const result of results) {
        if (!result.surface || this.#pins[result.name] !== undefined) continue;
        this.#pins[result.name] = Object.fromEntries(this.#currentTools(result));
      }
      this.#savePins();
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
    const current = this.#currentTools(last).get(tool);
    this.#pins[server] ??= {};
    const pins = this.#pins[server];
    if (current === undefined) {
      if (!(tool in pins))
        throw new BadRequest(`The server ${JSON.stringify(server)} has no tool ${JSON.stringify(tool)}.`);
      delete pins[tool];
    } else pins[tool] = current;
    this.#savePins();
    return this.view();
  }
}

const pretty = (value: Json) => `${JSON.stringify(value, null, 2)}\n`;
