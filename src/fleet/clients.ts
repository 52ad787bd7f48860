/**
 * The MCP clients `switchboard add` writes into: where each keeps its servers (per OS and scope),
 * under which key, in which format, and what it can take (URL servers, references to secrets).
 * Each row follows that client's own documentation; docs/fleet.md has the same table for people.
 */
import { posix, win32 } from 'node:path';

export const CLIENT_IDS = [
  'claude-desktop',
  'claude-code',
  'cursor',
  'vscode',
  'windsurf',
  'zed',
  'codex',
  'gemini',
] as const;
export type ClientId = (typeof CLIENT_IDS)[number];

export type Scope = 'user' | 'project';
export type Platform = 'linux' | 'darwin' | 'win32';

/** Where a path is looked for: the OS, the home folder, the environment, the project folder. */
export interface Place {
  readonly platform: Platform;
  readonly home: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The project folder (project scope). */
  readonly projectDir: string;
}

/**
 * How a client refers to an environment variable in its file, so a secret is not written there:
 * `env` `${env:NAME}` (Cursor, Windsurf), `plain` `${NAME}` (Claude Code, Gemini CLI), `input`
 * VS Code's `inputs` (`${input:id}`, asked for once and stored by VS Code), `codex` its own keys
 * (`env_vars`, `bearer_token_env_var`, `env_http_headers`), `none`: no such form.
 */
export type SecretForm = 'env' | 'plain' | 'input' | 'codex' | 'none';

export interface ClientInfo {
  readonly id: ClientId;
  /** The product's name, for messages. */
  readonly title: string;
  readonly format: 'json' | 'toml';
  /** The key of the server map (`mcp_servers` in Codex's TOML). */
  readonly key: 'mcpServers' | 'servers' | 'context_servers' | 'mcp_servers';
  /** The file's path for a scope, or undefined when the client has no file for that scope. */
  path(scope: Scope, place: Place): string | undefined;
  /** Folders whose presence says the client is installed (`--client all`). */
  installedMarkers(place: Place): readonly string[];
  /** Takes `url` servers in its file (Claude Desktop's file takes only commands). */
  readonly urls: boolean;
  readonly secrets: SecretForm;
  /**
   * The client is a terminal program (it runs servers with the shell's environment, PATH
   * included); the others are desktop apps, started without a login shell's PATH.
   */
  readonly terminal: boolean;
}

const pathOf = (platform: Platform) => (platform === 'win32' ? win32 : posix);

/** `%APPDATA%` on Windows, `~/Library/Application Support` on macOS, `$XDG_CONFIG_HOME` or `~/.config` on Linux. */
function appData(place: Place): string {
  const p = pathOf(place.platform);
  if (place.platform === 'win32') return place.env.APPDATA ?? p.join(place.home, 'AppData', 'Roaming');
  if (place.platform === 'darwin') return p.join(place.home, 'Library', 'Application Support');
  return xdgConfig(place);
}

function xdgConfig(place: Place): string {
  const configured = place.env.XDG_CONFIG_HOME;
  // The XDG spec: a relative value is invalid and is ignored.
  return configured && posix.isAbsolute(configured) ? configured : posix.join(place.home, '.config');
}

const inHome =
  (...parts: string[]) =>
  (place: Place) =>
    pathOf(place.platform).join(place.home, ...parts);
const inProject =
  (...parts: string[]) =>
  (place: Place) =>
    pathOf(place.platform).join(place.projectDir, ...parts);

export const CLIENTS: Readonly<Record<ClientId, ClientInfo>> = {
  'claude-desktop': {
    id: 'claude-desktop',
    title: 'Claude Desktop',
    format: 'json',
    key: 'mcpServers',
    path: (scope, place) =>
      scope === 'user'
        ? pathOf(place.platform).join(appData(place), 'Claude', 'claude_desktop_config.json')
        : undefined,
    installedMarkers: (place) => [pathOf(place.platform).join(appData(place), 'Claude')],
    urls: false,
    secrets: 'none',
    terminal: false,
  },
  'claude-code': {
    id: 'claude-code',
    title: 'Claude Code',
    format: 'json',
    key: 'mcpServers',
    path: (scope, place) =>
      scope === 'user' ? inHome('.claude.json')(place) : inProject('.mcp.json')(place),
    installedMarkers: (place) => [inHome('.claude.json')(place), inHome('.claude')(place)],
    urls: true,
    secrets: 'plain',
    terminal: true,
  },
  cursor: {
    id: 'cursor',
    title: 'Cursor',
    format: 'json',
    key: 'mcpServers',
    path: (scope, place) =>
      scope === 'user' ? inHome('.cursor', 'mcp.json')(place) : inProject('.cursor', 'mcp.json')(place),
    installedMarkers: (place) => [inHome('.cursor')(place)],
    urls: true,
    secrets: 'env',
    terminal: false,
  },
  vscode: {
    id: 'vscode',
    title: 'VS Code',
    format: 'json',
    key: 'servers',
    path: (scope, place) =>
      scope === 'user'
        ? pathOf(place.platform).join(appData(place), 'Code', 'User', 'mcp.json')
        : inProject('.vscode', 'mcp.json')(place),
    installedMarkers: (place) => [pathOf(place.platform).join(appData(place), 'Code')],
    urls: true,
    secrets: 'input',
    terminal: false,
  },
  windsurf: {
    id: 'windsurf',
    title: 'Windsurf',
    format: 'json',
    key: 'mcpServers',
    path: (scope, place) =>
      scope === 'user' ? inHome('.codeium', 'windsurf', 'mcp_config.json')(place) : undefined,
    installedMarkers: (place) => [inHome('.codeium', 'windsurf')(place)],
    urls: true,
    secrets: 'env',
    terminal: false,
  },
  zed: {
    id: 'zed',
    title: 'Zed',
    format: 'json',
    key: 'context_servers',
    path: (scope, place) => {
      if (scope === 'project') return inProject('.zed', 'settings.json')(place);
      const p = pathOf(place.platform);
      // Zed keeps ~/.config/zed on macOS too; on Linux it follows XDG_CONFIG_HOME.
      if (place.platform === 'win32') return p.join(appData(place), 'Zed', 'settings.json');
      if (place.platform === 'darwin') return p.join(place.home, '.config', 'zed', 'settings.json');
      return p.join(xdgConfig(place), 'zed', 'settings.json');
    },
    installedMarkers: (place) => {
      const file = CLIENTS.zed.path('user', place)!;
      return [pathOf(place.platform).dirname(file)];
    },
    urls: true,
    secrets: 'none',
    terminal: false,
  },
  codex: {
    id: 'codex',
    title: 'Codex',
    format: 'toml',
    key: 'mcp_servers',
    path: (scope, place) => {
      const p = pathOf(place.platform);
      if (scope === 'project') return p.join(place.projectDir, '.codex', 'config.toml');
      // CODEX_HOME moves the whole folder.
      return p.join(place.env.CODEX_HOME || p.join(place.home, '.codex'), 'config.toml');
    },
    installedMarkers: (place) => [pathOf(place.platform).dirname(CLIENTS.codex.path('user', place)!)],
    urls: true,
    secrets: 'codex',
    terminal: true,
  },
  gemini: {
    id: 'gemini',
    title: 'Gemini CLI',
    format: 'json',
    key: 'mcpServers',
    path: (scope, place) =>
      scope === 'user'
        ? inHome('.gemini', 'settings.json')(place)
        : inProject('.gemini', 'settings.json')(place),
    installedMarkers: (place) => [inHome('.gemini')(place)],
    urls: true,
    secrets: 'plain',
    terminal: true,
  },
};

export function isClientId(name: string): name is ClientId {
  return (CLIENT_IDS as readonly string[]).includes(name);
}
