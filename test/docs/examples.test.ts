/**
 * Runs every example under examples/docs/ (compiled to build/examples/docs/), as a reader would.
 * - An example that ends with an `// Output:` comment block must print exactly that.
 * - An example that serves stdio is started by a client, which must be able to list and call it.
 * Every example is one or the other, so none is merely compiled.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type LocalRedis, startRedis } from '../../examples/cluster/services.js';
import { Client } from '../../src/extensions/client.js';
import { StdioClientChannel } from '../../src/transports/stdio/client-channel.js';

const sources = fileURLToPath(new URL('../../../examples/docs/', import.meta.url));
const compiled = fileURLToPath(new URL('../../examples/docs/', import.meta.url));
// Examples start `node`: make sure it is this node, whatever PATH says.
const PATH = `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`;

/** The lines of a trailing `// Output:` block, or undefined when the example has none. */
function expectedOutput(source: string): string | undefined {
  const match = /\n\/\/ Output:\n((?:\/\/.*\n)*)$/.exec(source);
  if (!match) return undefined;
  return match[1]!
    .split('\n')
    .slice(0, -1)
    .map((line) => line.replace(/^\/\/ ?/, ''))
    .join('\n')
    .concat('\n');
}

function run(file: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [file],
      // A hang guard: at load 55 one example took over 30 s.
      { cwd: compiled, env: { ...process.env, PATH, REDIS_URL: redis.url }, timeout: 90_000 },
      (error, stdout, stderr) => {
        const code = error ? (error as { code?: unknown }).code : 0;
        resolve({ code: typeof code === 'number' ? code : null, stdout, stderr });
      },
    );
    child.stdin?.end();
  });
}

const examples = readdirSync(sources)
  .filter((name) => name.endsWith('.ts'))
  .sort();

/** The examples of docs/scaling.md run a cluster: they get a Redis of their own (REDIS_URL). */
let redis: LocalRedis;

describe('examples/docs', { concurrency: 4 }, () => {
  before(async () => {
    redis = await startRedis();
  });
  after(() => redis.stop());
  test('there are examples to run', () => assert.ok(examples.length > 0));

  for (const name of examples) {
    const source = readFileSync(join(sources, name), 'utf8');
    const file = join(compiled, name.replace(/\.ts$/, '.js'));
    const output = expectedOutput(source);
    if (source.includes('serveStdio(')) {
      test(`${name} serves a client over stdio`, async () => {
        const client = new Client({ name: 'docs-test', version: '1.0.0' });
        const channel = new StdioClientChannel({ command: process.execPath, args: [file], stderr: 'pipe' });
        await client.connect(channel);
        const { tools } = await client.listTools();
        assert.ok(tools.length > 0, 'the example server lists no tools');
        const { resources } = await client.listResources();
        for (const resource of resources) await client.readResource(resource.uri);
        await client.close();
        assert.deepEqual(channel.exitStatus, { code: 0, signal: null });
      });
    } else {
      test(`${name} prints its // Output: block`, async () => {
        assert.ok(output !== undefined, `${name} neither serves stdio nor ends with an // Output: block`);
        const { code, stdout, stderr } = await run(file);
        assert.equal(stderr, '');
        assert.equal(code, 0);
        assert.equal(stdout, output);
      });
    }
  }
});

describe('expectedOutput', () => {
  test('reads the trailing block, blank lines included', () => {
    assert.equal(expectedOutput('x();\n\n// Output:\n// a\n//\n//   b\n'), 'a\n\n  b\n');
    assert.equal(expectedOutput('x();\n// a comment\n'), undefined);
    assert.equal(expectedOutput('// Output:\n// a\nmore();\n'), undefined);
  });
});
