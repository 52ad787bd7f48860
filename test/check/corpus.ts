/**
 * The corpus of real servers nobody here wrote, for the test that `switchboard check` gives them no
 * false verdict (test/check/corpus-*.test.ts): each server started as its users start it, and the
 * verdict of every rule it fails, warns on or is advised on, written down with the spec's reason.
 * A verdict that is not listed (a false one, or a real one nobody reviewed) fails the test, and so
 * does a listed one that is gone.
 */
import assert from 'node:assert/strict';
import { fork, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Revision } from 'switchboard';
import { type CheckReport, type CheckTarget, checkServer } from 'switchboard/check';

const require = createRequire(import.meta.url);
const packageDir = (name: string) => dirname(require.resolve(`${name}/package.json`));
const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/${name}.js`, import.meta.url));

export type CorpusServer = 'everything' | 'memory' | 'fastmcp' | 'sdk-v2' | 'tmcp' | 'mcp-proxy';

/** A server of the corpus, started: its target, and how to stop it. */
interface Started {
  readonly target: CheckTarget;
  stop(): Promise<void>;
}

const memoryServer = () => join(packageDir('@modelcontextprotocol/server-memory'), 'dist/index.js');

/** Resolves once something accepts connections on `port` (mcp-proxy says "starting" before it listens). */
async function accepting(port: number, deadline: number): Promise<void> {
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.end();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on port ${port}`);
    // Polled: the proxy tells nothing when it listens.
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A free loopback port (the proxy takes a port number, not 0). */
async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject()));
    });
  });
}

export async function startCorpusServer(name: CorpusServer): Promise<Started> {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-corpus-'));
  const cleanup = async () => rmSync(dir, { recursive: true, force: true });
  const memoryEnv = { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') };
  const stdio = (args: string[], env?: Record<string, string>): Started => ({
    target: { kind: 'stdio', command: process.execPath, args, ...(env ? { env } : {}) },
    stop: cleanup,
  });
  switch (name) {
    case 'everything':
      return stdio([join(packageDir('@modelcontextprotocol/server-everything'), 'dist/index.js'), 'stdio']);
    case 'memory':
      return stdio([memoryServer()], memoryEnv);
    case 'fastmcp':
      return stdio([fixture('corpus-fastmcp')]);
    case 'sdk-v2':
      return stdio([fixture('corpus-sdk-v2')]);
    case 'tmcp': {
      const child = fork(fileURLToPath(new URL('../../bench/fixtures/tmcp-http.js', import.meta.url)), [], {
        stdio: 'ignore',
      });
      const url = await new Promise<string>((resolve, reject) => {
        child.on(
          'message',
          (m: { type?: string; url?: string }) => m.type === 'listening' && resolve(m.url!),
        );
        child.on('exit', (code) => reject(new Error(`the tmcp fixture exited with ${code}`)));
      });
      return { target: { kind: 'http', url }, stop: async () => void child.kill() };
    }
    case 'mcp-proxy': {
      const port = await freePort();
      const child = spawn(
        process.execPath,
        [
          join(packageDir('mcp-proxy'), 'dist/bin/mcp-proxy.mjs'),
          '--port',
          String(port),
          '--host',
          '127.0.0.1',
          '--',
          process.execPath,
          memoryServer(),
        ],
        { stdio: 'ignore', env: { ...process.env, ...memoryEnv } },
      );
      await accepting(port, Date.now() + 30_000);
      const stop = async () => {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill();
        await exited;
        await cleanup();
      };
      return { target: { kind: 'http', url: `http://127.0.0.1:${port}/mcp` }, stop };
    }
  }
}

/** `<revision> <id> <status>` of every failed, warned and advised check. */
export const verdicts = (report: CheckReport) =>
  report.checks
    .filter((c) => c.status === 'failed' || c.status === 'warning' || c.status === 'advice')
    .map((c) => `${c.revision} ${c.id} ${c.status}`)
    .sort();

/**
 * Checks `name` in `revisions` and holds every verdict to `expected` (`<revision> <id> <status>`
 * to the reading of the spec that makes it right).
 */
export async function assertCorpusVerdicts(
  name: CorpusServer,
  revisions: readonly Revision[],
  expected: Readonly<Record<string, string>>,
  /** Rules left out (a verdict that depends on the machine's load). */
  skip: readonly string[] = [],
): Promise<CheckReport> {
  const server = await startCorpusServer(name);
  try {
    // Every tool called (the corpus servers change nothing that matters: a temporary memory file).
    const report = await checkServer(server.target, { revisions, callTools: true, timeoutMs: 5_000, skip });
    const detail = JSON.stringify(
      report.checks.filter((c) => c.evidence).map((c) => [c.revision, c.id, c.status, c.message]),
      null,
      1,
    );
    assert.deepEqual(verdicts(report), Object.keys(expected).sort(), `${name}: ${detail}`);
    return report;
  } finally {
    await server.stop();
  }
}

/**
 * Why each verdict the corpus earns is right: the sentence of the spec (or, for advice, the
 * reading) it rests on, as reviewed against the spec's text (spec/text/).
 */
export const WHY = {
  'schema.server-messages failed':
    'a message the revision\'s schema refuses ("the source of truth for all protocol messages")',
  'schema.revision-fields warning':
    'a field the negotiated revision does not define ("Respect the negotiated protocol version"; a SHOULD: the schemas allow extra fields)',
  'jsonrpc.parse-error warning':
    'JSON-RPC 2.0 answers invalid JSON with -32700 (MCP: "MUST follow the JSON-RPC 2.0 specification"; held as a SHOULD)',
  'jsonrpc.invalid-request warning': 'JSON-RPC 2.0 answers an invalid request with -32600 (held as a SHOULD)',
  'jsonrpc.batch failed': '2025-03-26: "MCP implementations ... MUST support receiving JSON-RPC batches"',
  'jsonrpc.batch-refused warning':
    '2025-06-18 removed batching: "The body of the POST request MUST be a single JSON-RPC request, notification, or response" (held as a SHOULD on the server)',
  'lifecycle.unsupported-version failed':
    '2026-07-28: a request naming a version the server does not implement "MUST respond with an UnsupportedProtocolVersionError"',
  'capabilities.undeclared-refused warning':
    'completion/complete served without the completions capability ("Only use capabilities that were successfully negotiated")',
  'tools.unknown-tool advice':
    'unknown tools are protocol errors, a description without a keyword: advice only',
  'resources.not-found warning': 'before 2026-07-28: "Servers SHOULD return ... Resource not found: -32002"',
  'prompts.missing-arguments warning':
    '"Servers SHOULD return ... Missing required arguments: -32602 (Invalid params)"',
  'prompts.unknown-prompt warning':
    '"Servers SHOULD return ... Invalid prompt name: -32602 (Invalid params)"',
  'pagination.invalid-cursor warning':
    'a forged cursor served: "Invalid cursors SHOULD result in an error with code -32602"',
  'logging.invalid-level warning':
    'an unknown level answered with -32603: "Servers SHOULD return ... Invalid log level: -32602"',
  'http.unknown-session failed':
    'a session id the server never issued is served; the reading: to the server it is a terminated one, which "MUST" get 404',
  'http.delete-session failed':
    'DELETE answered 200 yet the session goes on: a terminated session "MUST" get 404 afterwards',
  'http.protocol-version-400 failed':
    '"If the server receives a request with an invalid or unsupported MCP-Protocol-Version, it MUST respond with 400 Bad Request"',
  'security.origin failed':
    '"Servers MUST validate the Origin header" (403 from 2025-11-25 on): a foreign Origin was served',
  'security.host advice': 'a foreign Host served: advice (the spec names only the Origin check)',
  'security.body-limit advice': 'a 16 MiB body served: advice (no revision sets a size limit)',
} as const;

/** The expected verdicts of `ids` (keys of WHY) in each of `revisions`. */
export function expect(
  revisions: readonly Revision[],
  ...ids: readonly (keyof typeof WHY)[]
): Record<string, string> {
  return Object.fromEntries(revisions.flatMap((revision) => ids.map((id) => [`${revision} ${id}`, WHY[id]])));
}
