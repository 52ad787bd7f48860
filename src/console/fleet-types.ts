/** The console's fleet view over the API (`GET /api/fleet`, `POST /api/fleet/check`, `POST /api/fleet/approve`). */

export interface FleetToolChange {
  readonly tool: string;
  /** `changed`: its definition differs from the pinned one; `added`: not pinned yet; `removed`: gone. */
  readonly change: 'changed' | 'added' | 'removed';
  /** The unified diff from the pinned definition (JSON) to the current one. */
  readonly diff: string;
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
}

export interface FleetView {
  readonly config: string;
  readonly history?: string;
  readonly checking: boolean;
  readonly servers: readonly FleetServerView[];
}
