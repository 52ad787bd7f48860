/**
 * `switchboard add` into every client, in a temporary HOME: each file at its Linux path with that
 * client's keys, each entry started as its client would start it and verified against real servers
 * (the example server, @modelcontextprotocol/server-everything), URL servers bridged for Claude
 * Desktop, secrets written as each client's references.
 */
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { parse as parseToml } from '@decimalturn/toml-patch';
import { serveExampleOverHttp } from '../../examples/server.js';
import { EXAMPLE, tempHome } from './helpers.js';

const EVERYTHING = join(
  dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist/index.js',
);
const ALL = 'claude-desktop,claude-code,cursor,vscode,windsurf,zed,codex,gemini';
const json = (text: string) => JSON.parse(text) as Record<string, Record<string, Record<string, unknown>>>;

describe('switchboard add', () => {
  test('a command into all eight clients: each file at its path with its keys, each verified', async () => {
    const h = tempHome();
    const run = await h.run(['add', 'example', '--client', ALL, '--', 'node', EXAMPLE, '--stdio']);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    for (const id of ALL.split(','))
      assert.match(run.stdout, new RegExp(`^${id}: verified: switchboard-example`, 'm'));
    const node = process.execPath;
    const files = {
      'claude-desktop': ['.config/Claude/claude_desktop_config.json', 'mcpServers'],
      'claude-code': ['.claude.json', 'mcpServers'],
      cursor: ['.cursor/mcp.json', 'mcpServers'],
      vscode: ['.config/Code/User/mcp.json', 'servers'],
      windsurf: ['.codeium/windsurf/mcp_config.json', 'mcpServers'],
      zed: ['.config/zed/settings.json', 'context_servers'],
      gemini: ['.gemini/settings.json', 'mcpServers'],
    } as const;
    for (const [id, [file, key]] of Object.entries(files)) {
      const entry = json(h.read(file))[key]!.example!;
      assert.ok(String(entry.command).startsWith('/'), `${id}: the command is absolute`);
      assert.deepEqual(entry.args, [EXAMPLE, '--stdio'], id);
      assert.match(
        String((entry.env as Record<string, string>).PATH),
        new RegExp(`(^|:)${dirname(node)}(:|$)`),
        id,
      );
    }
    assert.equal(json(h.read('.claude.json')).mcpServers!.example!.type, 'stdio');
    assert.equal(json(h.read('.config/Code/User/mcp.json')).servers!.example!.type, 'stdio');
    const codex = parseToml(h.read('.codex/config.toml')) as {
      mcp_servers: Record<string, { args: string[] }>;
    };
    assert.deepEqual(codex.mcp_servers.example!.args, [EXAMPLE, '--stdio']);
    assert.match(h.read('.codex/config.toml'), /^\[mcp_servers\.example\]$/m);
  });

  test('XDG_CONFIG_HOME is honoured where the client honours it', async () => {
    const h = tempHome();
    const xdg = join(h.home, 'xdg');
    const run = await h.run(
      [
        'add',
        'example',
        '--client',
        'vscode,zed,claude-desktop,cursor',
        '--no-verify',
        '--',
        'node',
        EXAMPLE,
        '--stdio',
      ],
      { env: { XDG_CONFIG_HOME: xdg } },
    );
    assert.equal(run.code, 0, run.stderr);
    for (const file of ['Code/User/mcp.json', 'zed/settings.json', 'Claude/claude_desktop_config.json'])
      assert.ok(existsSync(join(xdg, file)), file);
    assert.ok(existsSync(join(h.home, '.cursor/mcp.json')));
    assert.ok(!existsSync(join(h.home, '.config')));
  });

  test('server-everything (the official SDK) verified as Cursor and Codex start it', async () => {
    const h = tempHome();
    const run = await h.run([
      'add',
      'everything',
      '--client',
      'cursor,codex',
      '--',
      'node',
      EVERYTHING,
      'stdio',
    ]);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /^cursor: verified: .*everything.* \(protocol [\d-]+, \d+ tools\)$/m);
    assert.match(run.stdout, /^codex: verified: /m);
  });

  test("a command only on the shell's PATH: written absolute with a PATH, so a desktop app starts it", async () => {
    const h = tempHome();
    const bin = join(h.home, 'bin');
    mkdirSync(bin);
    // The example serves only as the main module: the script makes it look like one.
    const script = `process.argv[1] = ${JSON.stringify(EXAMPLE)};\nprocess.argv.push('--stdio');\nawait import(${JSON.stringify(pathToFileURL(EXAMPLE).href)});\n`;
    writeFileSync(join(bin, 'my-mcp'), `#!/usr/bin/env node\n${script}`);
    chmodSync(join(bin, 'my-mcp'), 0o755);
    const env = { PATH: `${bin}:${process.env.PATH}` };
    const run = await h.run(['add', 'mine', '--client', 'cursor', '--', 'my-mcp'], { env });
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.equal(json(h.read('.cursor/mcp.json')).mcpServers!.mine!.command, join(bin, 'my-mcp'));
    assert.match(run.stdout, /^cursor: verified: switchboard-example/m);
    // Written by hand the way other installers write it, the bare name is flagged by list.
    h.write('.cursor/mcp.json', JSON.stringify({ mcpServers: { bare: { command: 'my-mcp' } } }));
    h.write('.claude.json', JSON.stringify({ mcpServers: { bare: { command: 'my-mcp' } } }));
    const list = await h.run(['list', '--client', 'cursor,claude-code'], { env });
    assert.equal(list.code, 1, list.stdout);
    assert.match(
      list.stdout,
      /✗ bare {2}my-mcp\n {6}would not start: my-mcp is not on the PATH Cursor starts servers with \(.*\): spawn my-mcp ENOENT/,
    );
    // Claude Code runs in the terminal, with the shell's PATH.
    assert.match(list.stdout, /claude-code \(user\).*\n {2}✓ bare/);
  });

  test('a relative file argument is made absolute: the client starts servers in a folder of its own', async () => {
    const h = tempHome();
    const run = await h.run(['add', 'rel', '--client', 'cursor', '--', 'node', 'server.js', '--stdio'], {
      cwd: dirname(EXAMPLE),
    });
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.deepEqual(json(h.read('.cursor/mcp.json')).mcpServers!.rel!.args, [EXAMPLE, '--stdio']);
    assert.match(run.stdout, /^cursor: verified: /m);
  });

  test('a command that is not installed is refused before anything is written', async () => {
    const h = tempHome();
    const run = await h.run(['add', 'x', '--client', 'cursor', '--', 'no-such-program-here']);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /no-such-program-here is not on your PATH/);
    assert.ok(!existsSync(join(h.home, '.cursor')));
  });

  describe('a URL server', () => {
    let server: { url: string; close(): Promise<void> };
    before(async () => {
      server = await serveExampleOverHttp(0);
    });
    after(() => server.close());

    test('each client its own keys; Claude Desktop bridged through the gateway; all verified', async () => {
      const h = tempHome();
      const run = await h.run([
        'add',
        'remote',
        server.url,
        '--client',
        'claude-desktop,claude-code,cursor,vscode,windsurf,codex,gemini',
      ]);
      assert.equal(run.code, 0, run.stdout + run.stderr);
      assert.match(
        run.stdout,
        /Claude Desktop takes only commands in its file: written as "switchboard gateway --stdio" bridging/,
      );
      assert.equal((run.stdout.match(/: verified: /g) ?? []).length, 7, run.stdout);
      const desktop = json(h.read('.config/Claude/claude_desktop_config.json')).mcpServers!.remote!;
      assert.deepEqual((desktop.args as string[]).slice(-3), ['gateway', '--stdio', server.url]);
      assert.deepEqual(json(h.read('.claude.json')).mcpServers!.remote, { type: 'http', url: server.url });
      assert.deepEqual(json(h.read('.cursor/mcp.json')).mcpServers!.remote, { url: server.url });
      assert.deepEqual(json(h.read('.codeium/windsurf/mcp_config.json')).mcpServers!.remote, {
        serverUrl: server.url,
      });
      assert.deepEqual(json(h.read('.gemini/settings.json')).mcpServers!.remote, { httpUrl: server.url });
    });

    test('secrets as references: ${env:}, VS Code inputs, Codex bearer_token_env_var; never the value', async () => {
      const h = tempHome({ EXAMPLE_TOKEN: 'sekret-value-123' });
      const run = await h.run([
        'add',
        'remote',
        server.url,
        '--client',
        'cursor,vscode,codex,claude-code,claude-desktop',
        '--header',
        'Authorization=Bearer ${EXAMPLE_TOKEN}',
        '--header',
        'X-Team=${EXAMPLE_TOKEN}',
      ]);
      assert.equal((run.stdout.match(/: verified: /g) ?? []).length, 4, run.stdout);
      // Claude Desktop starts servers without the shell's environment: the gateway it runs finds no
      // EXAMPLE_TOKEN there, and the verification (as Claude Desktop would start it) says so.
      assert.match(run.stdout, /EXAMPLE_TOKEN must be set in the environment Claude Desktop runs in/);
      assert.match(run.stdout, /^claude-desktop: NOT verified: .*EXAMPLE_TOKEN/m);
      assert.equal(run.code, 1);
      const desktopArgs = json(h.read('.config/Claude/claude_desktop_config.json')).mcpServers!.remote!
        .args as string[];
      assert.ok(desktopArgs.includes('Authorization: Bearer ${EXAMPLE_TOKEN}'), desktopArgs.join(' '));
      const files = [
        '.cursor/mcp.json',
        '.config/Code/User/mcp.json',
        '.codex/config.toml',
        '.claude.json',
        '.config/Claude/claude_desktop_config.json',
      ];
      for (const file of files) assert.ok(!h.read(file).includes('sekret-value-123'), file);
      assert.deepEqual(json(h.read('.cursor/mcp.json')).mcpServers!.remote!.headers, {
        Authorization: 'Bearer ${env:EXAMPLE_TOKEN}',
        'X-Team': '${env:EXAMPLE_TOKEN}',
      });
      const vscode = JSON.parse(h.read('.config/Code/User/mcp.json'));
      assert.equal(vscode.servers.remote.headers.Authorization, 'Bearer ${input:EXAMPLE_TOKEN}');
      assert.deepEqual(vscode.inputs, [
        {
          type: 'promptString',
          id: 'EXAMPLE_TOKEN',
          description: 'EXAMPLE_TOKEN for the MCP server "remote"',
          password: true,
        },
      ]);
      const codex = parseToml(h.read('.codex/config.toml')) as { mcp_servers: Record<string, unknown> };
      assert.deepEqual(JSON.parse(JSON.stringify(codex.mcp_servers.remote)), {
        url: server.url,
        bearer_token_env_var: 'EXAMPLE_TOKEN',
        env_http_headers: { 'X-Team': 'EXAMPLE_TOKEN' },
      });
      assert.deepEqual(json(h.read('.claude.json')).mcpServers!.remote!.headers, {
        Authorization: 'Bearer ${EXAMPLE_TOKEN}',
        'X-Team': '${EXAMPLE_TOKEN}',
      });
    });

    test('a client with no reference form refuses a secret unless --inline-secrets', async () => {
      const h = tempHome({ EXAMPLE_TOKEN: 'sekret-value-123' });
      const refused = await h.run([
        'add',
        'remote',
        server.url,
        '--client',
        'zed',
        '--header',
        'X-Key=${EXAMPLE_TOKEN}',
      ]);
      assert.equal(refused.code, 1);
      assert.match(
        refused.stdout,
        /zed: not written: Zed has no way to refer to an environment variable in X-Key.*--inline-secrets/,
      );
      assert.ok(!existsSync(join(h.home, '.config/zed/settings.json')));
      const inlined = await h.run([
        'add',
        'remote',
        server.url,
        '--client',
        'zed',
        '--header',
        'X-Key=${EXAMPLE_TOKEN}',
        '--inline-secrets',
      ]);
      assert.equal(inlined.code, 0, inlined.stdout);
      assert.match(h.read('.config/zed/settings.json'), /"X-Key": "sekret-value-123"/);
    });

    test('a server that is not there is written but reported as not verified (exit 1)', async () => {
      const h = tempHome();
      const run = await h.run([
        'add',
        'gone',
        'http://127.0.0.1:9/mcp',
        '--client',
        'cursor',
        '--timeout',
        '5000',
      ]);
      assert.equal(run.code, 1);
      assert.match(run.stdout, /^cursor: added "gone"/m);
      assert.match(run.stdout, /^cursor: NOT verified: /m);
    });
  });

  test("--print: each client's snippet, Cursor's install link, VS Code's code --add-mcp; nothing written", async () => {
    const h = tempHome();
    const run = await h.run([
      'add',
      'everything',
      '--print',
      '--',
      'npx',
      '-y',
      '@modelcontextprotocol/server-everything',
    ]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(
      run.stdout,
      /Codex \(codex\), in ~\/\.codex\/config\.toml:\n\[mcp_servers\.everything\]\ncommand = "npx"/,
    );
    const link = /cursor:\/\/anysphere\.cursor-deeplink\/mcp\/install\?name=everything&config=(\S+)/.exec(
      run.stdout,
    );
    assert.ok(link, run.stdout);
    assert.deepEqual(JSON.parse(Buffer.from(decodeURIComponent(link[1]!), 'base64').toString()), {
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-everything'],
    });
    assert.match(run.stdout, /code --add-mcp '\{"name":"everything","type":"stdio","command":"npx"/);
    assert.deepEqual(
      ['.cursor', '.codex', '.config', '.claude.json'].filter((f) => existsSync(join(h.home, f))),
      [],
    );
  });
});
