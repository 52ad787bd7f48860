/**
 * The fleet view of a `switchboard gateway` the console is connected to (`switchboard console
 * http://127.0.0.1:PORT/mcp`, `#/fleet`): the gateway itself and every upstream behind it, with
 * each upstream's health (the gateway's `/readyz`), its last check score and history (from the
 * history file, `--history FILE`, as `switchboard check --config` writes it for the same config),
 * its tools as the gateway exposes them, pinned on first sight with those changed since (the diff,
 * and an approve action), and the tools the gateway itself holds back until approved in its lock.
 * A check from the page checks the gateway's endpoint: the console reaches the upstreams only
 * through it.
 */
import type { Json } from '../check/wire.js';
import { checkFleet } from '../fleet/fleet-check.js';
import {
  appendRun,
  type FleetRun,
  forHistory,
  latestResults,
  RUN_FORMAT,
  readRuns,
} from '../fleet/history.js';
import { describeTarget } from '../node/target.js';
import type { GatewayView } from './api-types.js';
import { BadRequest, type ConsoleConnection } from './connection.js';
import { fleetScores, PinFile, toolChanges } from './fleet.js';
import type { FleetServerView, FleetSource, FleetToolChange, FleetView } from './fleet-types.js';
import { upstreamOfName } from './upstream-names.js';

const TRANSPORTS = new Set(['stdio', 'http', 'sse']);

export class GatewayFleet implements FleetSource {
  readonly #runs: FleetRun[];
  readonly #pins: PinFile;
  #checking: Promise<void> | undefined;

  constructor(
    readonly connection: ConsoleConnection,
    readonly history?: string,
  ) {
    this.#runs = history ? readRuns(history) : [];
    this.#pins = new PinFile(history ? `${history}.pins.json` : undefined);
  }

  /** The gateway's row: its name in the history file and the fleet table. */
  get #name(): string {
    return this.connection.summary.label;
  }

  #endpoint(): Extract<ConsoleConnection['summary']['target'], { kind: 'http' }> {
    const target = this.connection.summary.target;
    if (target.kind !== 'http')
      throw new BadRequest('A gateway over stdio serves no health report: connect to its HTTP endpoint.');
    return target;
  }

  async view(): Promise<FleetView> {
    const endpoint = this.#endpoint();
    const gateway = (await this.connection.run('gateway', {})) as GatewayView;
    const tools = await this.#toolsByUpstream(gateway);
    // Trust on first use: an upstream's tools are pinned the first time they are seen.
    let pinned = false;
    for (const [upstream, list] of tools) {
      if (this.#pins.pins[upstream] !== undefined) continue;
      this.#pins.pins[upstream] = Object.fromEntries(list);
      pinned = true;
    }
    if (pinned) this.#pins.save();
    const latest = latestResults(this.#runs);
    const own = latest.get(this.#name);
    const row: FleetServerView = {
      ...fleetScores(this.#runs, this.#name, own),
      name: this.#name,
      transport: 'http',
      target: describeTarget(endpoint),
      health: gateway.error ? 'down' : gateway.ready === false ? 'down' : 'up',
      ...(gateway.error ? { error: gateway.error } : {}),
      pinned: [],
      changed: [],
    };
    return {
      config: endpoint.url,
      gateway: true,
      ...(this.history ? { history: this.history } : {}),
      checking: this.#checking !== undefined,
      servers: [
        row,
        ...gateway.upstreams.map((u): FleetServerView => {
          const current = tools.get(u.name) ?? new Map<string, Json>();
          const pins = this.#pins.pins[u.name] ?? {};
          const held = (gateway.heldTools ?? [])
            .filter((name) => upstreamOfName(gateway, name) === u.name)
            .map(
              (name): FleetToolChange => ({
                tool: name,
                change: 'held',
                diff: `The gateway hides ${name} until its new definition is approved in its lock file: switchboard gateway approve --lock <lock file> <config> ${name}`,
              }),
            );
          const up = u.state === 'up' || u.state === 'idle';
          return {
            ...fleetScores(this.#runs, u.name, latest.get(u.name)),
            name: u.name,
            transport: (TRANSPORTS.has(u.transport ?? '')
              ? u.transport
              : 'stdio') as FleetServerView['transport'],
            target: `${u.name} behind ${endpoint.url}`,
            health: up ? 'up' : 'down',
            ...(u.lastError ? { error: u.lastError } : {}),
            pinned: Object.keys(pins).sort(),
            changed: [...toolChanges(current, pins, u.state === 'up'), ...held],
            checkable: false,
          };
        }),
      ],
    };
  }

  /** The tools the gateway lists now, by the upstream each comes from. */
  async #toolsByUpstream(gateway: GatewayView): Promise<Map<string, Map<string, Json>>> {
    const { tools } = await this.connection.client.listTools();
    const byUpstream = new Map<string, Map<string, Json>>();
    for (const tool of tools) {
      const upstream = upstreamOfName(gateway, tool.name);
      if (upstream === undefined) continue;
      if (!byUpstream.has(upstream)) byUpstream.set(upstream, new Map());
      byUpstream.get(upstream)!.set(tool.name, tool as unknown as Json);
    }
    return byUpstream;
  }

  /** Checks the gateway's endpoint (the upstreams are reached only through it). */
  async check(server?: string): Promise<FleetView> {
    if (server !== undefined && server !== this.#name)
      throw new BadRequest(
        `${server} is behind the gateway, which the console checks as a whole; check the upstream itself with: switchboard check --config <the gateway's config> --server ${server}`,
      );
    if (this.#checking) await this.#checking;
    this.#checking = (async () => {
      const [result] = await checkFleet([{ name: this.#name, transport: 'http', target: this.#endpoint() }], {
        concurrency: 1,
        previous: latestResults(this.#runs),
      });
      const run: FleetRun = {
        format: RUN_FORMAT,
        at: new Date().toISOString(),
        source: this.#endpoint().url,
        servers: [forHistory(result!)],
      };
      this.#runs.push(run);
      if (this.history) appendRun(this.history, run);
    })().finally(() => {
      this.#checking = undefined;
    });
    await this.#checking;
    return this.view();
  }

  async approve(server: string, tool: string): Promise<FleetView> {
    const gateway = (await this.connection.run('gateway', {})) as GatewayView;
    if (!gateway.upstreams.some((u) => u.name === server))
      throw new BadRequest(`The gateway has no server ${JSON.stringify(server)}.`);
    if (gateway.heldTools?.includes(tool))
      throw new BadRequest(
        `The gateway holds ${tool} back until it is approved in its lock file: switchboard gateway approve --lock <lock file> <config> ${tool}`,
      );
    const current = (await this.#toolsByUpstream(gateway)).get(server)?.get(tool);
    this.#pins.approve(server, tool, current);
    return this.view();
  }
}
