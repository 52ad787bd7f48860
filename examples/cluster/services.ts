/**
 * Local services for a cluster on one machine: a `redis-server` and an `nginx` round-robin balancer,
 * each on 127.0.0.1 with a free port, started from the Debian packages (CI installs them: `.ci/run`)
 * and stopped by killing only the process started here. Used by the cluster demo
 * (`npm run --silent cluster:demo`), the cluster tests and the Redis benchmark.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A port nothing listens on now (the kernel's pick). */
export async function freePort(): Promise<number> {
  const probe = createServer();
  probe.listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as { port: number };
  probe.close();
  await once(probe, 'close');
  return port;
}

/**
 * Signals `child` and waits until it has exited. Redis gets SIGKILL (an outage, not a shutdown);
 * nginx SIGTERM, on which its master stops its worker before exiting (a killed master would leave
 * the worker running, holding the port and our pipes).
 */
async function kill(child: ChildProcess | undefined, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill(signal);
  await exited;
}

/** Resolves when `child` prints `ready` on stdout; rejects with its output if it exits first. */
function readyWhen(child: ChildProcess, what: string, ready: (output: string) => boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (ready(output)) {
        child.stdout?.off('data', onData);
        child.stdout?.resume();
        child.stderr?.resume();
        child.off('exit', onExit);
        resolve();
      }
    };
    const onExit = (code: number | null) =>
      reject(new Error(`${what} exited (${code}) before it was ready:\n${output}`));
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('error', (error) =>
      reject(new Error(`Cannot start ${what} (${error.message}); install it: apt-get install ${what}`)),
    );
    child.once('exit', onExit);
  });
}

/** Tries `launch` on free ports until one is not taken meanwhile by another process. */
async function onFreePort<T>(launch: (port: number) => Promise<T>): Promise<{ port: number; value: T }> {
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    try {
      return { port, value: await launch(port) };
    } catch (error) {
      if (attempt >= 3 || !/in use/i.test(String(error))) throw error;
    }
  }
}

export interface LocalRedis {
  readonly url: string;
  readonly port: number;
  /** Kills the server (an outage) and waits until it has exited. */
  stop(): Promise<void>;
  /** Starts it again on the same port (empty: no persistence); resolves once it accepts connections. */
  start(): Promise<void>;
}

function launchRedis(port: number): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--loglevel',
      'notice',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  return readyWhen(child, 'redis-server', (output) => output.includes('Ready to accept connections')).then(
    () => child,
  );
}

export async function startRedis(): Promise<LocalRedis> {
  const started = await onFreePort(launchRedis);
  let child: ChildProcess | undefined = started.value;
  const { port } = started;
  process.once('exit', () => child?.kill('SIGKILL'));
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    async stop() {
      const running = child;
      child = undefined;
      await kill(running);
    },
    async start() {
      child = await launchRedis(port);
    },
  };
}

export interface LocalBalancer {
  /** The balancer's base URL, e.g. `http://127.0.0.1:41234`. */
  readonly origin: string;
  stop(): Promise<void>;
}

const NGINX = ['/usr/sbin/nginx', '/usr/bin/nginx'].find(existsSync) ?? 'nginx';

/** Resolves once something accepts connections on the port (nginx prints nothing when ready). */
async function accepting(port: number, child: ChildProcess): Promise<void> {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`nginx exited (${child.exitCode}) before it was ready`);
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export interface BalancerOptions {
  /**
   * Sticky instead of round-robin: the nginx variable whose value picks the node (`hash ...
   * consistent`), e.g. `$http_authorization` keeps each credential's requests on one node.
   */
  readonly stickBy?: string;
}

/**
 * nginx in round-robin over `upstreams` (`host:port` each), no stickiness unless `stickBy` says:
 * each request goes to the next node. Event streams are passed through unbuffered; a request a dead
 * node refused goes to the next one (`proxy_next_upstream`).
 */
export async function startBalancer(
  upstreams: readonly string[],
  options: BalancerOptions = {},
): Promise<LocalBalancer> {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-nginx-'));
  const launch = async (port: number) => {
    const config = join(dir, 'nginx.conf');
    writeFileSync(
      config,
      `worker_processes 1;
daemon off;
pid ${join(dir, 'nginx.pid')};
error_log stderr error;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${join(dir, 'body')};
  proxy_temp_path ${join(dir, 'proxy')};
  fastcgi_temp_path ${join(dir, 'fastcgi')};
  uwsgi_temp_path ${join(dir, 'uwsgi')};
  scgi_temp_path ${join(dir, 'scgi')};
  upstream nodes {
${options.stickBy === undefined ? '' : `    hash ${options.stickBy} consistent;\n`}${upstreams.map((u) => `    server ${u} max_fails=0;`).join('\n')}
    keepalive 32;
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://nodes;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_buffering off;
      proxy_request_buffering off;
      proxy_read_timeout 1h;
      proxy_next_upstream error timeout;
    }
  }
}
`,
    );
    const child = spawn(NGINX, ['-c', config, '-p', dir], { stdio: ['ignore', 'ignore', 'pipe'] });
    let output = '';
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const failed = once(child, 'exit').then(() => {
      throw new Error(`nginx could not start: ${output}`);
    });
    failed.catch(() => {});
    await Promise.race([accepting(port, child), failed]);
    return child;
  };
  const { port, value: child } = await onFreePort(launch);
  process.once('exit', () => child.kill('SIGTERM'));
  return {
    origin: `http://127.0.0.1:${port}`,
    async stop() {
      await kill(child, 'SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
