/**
 * server.json packages that serve HTTP (`transport` streamable-http or sse, with a `url` whose
 * `{variables}` are the package's own arguments and environment variables), in each revision of the
 * schema: `check --server-json` runs the package and checks its URL; `add --server-json` writes the
 * URL into each client and verifies it with the package running. The package is the example server
 * behind a stand-in for npx/uvx (a script that drops the package name and runs the example).
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { declaredServers, parseServerJson } from '../../src/fleet/server-json.js';
import { runCli } from '../cli/run-cli.js';
import { EXAMPLE, tempHome } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'switchboard-server-json-http-'));
/** Stands in for npx or uvx: skips `-y` and the package, runs the example with the rest (and $PORT). */
const runner = join(dir, 'runner');
writeFileSync(
  runner,
  `#!/bin/sh\nwhile [ "$1" = "-y" ]; do shift; done\nshift\nexec "${process.execPath}" "${EXAMPLE}" \${PORT:+--port "$PORT"} "$@"\n`,
);
chmodSync(runner, 0o755);

/** A port nothing listens on now (the package is to listen on it). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const declared = async (json: unknown, given: Record<string, string> = {}) =>
  (await declaredServers(parseServerJson(JSON.stringify(json), 'server.json'), { given })).map((d) =>
    'error' in d
      ? { error: d.error }
      : { label: d.label, spec: d.spec, start: d.start, transport: d.transport },
  );

describe('server.json packages that serve HTTP, each schema revision', () => {
  test('2025-07-09 (snake_case): the url filled from a named package argument', async () => {
    const json = {
      $schema: 'https://static.modelcontextprotocol.io/schemas/2025-07-09/server.schema.json',
      name: 'io.github.acme/web',
      version_detail: { version: '1.0.0' },
      packages: [
        {
          registry_type: 'npm',
          identifier: '@acme/web',
          version: '1.0.0',
          transport: { type: 'streamable-http', url: 'http://127.0.0.1:{port}/mcp' },
          package_arguments: [{ type: 'named', name: '--port', value_hint: 'port', is_required: true }],
        },
      ],
    };
    assert.deepEqual(await declared(json, { '--port': '4100' }), [
      {
        label: 'package npm @acme/web@1.0.0 (streamable-http at http://127.0.0.1:4100/mcp)',
        spec: { kind: 'url', url: 'http://127.0.0.1:4100/mcp', transport: 'http', headers: {} },
        start: { kind: 'stdio', command: 'npx', args: ['-y', '@acme/web@1.0.0', '--port', '4100'], env: {} },
        transport: 'streamable-http',
      },
    ]);
  });

  for (const revision of ['2025-09-16', '2025-09-29', '2025-10-11']) {
    test(`${revision} (camelCase): the url from an environment variable and a positional valueHint, headers`, async () => {
      const json = {
        $schema: `https://static.modelcontextprotocol.io/schemas/${revision}/server.schema.json`,
        name: 'io.github.acme/web',
        version: '2.0.0',
        packages: [
          {
            registryType: 'pypi',
            identifier: 'acme-web',
            version: '2.0.0',
            transport: {
              type: 'streamable-http',
              url: 'http://{HOST}:{port}/{base}',
              headers: [{ name: 'X-Api-Key', isSecret: true, isRequired: true }],
            },
            packageArguments: [{ type: 'positional', valueHint: 'base', default: 'mcp' }],
            environmentVariables: [
              { name: 'HOST', default: '127.0.0.1' },
              { name: 'port', isRequired: true },
            ],
          },
        ],
      };
      const [one] = await declared(json, { port: '4200' });
      assert.deepEqual(one, {
        label: 'package pypi acme-web@2.0.0 (streamable-http at http://127.0.0.1:4200/mcp)',
        spec: {
          kind: 'url',
          url: 'http://127.0.0.1:4200/mcp',
          transport: 'http',
          headers: { 'X-Api-Key': '${X_API_KEY}' },
        },
        start: {
          kind: 'stdio',
          command: 'uvx',
          args: ['acme-web==2.0.0', 'mcp'],
          env: { HOST: '127.0.0.1', port: '4200' },
        },
        transport: 'streamable-http',
      });
    });
  }

  test('2025-10-17 and 2025-12-11: an sse package; a url naming what no input gives is refused by name', async () => {
    for (const revision of ['2025-10-17', '2025-12-11']) {
      const json = {
        $schema: `https://static.modelcontextprotocol.io/schemas/${revision}/server.schema.json`,
        name: 'io.github.acme/web',
        version: '3.0.0',
        packages: [
          {
            registryType: 'oci',
            identifier: 'ghcr.io/acme/web:3.0.0',
            transport: { type: 'sse', url: 'http://127.0.0.1:8080/sse' },
            runtimeArguments: [{ type: 'named', name: '-p', value: '8080:8080' }],
          },
          {
            registryType: 'npm',
            identifier: '@acme/web',
            version: '3.0.0',
            transport: { type: 'streamable-http', url: 'http://127.0.0.1:{port}/mcp' },
          },
        ],
      };
      const [sse, unknown] = await declared(json);
      assert.deepEqual(sse, {
        label: 'package oci ghcr.io/acme/web:3.0.0 (sse at http://127.0.0.1:8080/sse)',
        spec: { kind: 'url', url: 'http://127.0.0.1:8080/sse', transport: 'sse', headers: {} },
        start: {
          kind: 'stdio',
          command: 'docker',
          args: ['run', '-i', '--rm', '-p', '8080:8080', 'ghcr.io/acme/web:3.0.0'],
          env: {},
        },
        transport: 'sse',
      });
      assert.match(
        String((unknown as { error: string }).error),
        /serves at http:\/\/127\.0\.0\.1:\{port\}\/mcp, but no argument or environment variable of the package gives \{port\}: give it with --env port=VALUE/,
      );
    }
  });
});

/** A server.json whose one package is the example server (through the runner) serving HTTP on `port`. */
function exampleJson(port: number, transport: 'streamable-http' | 'sse', revision = '2025-12-11'): string {
  const path = join(dir, `server-${transport}-${port}.json`);
  writeFileSync(
    path,
    JSON.stringify({
      $schema: `https://static.modelcontextprotocol.io/schemas/${revision}/server.schema.json`,
      name: 'io.github.switchboard/switchboard-example',
      version: '1.0.0',
      packages: [
        {
          registryType: 'npm',
          identifier: '@switchboard/example',
          version: '1.0.0',
          runtimeHint: runner,
          transport: {
            type: transport,
            url: `http://127.0.0.1:{PORT}/${transport === 'sse' ? 'sse' : 'mcp'}`,
          },
          environmentVariables: [{ name: 'PORT', value: String(port) }],
        },
      ],
    }),
  );
  return path;
}

describe('--server-json with a package that serves HTTP, against the running package', () => {
  test('check --server-json runs the package, checks its URL, agrees with the file, and stops it', async () => {
    const port = await freePort();
    const run = await runCli([
      'check',
      '--server-json',
      exampleJson(port, 'streamable-http'),
      '--revision',
      '2026-07-28',
      '--quiet',
    ]);
    assert.ok(run.code === 0 || run.code === 1, run.stdout + run.stderr);
    assert.match(run.stdout, new RegExp(`streamable-http at http://127\\.0\\.0\\.1:${port}/mcp`));
    assert.match(run.stdout, /The running server agrees with .* \(name, version, transport\)/);
    assert.doesNotMatch(run.stdout, /could not be checked/);
    // Stopped: nothing listens on its port any more.
    await assert.rejects(fetch(`http://127.0.0.1:${port}/mcp`));
  });

  test('check --server-json: an sse package is checked over HTTP+SSE', async () => {
    const port = await freePort();
    const run = await runCli([
      'check',
      '--server-json',
      exampleJson(port, 'sse', '2025-10-17'),
      '--revision',
      '2024-11-05',
      '--quiet',
    ]);
    assert.ok(run.code === 0 || run.code === 1, run.stdout + run.stderr);
    assert.match(run.stdout, /The running server agrees with .* \(name, version, transport\)/);
    await assert.rejects(fetch(`http://127.0.0.1:${port}/sse`));
  });

  test('a package that exits before it serves is reported with its stderr', async () => {
    const path = join(dir, 'server-exits.json');
    writeFileSync(
      path,
      JSON.stringify({
        name: 'io.github.acme/broken',
        version: '1.0.0',
        packages: [
          {
            registryType: 'npm',
            identifier: '@acme/broken',
            version: '1.0.0',
            runtimeHint: runner,
            transport: { type: 'streamable-http', url: 'http://127.0.0.1:9/mcp' },
            packageArguments: [{ type: 'positional', value: '--no-such-mode' }],
          },
        ],
      }),
    );
    const run = await runCli(['check', '--server-json', path, '--quiet']);
    assert.equal(run.code, 2, run.stdout + run.stderr);
    assert.match(
      run.stdout + run.stderr,
      /was to serve http:\/\/127\.0\.0\.1:9\/mcp, but it exited \(code 2\) before it did/,
    );
  });

  test('add --server-json writes the URL, says how to start the package, and verifies with it running', async () => {
    const port = await freePort();
    const h = tempHome();
    const run = await h.run([
      'add',
      'example',
      '--server-json',
      exampleJson(port, 'streamable-http'),
      '--client',
      'cursor,claude-desktop',
    ]);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const url = `http://127.0.0.1:${port}/mcp`;
    assert.match(
      run.stdout,
      new RegExp(
        `The package serves streamable-http at ${url.replace(/\./g, '\\.')}: .*start it with: ${runner.replace(/[.]/g, '\\.')} -y @switchboard/example@1\\.0\\.0 \\(environment: PORT\\)`,
      ),
    );
    assert.deepEqual(JSON.parse(h.read('.cursor/mcp.json')).mcpServers.example, { url });
    assert.match(run.stdout, /^cursor: verified: switchboard-example 1\.0\.0/m);
    assert.match(run.stdout, /^claude-desktop: verified: switchboard-gateway .*, 11 tools\)/m);
    await assert.rejects(fetch(url));
  });
});
