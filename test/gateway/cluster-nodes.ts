/**
 * `switchboard gateway` processes for the cluster tests (`gateway.redis`): each started with the
 * same config on a port of its own, signed-in clients of the project's, both eras.
 */
import { freePort } from '../../examples/cluster/services.js';
import { Client } from '../../src/extensions/client.js';
import { nodeFetch } from '../../src/node/fetch.js';
import { StreamableHttpClientChannel } from '../../src/transports/http/client/streamable-channel.js';
import { CLI, CLI_ENV } from '../cli/run-cli.js';
import { spawnOwned } from '../helpers/owned-children.js';

export interface GatewayNode {
  readonly port: number;
  /** What it wrote on stderr so far (the start-up summary, the JSON log lines). */
  stderr(): string;
  /** Resolves once its stderr matches `pattern`. */
  waitFor(pattern: RegExp): Promise<void>;
  kill(signal: NodeJS.Signals): Promise<unknown>;
}

/** A gateway node of `config` (its variables from `env`), once it serves; `servers` is how many it names. */
export async function startNode(
  config: string,
  env: Record<string, string>,
  extra: string[] = [],
  servers = 1,
): Promise<GatewayNode> {
  const port = await freePort();
  const child = spawnOwned(process.execPath, [CLI, 'gateway', config, '--port', String(port), ...extra], {
    env: { ...CLI_ENV, ...env },
  });
  let stderr = '';
  const waiting = new Set<{ pattern: RegExp; resolve: () => void }>();
  const exited = new Promise((resolve) => child.on('exit', resolve));
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    for (const wait of waiting) {
      if (!wait.pattern.test(stderr)) continue;
      waiting.delete(wait);
      wait.resolve();
    }
  });
  const waitFor = (pattern: RegExp) =>
    new Promise<void>((resolve, reject) => {
      if (pattern.test(stderr)) return resolve();
      waiting.add({ pattern, resolve });
      child.on('exit', () => reject(new Error(`the gateway exited: ${stderr}`)));
    });
  await waitFor(new RegExp(`serving ${servers} servers? at \\S+\\n`));
  return {
    port,
    stderr: () => stderr,
    waitFor,
    kill(signal) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** The project's client signed in with `key` (`tasks`: it declares the tasks extension). */
export async function connect(
  url: string,
  key: string,
  era: 'auto' | 'legacy',
  tasks = false,
): Promise<Client> {
  const client = new Client({ name: `cluster-${era}`, version: '1.0.0' }, { version: era, tasks });
  await client.connect(
    new StreamableHttpClientChannel(url, {
      fetch: nodeFetch,
      rememberEra: false,
      headers: { authorization: `Bearer ${key}` },
    }),
  );
  return client;
}
