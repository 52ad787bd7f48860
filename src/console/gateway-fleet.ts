/**
 * The fleet view of a `switchboard gateway` the console is connected to (`switchboard console
 * http://127.0.0.1:PORT/mcp`, `#/fleet`): the gateway itself and every upstream behind it, with
 * each upstream's health (the gateway's `/readyz`), its last check score and history (from the
 * history file, `--history FILE`, as `switchboard check --config` writes it for the same config),
 * its tools as the gateway exposes them, pinned on first sight with those changed since (the diff,
 * and an approve action), and the tools the gateway itself holds back until approved in its lock.
 * With the gateway's admin endpoint (`gateway.admin`) a held tool shows the diff from its pinned
 * definition and Approve approves it on the gateway, and each upstream is checked from the page by
 * the gateway (on its config entry); without it, the gateway's endpoint is what the page checks.
 */
import type { Json } from '../check/wire.js';
import { unifiedDiff } from '../fleet/diff.js';
import { changesSince, checkFleet, type FleetResult } from '../fleet/fleet-check.js';
import { appendRun, type FleetRun, fleetRun, latestResults, readRuns } from '../fleet/history.js';
import { describeTarget } from '../node/target.js';
import type { GatewayView } from './api-types.js';
import { BadRequest, type ConsoleConnection } from './connection.js';
import { fleetScores, PinFile, pretty, toolChanges } from './fleet.js';
import type { FleetServerView, FleetSource, FleetToolChange, FleetView } from './fleet-types.js';
import { type AdminHeld, GatewayAdmin } from './gateway-admin.js';
import { upstreamOfName } from './upstream-names.js';

const TRANSPORTS = new Set(['stdio', 'http', 'sse']);

export class GatewayFleet implements FleetSource {
  readonly #runs: FleetRun[];
  readonly #pins: PinFile;
  #checking: Promise<void> | undefined;

  constructor(
    readonly connection: ConsoleConnection,
    readonly history?: string,
    /** The gateway's admin token (`gateway.admin.token`), when it has one. */
    readonly adminToken?: string,
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

  /** The gateway's admin endpoint, asked with the connection's own headers (and the admin token). */
  #admin(): GatewayAdmin {
    const endpoint = this.#endpoint();
    return new GatewayAdmin(endpoint.url, endpoint.headers, this.adminToken);
  }

  async view(): Promise<FleetView> {
    const endpoint = this.#endpoint();
    const gateway = (await this.connection.run('gateway', {})) as GatewayView;
    const [tools, admin] = await Promise.all([this.#toolsByUpstream(gateway), this.#admin().held()]);
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
      health: gateway.error || gateway.ready === false ? 'down' : 'up',
      ...(gateway.error ? { error: gateway.error } : {}),
      pinned: [],
      changed: [],
    };
    return {
      config: endpoint.url,
      gateway: true,
      ...(this.history ? { history: this.history } : {}),
      ...('unavailable' in admin ? { admin: admin.unavailable } : {}),
      checking: this.#checking !== undefined,
      servers: [
        row,
        ...gateway.upstreams.map((u): FleetServerView => {
          const current = tools.get(u.name) ?? new Map<string, Json>();
          const pins = this.#pins.pins[u.name] ?? {};
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
            changed: [
              ...toolChanges(current, pins, u.state === 'up'),
              ...heldChanges(gateway, u.name, admin),
            ],
            checkable: !('unavailable' in admin),
          };
        }),
      ],
    };
  }

  /** The tools the gateway lists now (`fresh`: not from the client's cache), by the upstream each comes from. */
  async #toolsByUpstream(gateway: GatewayView, fresh = false): Promise<Map<string, Map<string, Json>>> {
    const { tools } = await this.connection.client.listTools({ fresh });
    const byUpstream = new Map<string, Map<string, Json>>();
    for (const tool of tools) {
      const upstream = upstreamOfName(gateway, tool.name);
      if (upstream === undefined) continue;
      if (!byUpstream.has(upstream)) byUpstream.set(upstream, new Map());
      byUpstream.get(upstream)!.set(tool.name, tool as unknown as Json);
    }
    return byUpstream;
  }

  /**
   * Checks the gateway's endpoint, or one upstream: by the gateway's admin endpoint, which runs the
   * checker on that server's config entry (the console reaches the upstreams only through it).
   */
  async check(server?: string): Promise<FleetView> {
    let run: () => Promise<FleetResult>;
    if (server === undefined || server === this.#name) {
      run = async () => {
        const [result] = await checkFleet(
          [{ name: this.#name, transport: 'http', target: this.#endpoint() }],
          { concurrency: 1, previous: latestResults(this.#runs) },
        );
        return result!;
      };
    } else {
      const gateway = (await this.connection.run('gateway', {})) as GatewayView;
      if (!gateway.upstreams.some((u) => u.name === server))
        throw new BadRequest(`The gateway has no server ${JSON.stringify(server)}.`);
      const admin = this.#admin();
      const state = await admin.held();
      if ('unavailable' in state)
        throw new BadRequest(
          `${server} is behind the gateway, and the console checks it through the gateway's admin endpoint (gateway.admin): ${state.unavailable} Or check it yourself: switchboard check --config <the gateway's config> --server ${server}`,
        );
      run = async () => {
        const result = await admin.check(server);
        return { ...result, changes: changesSince(latestResults(this.#runs).get(server), result) };
      };
    }
    if (this.#checking) await this.#checking;
    this.#checking = (async () => {
      const result = await run();
      const entry = fleetRun(this.#endpoint().url, [result]);
      this.#runs.push(entry);
      if (this.history) appendRun(this.history, entry);
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
    if (gateway.heldTools?.includes(tool)) {
      const admin = this.#admin();
      const state = await admin.held();
      if ('unavailable' in state) throw new BadRequest(`${approveInLock(tool)} ${state.unavailable}`);
      // Approved on the gateway: pinned in its lock (and on every node with gateway.redis), listed now.
      await admin.approve(tool);
      const listed = (await this.#toolsByUpstream(gateway, true)).get(server)?.get(tool);
      if (listed !== undefined) this.#pins.approve(server, tool, listed);
      return this.view();
    }
    const current = (await this.#toolsByUpstream(gateway)).get(server)?.get(tool);
    this.#pins.approve(server, tool, current);
    return this.view();
  }
}

const approveInLock = (tool: string) =>
  `The gateway hides ${tool} until its new definition is approved in its lock file: switchboard gateway approve --lock <lock file> <config> ${tool}.`;

/**
 * The tools of `server` the gateway holds back: with its admin endpoint, the diff from the pinned
 * definition to the new one, approvable here; without, how to approve them in the lock file.
 */
function heldChanges(gateway: GatewayView, server: string, admin: AdminHeld): FleetToolChange[] {
  if ('unavailable' in admin)
    return (gateway.heldTools ?? [])
      .filter((name) => upstreamOfName(gateway, name) === server)
      .map((name): FleetToolChange => ({ tool: name, change: 'held', diff: approveInLock(name) }));
  return admin.held
    .filter((item) => item.kind === 'tool' && upstreamOfName(gateway, item.name) === server)
    .map((item): FleetToolChange => {
      const before = item.pinned.definition;
      return {
        tool: item.name,
        change: 'held',
        diff: unifiedDiff(
          item.name,
          before === undefined ? '' : pretty(before as Json),
          pretty(item.found.definition as Json),
        ),
        approvable: true,
        ...(before === undefined
          ? {
              note: 'The gateway holds only the hash of the definition approved before (a pin from a version 1 lock, or one another gateway node made through gateway.redis): only the new definition can be shown.',
            }
          : {}),
      };
    });
}
