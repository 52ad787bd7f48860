/** How long and how often: the full run (`npm run bench`) and the smoke pass (`--smoke`). */

export interface Config {
  readonly smoke: boolean;
  readonly runs: number;
  /**
   * Throughput cells over stdio (seq, 64 in flight): warm-up, measured window, and how many runs of
   * them (more than `runs`: they are short, and sequential calls are the noisiest figure there is).
   */
  readonly load: { readonly runs: number; readonly warmupMs: number; readonly durationMs: number };
  /** The same for the one-side-alone cells (client x server matrix). */
  readonly matrix: { readonly warmupMs: number; readonly durationMs: number };
  readonly inFlight: number;
  /** Cold starts per run (the first is discarded as warm-up of the disk cache). */
  readonly coldIterations: number;
  readonly payload: { readonly sizes: readonly number[]; readonly reps: readonly number[] };
  readonly list: { readonly tools: number; readonly warmupMs: number; readonly durationMs: number };
  readonly http: {
    readonly warmupMs: number;
    readonly durationMs: number;
    readonly mixClients: number;
    readonly sessions: { readonly warm: number; readonly count: number };
  };
  /** A worker that takes longer than this is killed and its cell reported as failed. */
  readonly jobTimeoutMs: number;
}

export const FULL: Config = {
  smoke: false,
  runs: 3,
  load: { runs: 5, warmupMs: 400, durationMs: 1500 },
  matrix: { warmupMs: 300, durationMs: 1500 },
  inFlight: 64,
  coldIterations: 16,
  payload: { sizes: [1e3, 1e5, 1e6, 1e7], reps: [100, 30, 10, 3] },
  list: { tools: 1000, warmupMs: 300, durationMs: 1500 },
  http: { warmupMs: 300, durationMs: 1200, mixClients: 50, sessions: { warm: 20, count: 1000 } },
  jobTimeoutMs: 120_000,
};

/** About a second per scenario: proves every cell runs, measures nothing worth quoting. */
export const SMOKE: Config = {
  smoke: true,
  runs: 1,
  load: { runs: 1, warmupMs: 100, durationMs: 300 },
  matrix: { warmupMs: 50, durationMs: 200 },
  inFlight: 64,
  coldIterations: 2,
  payload: { sizes: [1e3, 1e5, 1e6], reps: [3, 2, 1] },
  list: { tools: 1000, warmupMs: 50, durationMs: 200 },
  http: { warmupMs: 50, durationMs: 200, mixClients: 50, sessions: { warm: 2, count: 20 } },
  // A hang guard, not a timing: the cold job spawns 14 servers and the suite runs on a 2-core
  // machine other work keeps busy (issue 15), where it once took over a minute.
  jobTimeoutMs: 180_000,
};
