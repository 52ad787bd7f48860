/**
 * Files edited in place: comments, formatting and other entries kept (JSONC, TOML), `remove`
 * taking out only its entry (add then remove gives back the file byte for byte), a backup of the
 * old file, `--dry-run`'s diff, and a file that does not parse refused with file:line:column and
 * left untouched.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { CLIENTS } from '../../src/fleet/clients.js';
import { openConfig } from '../../src/fleet/config-file.js';
import { unifiedDiff } from '../../src/fleet/diff.js';
import { EXAMPLE, tempHome } from './helpers.js';

const CURSOR = `{
    // The team's servers. Ask #infra before changing.
    "mcpServers": {
        "docs": { "command": "/opt/docs/bin/server" }, // pinned
        /* the wiki */
        "wiki": {
            "url": "https://wiki.example/mcp",
        },
    },
}
`;

const ZED = `// Zed settings
{
  "theme": "One Dark", // dark
  "context_servers": {
    "git": {
      "command": "/usr/local/bin/git-mcp",
      "args": []
    }
  },
  "vim_mode": true
}
`;

const CODEX = `# Codex config
model = "o3" # the default model

[mcp_servers.docs]
command = "/opt/docs/bin/server" # pinned
args = ["--read-only"]

[profiles.fast]
model = "o4-mini"
`;

describe('edits in place', () => {
  for (const [client, file, original] of [
    ['cursor', '.cursor/mcp.json', CURSOR],
    ['zed', '.config/zed/settings.json', ZED],
    ['codex', '.codex/config.toml', CODEX],
  ] as const) {
    test(`${client}: add keeps comments and entries; remove gives the file back byte for byte`, async () => {
      const h = tempHome();
      h.write(file, original);
      const added = await h.run(['add', 'example', '--client', client, '--', 'node', EXAMPLE, '--stdio']);
      assert.equal(added.code, 0, added.stdout + added.stderr);
      assert.match(added.stdout, new RegExp(`^${client}: verified: `, 'm'));
      const text = h.read(file);
      for (const line of original.split('\n').filter((l) => /#|\/\/|\/\*/.test(l)))
        assert.ok(text.includes(line), `kept: ${line}`);
      assert.equal(h.read(`${file}.bak`), original);
      assert.deepEqual(
        [...openConfig(join(h.home, file), CLIENTS[client]).servers().keys()].sort(),
        [
          ...openConfig(join(h.home, `${file}.bak`), CLIENTS[client])
            .servers()
            .keys(),
          'example',
        ].sort(),
      );
      const removed = await h.run(['remove', 'example', '--client', client]);
      assert.equal(removed.code, 0, removed.stdout + removed.stderr);
      assert.equal(h.read(file), original);
    });
  }

  test('remove takes out only its entry', async () => {
    const h = tempHome();
    h.write('.cursor/mcp.json', CURSOR);
    const run = await h.run(['remove', 'docs', '--client', 'cursor']);
    assert.equal(run.code, 0, run.stdout);
    assert.equal(
      h.read('.cursor/mcp.json'),
      CURSOR.replace('        "docs": { "command": "/opt/docs/bin/server" }, // pinned\n', ''),
    );
    const missing = await h.run(['remove', 'docs', '--client', 'cursor']);
    assert.equal(missing.code, 1);
    assert.match(missing.stdout, /has no server "docs"/);
  });

  test('--dry-run prints the diff and writes nothing', async () => {
    const h = tempHome();
    h.write('.cursor/mcp.json', CURSOR);
    const run = await h.run([
      'add',
      'example',
      '--client',
      'cursor,vscode',
      '--dry-run',
      '--',
      'node',
      EXAMPLE,
      '--stdio',
    ]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^\+\+\+ .*\.cursor\/mcp\.json\n@@ -\d+,\d+ \+\d+,\d+ @@\n/m);
    assert.match(run.stdout, /^\+ {8}"example": \{$/m);
    assert.match(run.stdout, /^--- \/dev\/null\n\+\+\+ .*Code\/User\/mcp\.json$/m);
    assert.match(run.stdout, /Dry run: nothing was written\./);
    assert.equal(h.read('.cursor/mcp.json'), CURSOR);
    assert.ok(!existsSync(join(h.home, '.cursor/mcp.json.bak')));
    assert.ok(!existsSync(join(h.home, '.config/Code')));
  });

  test('a file that does not parse is never touched: the error names file:line:column', async () => {
    const h = tempHome();
    const broken = '{\n  "mcpServers": {\n    "a": { "command": "x" }\n    "b": {}\n  }\n}\n';
    h.write('.cursor/mcp.json', broken);
    h.write('.codex/config.toml', '[mcp_servers.a]\ncommand = \n');
    const run = await h.run(['add', 'example', '--client', 'cursor,codex', '--', 'node', EXAMPLE, '--stdio']);
    assert.equal(run.code, 1);
    assert.match(
      run.stdout,
      /cursor: not written: .*\.cursor\/mcp\.json:4:5: Not valid JSON here: comma expected\..*The file was not changed/,
    );
    assert.match(run.stdout, /codex: not written: .*\.codex\/config\.toml:2:\d+: not valid TOML here/);
    assert.equal(h.read('.cursor/mcp.json'), broken);
    assert.ok(!existsSync(join(h.home, '.cursor/mcp.json.bak')));
    assert.equal(h.read('.codex/config.toml'), '[mcp_servers.a]\ncommand = \n');
    const list = await h.run(['list', '--client', 'cursor']);
    assert.equal(list.code, 1);
    assert.match(list.stdout, /cannot be read: .*mcp\.json:4:5/);
  });

  test('mcpServers that is not an object is refused', async () => {
    const h = tempHome();
    h.write('.cursor/mcp.json', '{ "mcpServers": [] }');
    const run = await h.run(['add', 'example', '--client', 'cursor', '--no-verify', '--', 'node', EXAMPLE]);
    assert.equal(run.code, 1);
    assert.match(run.stdout, /mcp\.json:1:17: "mcpServers" is array, not an object of servers/);
  });

  test('a private file stays private; a symbolic link is followed', async () => {
    const h = tempHome();
    h.write('.claude.json', '{ "numStartups": 3 }\n');
    const { chmodSync, statSync, symlinkSync, lstatSync } = await import('node:fs');
    chmodSync(join(h.home, '.claude.json'), 0o600);
    h.write('dotfiles/cursor.json', '{}\n');
    symlinkSync(join(h.home, 'dotfiles/cursor.json'), join(h.home, 'cursor-link.json'));
    const run = await h.run([
      'add',
      'example',
      '--client',
      'claude-code',
      '--no-verify',
      '--',
      'node',
      EXAMPLE,
    ]);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.equal(statSync(join(h.home, '.claude.json')).mode & 0o777, 0o600);
    assert.equal(JSON.parse(h.read('.claude.json')).numStartups, 3);
    // A link (a dotfiles checkout) stays a link: the file it points at changes.
    const { writeConfig } = await import('../../src/fleet/write-file.js');
    writeConfig(join(h.home, 'cursor-link.json'), '{"x":1}\n');
    assert.ok(lstatSync(join(h.home, 'cursor-link.json')).isSymbolicLink());
    assert.equal(readFileSync(join(h.home, 'dotfiles/cursor.json'), 'utf8'), '{"x":1}\n');
  });
});

describe('unifiedDiff', () => {
  test('applying its hunks to the old text gives the new text', () => {
    const lines = fc.array(fc.constantFrom('a', 'b', 'c', '{', '}', ''), { maxLength: 30 });
    fc.assert(
      fc.property(lines, lines, (a, b) => {
        const before = a.map((l) => `${l}\n`).join('');
        const after = b.map((l) => `${l}\n`).join('');
        const diff = unifiedDiff('f', before, after);
        if (before === after) return diff === '';
        return applyDiff(before, diff) === after;
      }),
    );
  });
});

/** Applies a unified diff (as `patch` would), to hold unifiedDiff to its meaning. */
function applyDiff(before: string, diff: string): string {
  const old = before === '' ? [] : before.replace(/\n$/, '').split('\n');
  const out: string[] = [];
  let at = 0;
  const lines = diff.replace(/\n$/, '').split('\n').slice(2);
  for (let i = 0; i < lines.length; i++) {
    const header = /^@@ -(\d+),(\d+) \+\d+,\d+ @@$/.exec(lines[i]!);
    if (!header) continue;
    const start = Number(header[2]) === 0 ? Number(header[1]) : Number(header[1]) - 1;
    while (at < start) out.push(old[at++]!);
    for (i++; i < lines.length && !lines[i]!.startsWith('@@'); i++) {
      const line = lines[i]!;
      if (line.startsWith('+')) out.push(line.slice(1));
      else {
        if (line.startsWith(' ')) out.push(line.slice(1));
        at++;
      }
    }
    i--;
  }
  while (at < old.length) out.push(old[at++]!);
  return out.length === 0 ? '' : `${out.join('\n')}\n`;
}
