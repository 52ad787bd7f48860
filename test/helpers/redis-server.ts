/**
 * A real `redis-server` for a test file: on 127.0.0.1, a free port, no persistence, stopped (only
 * it) when the test is done. `stop()` and `start()` take it down and bring it back on the same port,
 * for outage tests. CI installs the Debian package (`.ci/run`).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';

export interface TestRedis {
  readonly url: string;
  readonly port: number;
  /** Stops the server (SIGKILL: an outage, not a shutdown) and waits until it has exited. */
  stop(): Promise<void>;
  /** Starts it again on the same port; resolves once it accepts connections. */
  start(): Promise<void>;
}

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

function launch(port: number): Promise<ChildProcess> {
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
  return new Promise((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) {
        child.stdout!.off('data', onData);
        child.stdout!.resume();
        child.stderr!.resume();
        resolve(child);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once('error', (error) =>
      reject(
        new Error(`Cannot start redis-server (${error.message}); install it: apt-get install redis-server`),
      ),
    );
    child.once('exit', (code) =>
      reject(new Error(`redis-server exited (${code}) before it was ready:\n${output}`)),
    );
  });
}

export async function startRedis(): Promise<TestRedis> {
  let child: ChildProcess | undefined;
  let port = 0;
  for (let attempt = 0; child === undefined; attempt++) {
    port = await freePort();
    try {
      child = await launch(port);
    } catch (error) {
      // Another process took the port between the probe and the launch: pick another.
      if (attempt >= 3 || !String(error).includes('in use')) throw error;
    }
  }
  const stop = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = once(running, 'exit');
    running.kill('SIGKILL');
    await exited;
  };
  process.once('exit', () => child?.kill('SIGKILL'));
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop,
    async start() {
      child = await launch(port);
    },
  };
}
