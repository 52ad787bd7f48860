/**
 * server.json in every published revision of the Registry's schema: each package becomes the
 * command its registryType implies, each remote a URL with its headers; required inputs are asked
 * for (or named with the flag to give them), secrets become references. `add --server-json` and
 * `check --server-json` (where the running server disagrees with the file) against real servers.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { serveExampleOverHttp } from '../../examples/server.js';
import { FleetError } from '../../src/fleet/errors.js';
import { declaredServers, parseServerJson } from '../../src/fleet/server-json.js';
import { runCli } from '../cli/run-cli.js';
import { tempHome } from './helpers.js';

const specs = async (
  json: unknown,
  given: Record<string, string> = {},
  ask?: (q: string) => Promise<string>,
) =>
  (
    await declaredServers(parseServerJson(JSON.stringify(json), 'server.json'), {
      given,
      ...(ask ? { ask } : {}),
    })
  ).map((d) =>
    'error' in d ? { error: d.error } : { spec: d.spec, secrets: d.secrets, transport: d.transport },
  );

describe('server.json, every revision of its schema', () => {
  test('2025-07-09 as first published: registry_name, name, version_detail', async () => {
    const json = {
      $schema: 'https://modelcontextprotocol.io/schemas/draft/2025-07-09/server.json',
      name: 'io.github.acme/weather',
      version_detail: { version: '1.2.0' },
      packages: [
        {
          registry_name: 'npm',
          name: '@acme/weather',
          version: '1.2.0',
          environment_variables: [{ name: 'WEATHER_KEY', is_required: true, is_secret: true }],
        },
      ],
      remotes: [{ transport_type: 'sse', url: 'https://weather.example/sse' }],
    };
    assert.equal(parseServerJson(JSON.stringify(json), 'f').version, '1.2.0');
    assert.deepEqual(await specs(json), [
      {
        spec: {
          kind: 'stdio',
          command: 'npx',
          args: ['-y', '@acme/weather@1.2.0'],
          env: { WEATHER_KEY: '${WEATHER_KEY}' },
        },
        secrets: ['WEATHER_KEY'],
        transport: 'stdio',
      },
      {
        spec: { kind: 'url', url: 'https://weather.example/sse', transport: 'sse', headers: {} },
        secrets: [],
        transport: 'sse',
      },
    ]);
  });

  test('2025-07-09 later form: registry_type, identifier, transport, runtime and package arguments (snake_case)', async () => {
    const json = {
      $schema: 'https://static.modelcontextprotocol.io/schemas/2025-07-09/server.schema.json',
      name: 'io.github.acme/files',
      version: '0.3.0',
      packages: [
        {
          registry_type: 'pypi',
          identifier: 'acme-files',
          version: '0.3.0',
          runtime_hint: 'uvx',
          transport: { type: 'stdio' },
          runtime_arguments: [{ type: 'named', name: '--python', value: '3.12' }],
          package_arguments: [
            { type: 'positional', value_hint: 'root', is_required: true },
            { type: 'named', name: '--read-only', value: 'true' },
          ],
        },
      ],
    };
    assert.deepEqual(await specs(json, { root: '/srv/files' }), [
      {
        spec: {
          kind: 'stdio',
          command: 'uvx',
          args: ['--python', '3.12', 'acme-files==0.3.0', '/srv/files', '--read-only', 'true'],
          env: {},
        },
        secrets: [],
        transport: 'stdio',
      },
    ]);
    // Not given and nobody to ask: the error names the flag.
    assert.match(
      JSON.stringify(await specs(json)),
      /requires the argument root: give it with --env root=VALUE/,
    );
    // At a terminal, it is asked for.
    const asked: string[] = [];
    const answered = await specs(json, {}, async (q) => {
      asked.push(q);
      return '/home/files';
    });
    assert.deepEqual(asked, ['the argument root: ']);
    assert.equal((answered[0] as unknown as { spec: { args: string[] } }).spec.args[3], '/home/files');
  });

  for (const revision of ['2025-09-16', '2025-09-29']) {
    test(`${revision}: camelCase; oci with docker run -i --rm and -e for each variable`, async () => {
      const json = {
        $schema: `https://static.modelcontextprotocol.io/schemas/${revision}/server.schema.json`,
        name: 'io.github.acme/db',
        version: '2.0.0',
        ...(revision === '2025-09-16' ? { status: 'active' } : {}),
        packages: [
          {
            registryType: 'oci',
            identifier: 'ghcr.io/acme/db-mcp',
            version: '2.0.0',
            transport: { type: 'stdio' },
            runtimeArguments: [{ type: 'named', name: '--network', value: 'host' }],
            environmentVariables: [
              { name: 'DB_URL', isRequired: true, default: 'postgres://localhost/db' },
              { name: 'DB_PASSWORD', isSecret: true, isRequired: true },
            ],
          },
        ],
      };
      assert.deepEqual(await specs(json), [
        {
          spec: {
            kind: 'stdio',
            command: 'docker',
            args: [
              'run',
              '-i',
              '--rm',
              '-e',
              'DB_URL',
              '-e',
              'DB_PASSWORD',
              '--network',
              'host',
              'ghcr.io/acme/db-mcp:2.0.0',
            ],
            env: { DB_URL: 'postgres://localhost/db', DB_PASSWORD: '${DB_PASSWORD}' },
          },
          secrets: ['DB_PASSWORD'],
          transport: 'stdio',
        },
      ]);
    });
  }

  test('2025-10-11: version optional for oci (in the identifier); nuget through dnx', async () => {
    const json = {
      $schema: 'https://static.modelcontextprotocol.io/schemas/2025-10-11/server.schema.json',
      name: 'io.github.acme/tools',
      version: '1.0.0',
      packages: [
        { registryType: 'oci', identifier: 'docker.io/acme/tools:1.0.0', transport: { type: 'stdio' } },
        {
          registryType: 'nuget',
          identifier: 'Acme.Tools',
          version: '1.0.0',
          transport: { type: 'stdio' },
          packageArguments: [{ type: 'positional', value: 'serve' }],
        },
      ],
    };
    assert.deepEqual(
      (await specs(json)).map((s) => ('spec' in s ? s.spec : s)),
      [
        {
          kind: 'stdio',
          command: 'docker',
          args: ['run', '-i', '--rm', 'docker.io/acme/tools:1.0.0'],
          env: {},
        },
        { kind: 'stdio', command: 'dnx', args: ['Acme.Tools@1.0.0', '--yes', '--', 'serve'], env: {} },
      ],
    );
  });

  test('2025-10-17: an mcpb package (with its optional version) cannot be run from a command line', async () => {
    const json = {
      $schema: 'https://static.modelcontextprotocol.io/schemas/2025-10-17/server.schema.json',
      name: 'io.github.acme/bundle',
      version: '1.0.0',
      packages: [
        {
          registryType: 'mcpb',
          identifier: 'https://example.com/b.mcpb',
          version: '1.0.0',
          fileSha256: 'a'.repeat(64),
          transport: { type: 'stdio' },
        },
      ],
    };
    assert.match((await specs(json))[0]!.error as string, /an MCP bundle is installed by the client itself/);
  });

  test('2025-12-11: remote URL variables and secret headers', async () => {
    const json = {
      $schema: 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json',
      name: 'io.github.acme/tenant',
      version: '1.0.0',
      remotes: [
        {
          type: 'streamable-http',
          url: 'https://{tenant}.acme.example/mcp',
          variables: { tenant: { description: 'Your tenant', isRequired: true } },
          headers: [
            {
              name: 'Authorization',
              value: 'Bearer {token}',
              variables: { token: { isSecret: true, isRequired: true } },
            },
          ],
        },
      ],
    };
    assert.deepEqual(await specs(json, { tenant: 'blue' }), [
      {
        spec: {
          kind: 'url',
          url: 'https://blue.acme.example/mcp',
          transport: 'http',
          headers: { Authorization: 'Bearer ${TOKEN}' },
        },
        secrets: ['TOKEN'],
        transport: 'streamable-http',
      },
    ]);
  });

  test("the Registry API's wrapper is taken; a file with nothing to run is refused", () => {
    assert.equal(
      parseServerJson(
        JSON.stringify({
          server: { name: 'a/b', remotes: [{ type: 'sse', url: 'https://x/sse' }] },
          _meta: {},
        }),
        'f',
      ).name,
      'a/b',
    );
    assert.throws(
      () => parseServerJson('{"name":"a/b"}', 'f'),
      (e) => e instanceof FleetError && /neither "packages" nor "remotes"/.test(e.message),
    );
    assert.throws(() => parseServerJson('{"name":', 'f'), /f: not JSON/);
  });
});

describe('--server-json against a running server', () => {
  let http: { url: string; close(): Promise<void> };
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-server-json-'));
  before(async () => {
    http = await serveExampleOverHttp(0);
  });
  after(() => http.close());
  const file = (version: string) => {
    const path = join(dir, `server-${version}.json`);
    writeFileSync(
      path,
      JSON.stringify({
        $schema: 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json',
        name: 'io.github.switchboard/switchboard-example',
        version,
        remotes: [{ type: 'streamable-http', url: http.url }],
      }),
    );
    return path;
  };

  test('add --server-json: the remote written and verified', async () => {
    const h = tempHome();
    const run = await h.run(['add', 'example', '--server-json', file('1.0.0'), '--client', 'cursor,vscode']);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /io\.github\.switchboard\/switchboard-example 1\.0\.0: the remote http/);
    assert.match(run.stdout, /^cursor: verified: switchboard-example 1\.0\.0/m);
    assert.deepEqual(JSON.parse(h.read('.cursor/mcp.json')).mcpServers.example, { url: http.url });
  });

  test('check --server-json: agreement, then a version the server does not have', async () => {
    const agree = await runCli([
      'check',
      '--server-json',
      file('1.0.0'),
      '--revision',
      '2026-07-28',
      '--quiet',
    ]);
    assert.ok(agree.code === 0 || agree.code === 1, agree.stderr);
    assert.match(
      agree.stdout,
      /The running server agrees with .*server-1\.0\.0\.json \(name, version, transport\)/,
    );
    const differ = await runCli([
      'check',
      '--server-json',
      file('9.9.9'),
      '--revision',
      '2026-07-28',
      '--quiet',
    ]);
    assert.equal(differ.code, 1, differ.stdout + differ.stderr);
    assert.match(differ.stdout, /the file says version 9\.9\.9, the server says 1\.0\.0/);
  });
});
