/**
 * The console's fleet view over the API (`GET /api/fleet`, `POST /api/fleet/check`, `POST /api/fleet/approve`),
 * of a config (`--config FILE`) or of the gateway the console is connected to.
 */

export interface FleetToolChange {
  readonly tool: string;
  /**
   * `changed`: its definition differs from the pinned one; `added`: not pinned yet; `removed`: gone;
   * `held`: a gateway hides it until approved in its lock file.
   */
  readonly change: 'changed' | 'added' | 'removed' | 'held';
  /**
   * The unified diff from the pinned definition (JSON) to the current one; for `held`, the diff of
   * the gateway's pinned and new definitions when its admin endpoint is reachable (`approvable`),
   * otherwise how to approve it in the lock file.
   */
  readonly diff: string;
  /** Set for a held tool the console can approve on the gateway (its admin endpoint). */
  readonly approvable?: boolean;
  /** What the diff cannot show (the gateway knows only the pinned hash: a version 1 lock, or a pin shared by another node). */
  readonly note?: string;
}

export interface FleetServerView {
  readonly name: string;
  readonly transport: 'stdio' | 'http' | 'sse';
  readonly target: string;
  /** From the last check: `up` (checked), `down` (could not be checked), `unknown` (never checked). */
  readonly health: 'up' | 'down' | 'unknown';
  readonly error?: string;
  readonly last?: {
    readonly at: string;
    readonly score: number;
    readonly mustFailures: number;
    readonly revisions: readonly string[];
    readonly changes: readonly string[];
  };
  /** Score of each run, oldest first (from the history file and this console's runs). */
  readonly history: readonly { readonly at: string; readonly score: number | null }[];
  /** The tools whose definitions are pinned (approved). */
  readonly pinned: readonly string[];
  readonly changed: readonly FleetToolChange[];
  /**
   * False for a server behind a gateway without a reachable admin endpoint: the console reaches it
   * only through the gateway, which is checked instead.
   */
  readonly checkable?: boolean;
}

export interface FleetView {
  /** The config file, or for a gateway's fleet its MCP endpoint. */
  readonly config: string;
  /** Set for the fleet of a `switchboard gateway` the console is connected to. */
  readonly gateway?: boolean;
  readonly history?: string;
  /** For a gateway's fleet: why its admin endpoint cannot be used (off, or this console not let in). */
  readonly admin?: string;
  readonly checking: boolean;
  readonly servers: readonly FleetServerView[];
}

/** What serves the fleet view: a config's servers (fleet.ts) or a gateway's (gateway-fleet.ts). */
export interface FleetSource {
  view(): FleetView | Promise<FleetView>;
  /** Checks one server (by name) or all; resolves with the view after. */
  check(server?: string): Promise<FleetView>;
  /** Pins a tool's current definition (or forgets a removed one). */
  approve(server: string, tool: string): FleetView | Promise<FleetView>;
}
