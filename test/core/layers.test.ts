/**
 * The layers of src/ as docs/architecture.md draws them, held by the import graph: which folder may
 * import which, no import cycle between files (type-only imports count: a cycle of types is still
 * two files that must be read together), and the specific rules issue 9 set — the framework knows
 * no extension, protocol/ knows no schema/, transports take frames from protocol/.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type ImportEdge, importCycles, importGraph } from '../helpers/import-graph.js';

const SRC = fileURLToPath(new URL('../../../src/', import.meta.url));
const edges = importGraph(SRC);
const folder = (file: string) => (file.includes('/') ? (file.split('/')[0] as string) : '.');
const describeEdge = (e: ImportEdge) => `${e.from} -> ${e.to}${e.typeOnly ? ' (type)' : ''}`;

/** What each folder may import besides itself. The entry files at the top ('.') import anything. */
const MAY_IMPORT: Record<string, readonly string[]> = {
  util: [],
  protocol: ['util'],
  schema: ['protocol', 'util'],
  engine: ['protocol', 'util'],
  server: ['engine', 'protocol', 'schema', 'util'],
  client: ['engine', 'protocol', 'schema', 'util'],
  transports: ['engine', 'protocol', 'server', 'util'],
  extensions: ['client', 'engine', 'protocol', 'schema', 'server', 'util'],
  node: ['auth', 'engine', 'protocol', 'transports', 'util'],
  testing: ['engine', 'protocol', 'util'],
  // OAuth: the resource server plugs into the HTTP handler and reads the scopes items declare.
  auth: ['engine', 'protocol', 'server', 'transports', 'util'],
  // The checker reads a protected server's challenge and metadata addresses with auth/'s own parsers,
  // and judges the Skills extension with its frontmatter rules and digest (extensions/skills).
  check: [
    'auth',
    'engine',
    'extensions',
    'node',
    'protocol',
    'schema',
    'server',
    'testing',
    'transports',
    'util',
  ],
  // The gateway sits above everything but the CLI, whose `gateway` command imports it.
  // Its front door is auth/'s protected resource; its shared counters and sessions live in redis/.
  gateway: [
    'auth',
    'client',
    'engine',
    'extensions',
    'node',
    'protocol',
    'redis',
    'schema',
    'server',
    'transports',
    'util',
  ],
  // Redis-backed stores implement the interfaces of server/, extensions/tasks and the HTTP event store.
  redis: ['extensions', 'protocol', 'server', 'transports', 'util'],
  // The web console (its page included) drives a Client; the CLI's `console` command serves it.
  console: [
    'check',
    'client',
    'engine',
    'extensions',
    'fleet',
    'gateway',
    'node',
    'protocol',
    'transports',
    'util',
  ],
  // `switchboard test`: drives a Client, reuses the checker's synthesizer and report look and the
  // gateway's mcpServers reader; the CLI's `test` command is its only user besides its entry point.
  mcptest: [
    'check',
    'client',
    'engine',
    'extensions',
    'gateway',
    'node',
    'protocol',
    'schema',
    'transports',
    'util',
  ],
  // The fleet (clients' config files, server.json, whole-config checks) drives the checker and a
  // Client, and reads configs with the gateway's parser.
  fleet: ['check', 'client', 'engine', 'extensions', 'gateway', 'node', 'protocol', 'transports', 'util'],
  cli: [
    'auth',
    'check',
    'client',
    'console',
    'engine',
    'extensions',
    'fleet',
    'gateway',
    'mcptest',
    'node',
    'protocol',
    'schema',
    'server',
    'transports',
    'util',
  ],
};

describe('the layers of src/', () => {
  test('the scanner sees imports of every kind, and finds a cycle where there is one', () => {
    const has = (from: string, to: string, typeOnly: boolean) =>
      edges.some((e) => e.from === from && e.to === to && e.typeOnly === typeOnly);
    assert.ok(has('server/server.ts', 'server/connection.ts', false), 'a value import');
    assert.ok(has('server/connection.ts', 'server/link.ts', true), 'a type-only import');
    assert.ok(edges.length > 300, `only ${edges.length} imports found in ${SRC}`);
    const cyclic: ImportEdge[] = [
      { from: 'a.ts', to: 'b.ts', typeOnly: false },
      { from: 'b.ts', to: 'c.ts', typeOnly: true },
      { from: 'c.ts', to: 'a.ts', typeOnly: false },
      { from: 'c.ts', to: 'd.ts', typeOnly: false },
    ];
    assert.deepEqual(
      importCycles(cyclic, () => true),
      [['a.ts', 'b.ts', 'c.ts']],
    );
    assert.deepEqual(
      importCycles(cyclic, (e) => !e.typeOnly),
      [],
    );
  });

  test('no two files import each other, directly or around a loop, types included', () => {
    assert.deepEqual(
      importCycles(edges, () => true),
      [],
    );
  });

  test('each folder imports only the layers below it', () => {
    const unlisted = [...new Set(edges.map((e) => folder(e.from)))].filter(
      (f) => f !== '.' && MAY_IMPORT[f] === undefined,
    );
    assert.deepEqual(
      unlisted,
      [],
      `src/${unlisted[0]}/ has no row in MAY_IMPORT (test/core/layers.test.ts): add one naming the folders it may import, and draw it in docs/architecture.md`,
    );
    const crossing = edges.filter((e) => {
      const from = folder(e.from);
      const to = folder(e.to);
      if (from === to || from === '.') return false;
      const allowed = MAY_IMPORT[from];
      return allowed === undefined || !allowed.includes(to);
    });
    assert.deepEqual(crossing.map(describeEdge), []);
  });

  test('the framework knows no extension: server/ and client/ import nothing from extensions/', () => {
    const wrong = edges.filter(
      (e) => (folder(e.from) === 'server' || folder(e.from) === 'client') && folder(e.to) === 'extensions',
    );
    assert.deepEqual(wrong.map(describeEdge), []);
  });

  test('protocol/ imports nothing from schema/ (schema/ builds on protocol/)', () => {
    const wrong = edges.filter((e) => folder(e.from) === 'protocol' && folder(e.to) === 'schema');
    assert.deepEqual(wrong.map(describeEdge), []);
  });

  test('transports write frames from protocol/frames.ts, not through engine/peer.ts', () => {
    const wrong = edges.filter(
      (e) => folder(e.from) === 'transports' && e.to === 'engine/peer.ts' && !e.typeOnly,
    );
    assert.deepEqual(wrong.map(describeEdge), []);
    assert.ok(
      edges.some((e) => e.from === 'transports/http/server/modern.ts' && e.to === 'protocol/frames.ts'),
    );
  });
});
