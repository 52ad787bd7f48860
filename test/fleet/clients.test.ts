/**
 * Each client's file per OS and scope: the Linux user-scope paths are the contract issue 24 names;
 * macOS and Windows follow each client's documentation (the table in docs/fleet.md).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CLIENT_IDS, CLIENTS, type Place } from '../../src/fleet/clients.js';

const linux: Place = { platform: 'linux', home: '/home/u', env: {}, projectDir: '/work/p' };
const mac: Place = { platform: 'darwin', home: '/Users/u', env: {}, projectDir: '/work/p' };
const windows: Place = {
  platform: 'win32',
  home: 'C:\\Users\\u',
  env: { APPDATA: 'C:\\Users\\u\\AppData\\Roaming' },
  projectDir: 'C:\\work\\p',
};
const paths = (place: Place, scope: 'user' | 'project') =>
  Object.fromEntries(CLIENT_IDS.map((id) => [id, CLIENTS[id].path(scope, place)]));

describe('client config paths', () => {
  test('Linux, user scope: the paths of issue 24', () => {
    assert.deepEqual(paths(linux, 'user'), {
      'claude-desktop': '/home/u/.config/Claude/claude_desktop_config.json',
      'claude-code': '/home/u/.claude.json',
      cursor: '/home/u/.cursor/mcp.json',
      vscode: '/home/u/.config/Code/User/mcp.json',
      windsurf: '/home/u/.codeium/windsurf/mcp_config.json',
      zed: '/home/u/.config/zed/settings.json',
      codex: '/home/u/.codex/config.toml',
      gemini: '/home/u/.gemini/settings.json',
    });
  });

  test('Linux: XDG_CONFIG_HOME moves the clients that honour it (a relative value is ignored)', () => {
    const xdg = paths({ ...linux, env: { XDG_CONFIG_HOME: '/xdg' } }, 'user');
    assert.equal(xdg['claude-desktop'], '/xdg/Claude/claude_desktop_config.json');
    assert.equal(xdg.vscode, '/xdg/Code/User/mcp.json');
    assert.equal(xdg.zed, '/xdg/zed/settings.json');
    // Files in the home folder itself do not move.
    assert.equal(xdg.cursor, '/home/u/.cursor/mcp.json');
    assert.equal(xdg.codex, '/home/u/.codex/config.toml');
    assert.equal(
      paths({ ...linux, env: { XDG_CONFIG_HOME: 'rel' } }, 'user').vscode,
      '/home/u/.config/Code/User/mcp.json',
    );
  });

  test('CODEX_HOME moves Codex', () => {
    assert.equal(CLIENTS.codex.path('user', { ...linux, env: { CODEX_HOME: '/c' } }), '/c/config.toml');
  });

  test('macOS, user scope', () => {
    assert.deepEqual(paths(mac, 'user'), {
      'claude-desktop': '/Users/u/Library/Application Support/Claude/claude_desktop_config.json',
      'claude-code': '/Users/u/.claude.json',
      cursor: '/Users/u/.cursor/mcp.json',
      vscode: '/Users/u/Library/Application Support/Code/User/mcp.json',
      windsurf: '/Users/u/.codeium/windsurf/mcp_config.json',
      zed: '/Users/u/.config/zed/settings.json',
      codex: '/Users/u/.codex/config.toml',
      gemini: '/Users/u/.gemini/settings.json',
    });
  });

  test('Windows, user scope', () => {
    assert.deepEqual(paths(windows, 'user'), {
      'claude-desktop': 'C:\\Users\\u\\AppData\\Roaming\\Claude\\claude_desktop_config.json',
      'claude-code': 'C:\\Users\\u\\.claude.json',
      cursor: 'C:\\Users\\u\\.cursor\\mcp.json',
      vscode: 'C:\\Users\\u\\AppData\\Roaming\\Code\\User\\mcp.json',
      windsurf: 'C:\\Users\\u\\.codeium\\windsurf\\mcp_config.json',
      zed: 'C:\\Users\\u\\AppData\\Roaming\\Zed\\settings.json',
      codex: 'C:\\Users\\u\\.codex\\config.toml',
      gemini: 'C:\\Users\\u\\.gemini\\settings.json',
    });
  });

  test('project scope (none for Claude Desktop and Windsurf, which have only a user file)', () => {
    assert.deepEqual(paths(linux, 'project'), {
      'claude-desktop': undefined,
      'claude-code': '/work/p/.mcp.json',
      cursor: '/work/p/.cursor/mcp.json',
      vscode: '/work/p/.vscode/mcp.json',
      windsurf: undefined,
      zed: '/work/p/.zed/settings.json',
      codex: '/work/p/.codex/config.toml',
      gemini: '/work/p/.gemini/settings.json',
    });
  });
});
