/**
 * The gateway's configuration: the `mcpServers` files desktop apps and Cursor use, and VS Code's
 * `servers` + `inputs`, as JSON or JSONC, plus the gateway's own options under `"gateway"`. Loading
 * either gives a whole, checked config or every problem at once (file:line:column, what is wrong,
 * what to write instead): the gateway never starts half-configured.
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, resolve } from 'node:path';
import type { Node } from 'jsonc-parser';
import { type GatewaySecurity, SecurityReader, type TokenExchangeConfig } from './config-security.js';
import {
  type ConfigProblem,
  ConfigSource,
  jsonType,
  jsonValue,
  member,
  properties,
} from './config-source.js';
import { type ExpandScope, expand } from './expand.js';

/** The namespace rule: what the names clients enforce allow (`^[a-zA-Z0-9_-]{1,64}$`). */
export const NAME_CHARS = /^[A-Za-z0-9_-]+$/;

export type Startup = 'eager' | 'lazy';
export type CollisionPolicy = 'rename' | 'skip';

interface UpstreamCommon {
  /** The key in the file: the upstream's name and namespace. */
  readonly name: string;
  /** Tool-name globs (`*`, `?`) of the tools to show; none: all. */
  readonly include: readonly string[];
  /** Tool-name globs of tools to hide (applied after `include`). */
  readonly exclude: readonly string[];
  /** Per call, in milliseconds. */
  readonly timeoutMs: number;
  /**
   * Longest a connection may take (a process started and `initialize` answered, or an HTTP
   * handshake); past it the attempt fails, the upstream is reported failing and tried again later.
   */
  readonly connectTimeoutMs: number;
  /**
   * How often the gateway pings its own session with the upstream when no call was started to it
   * since the last time (a server gone away while idle would otherwise look up); `0`: never.
   */
  readonly healthCheckIntervalMs: number;
  /** Most sessions open with it for legacy downstream clients at once (stdio: one process each). */
  readonly maxSessions: number;
  /** Connect at start-up (`eager`) or at the first request that needs it (`lazy`). */
  readonly startup: Startup;
  /**
   * `false`: its tools and prompts keep their own names and its resources their own URIs (at most
   * one such server per config; methods and URIs no other server claims go to it).
   */
  readonly namespace: boolean;
}

export interface StdioUpstreamConfig extends UpstreamCommon {
  readonly transport: 'stdio';
  readonly command: string;
  readonly args: readonly string[];
  /** Set on top of the safe default environment (see `StdioClientChannel`), `envFile` first. */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string | undefined;
}

export interface HttpUpstreamConfig extends UpstreamCommon {
  /** `http`: Streamable HTTP, either era (the era is found and remembered); `sse`: legacy HTTP+SSE. */
  readonly transport: 'http' | 'sse';
  readonly url: URL;
  readonly headers: Readonly<Record<string, string>>;
  /** The caller's token exchanged for one meant for this server (RFC 8693), instead of `headers`' Authorization. */
  readonly upstreamAuth?: { readonly tokenExchange: TokenExchangeConfig };
}

export type UpstreamConfig = StdioUpstreamConfig | HttpUpstreamConfig;

export interface GatewayOptions {
  readonly host: string;
  readonly port: number;
  /** Between the namespace and the upstream's name: `<server><separator><name>`. */
  readonly separator: string;
  /** Two upstream names that come out the same: `rename` (stable hash suffix) or `skip` (first wins). */
  readonly collisions: CollisionPolicy;
  readonly timeoutMs: number;
  /** The servers' default `connectTimeoutMs`. */
  readonly connectTimeoutMs: number;
  /** The servers' default `healthCheckIntervalMs`. */
  readonly healthCheckIntervalMs: number;
  /** The servers' default `maxSessions`. */
  readonly maxSessionsPerUpstream: number;
  /**
   * A downstream client's session with an upstream with no call for this long is closed (and
   * reopened at its next call); below the downstream sessions' own idle timeout.
   */
  readonly upstreamSessionIdleMs: number;
  readonly startup: Startup;
}

export interface GatewayConfig {
  readonly file: string;
  readonly options: GatewayOptions;
  /** In the file's order; disabled servers are left out. */
  readonly upstreams: readonly UpstreamConfig[];
  /** Who may come in, what each may use, how much, the audit log, the shared store (see docs/gateway.md, Security). */
  readonly security: GatewaySecurity;
}

export const DEFAULT_OPTIONS: GatewayOptions = Object.freeze({
  host: '127.0.0.1',
  port: 7420,
  separator: '__',
  collisions: 'rename',
  timeoutMs: 60_000,
  connectTimeoutMs: 10_000,
  healthCheckIntervalMs: 30_000,
  maxSessionsPerUpstream: 32,
  upstreamSessionIdleMs: 5 * 60_000,
  startup: 'eager',
});

/** How long a downstream legacy session may idle (the gateway's HTTP handler closes it after). */
export const DOWNSTREAM_SESSION_IDLE_MS = 30 * 60_000;

export interface LoadOptions {
  /** Default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
}

export type LoadResult =
  | { ok: true; config: GatewayConfig; warnings: ConfigProblem[] }
  | { ok: false; problems: ConfigProblem[]; warnings: ConfigProblem[] };

/** Reads and checks a config file. Never throws for a problem in the file. */
export function loadGatewayConfig(file: string, options: LoadOptions = {}): LoadResult {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'does not exist' : 'cannot be read';
    return {
      ok: false,
      problems: [
        {
          file,
          line: 1,
          column: 1,
          message: `The config file ${reason}.`,
          fix: 'Give the path of an mcpServers JSON file.',
        },
      ],
      warnings: [],
    };
  }
  return parseGatewayConfig(file, text, options);
}

/** Checks config text (`file` names it in problems and anchors relative paths). */
export function parseGatewayConfig(file: string, text: string, options: LoadOptions = {}): LoadResult {
  return new ConfigReader(new ConfigSource(file, text), options.env ?? process.env).read();
}

const SERVER_KEYS = new Set([
  'type',
  'command',
  'args',
  'env',
  'envFile',
  'cwd',
  'url',
  'headers',
  'include',
  'exclude',
  'timeoutMs',
  'connectTimeoutMs',
  'healthCheckIntervalMs',
  'maxSessions',
  'startup',
  'disabled',
  'namespace',
  'upstreamAuth',
]);
/** Keys other tools write into server entries: not ours, not wrong. */
const FOREIGN_SERVER_KEYS = new Set([
  'autoApprove',
  'alwaysAllow',
  'timeout',
  'description',
  'gallery',
  'version',
  'transportType',
  'dev',
  'enabled',
]);
const OPTION_KEYS = new Set([
  'host',
  'port',
  'separator',
  'collisions',
  'timeoutMs',
  'connectTimeoutMs',
  'healthCheckIntervalMs',
  'maxSessionsPerUpstream',
  'upstreamSessionIdleMs',
  'startup',
  'auth',
  'access',
  'rateLimits',
  'audit',
  'redis',
  'admin',
]);
const HTTP_TYPES: Record<string, 'http' | 'sse'> = {
  http: 'http',
  'streamable-http': 'http',
  streamableHttp: 'http',
  sse: 'sse',
};

class ConfigReader {
  private readonly warnings: ConfigProblem[] = [];
  private scope!: ExpandScope;
  private readonly security = new SecurityReader(this);

  constructor(
    private readonly source: ConfigSource,
    private readonly env: Readonly<Record<string, string | undefined>>,
  ) {}

  read(): LoadResult {
    const { source } = this;
    const root = source.root;
    if (source.text.trim() === '') {
      source.problems.length = 0;
      source.report(0, 'The file is empty.', 'Write { "mcpServers": { "name": { "command": "..." } } }.');
    }
    if (source.problems.length > 0 || root === undefined) return this.failed();
    if (root.type !== 'object') {
      source.reportAt(
        root,
        `The config must be a JSON object, not ${jsonType(root)}.`,
        'Write { "mcpServers": { ... } }.',
      );
      return this.failed();
    }
    this.scope = this.expandScope(root);
    const options = this.options(member(root, 'gateway'));
    const security = this.security.read(member(root, 'gateway'));
    const serversNode = member(root, 'mcpServers') ?? member(root, 'servers');
    if (member(root, 'mcpServers') && member(root, 'servers')) {
      source.reportAt(
        member(root, 'servers'),
        'The file has both "mcpServers" and "servers".',
        'Keep one list: "mcpServers" (desktop apps, Cursor) or "servers" (VS Code).',
      );
    }
    const upstreams: UpstreamConfig[] = [];
    /** Every server's name, disabled ones too (rules may name them). */
    const named: string[] = [];
    let bare: string | undefined;
    if (serversNode === undefined) {
      source.reportAt(
        root,
        'The config lists no servers.',
        'Add "mcpServers": { "name": { "command": "..." } }.',
      );
    } else if (serversNode.type !== 'object') {
      source.reportAt(
        serversNode,
        `The server list must be an object keyed by name, not ${jsonType(serversNode)}.`,
      );
    } else {
      const seen = new Map<string, string>();
      for (const { key, keyNode, value } of properties(serversNode)) {
        if (!NAME_CHARS.test(key) || key.length > 32) {
          source.reportAt(
            keyNode,
            `The server name ${JSON.stringify(key)} cannot be a namespace.`,
            `Use 1-32 characters from A-Z, a-z, 0-9, "_" and "-" (e.g. "${suggestName(key)}").`,
          );
          continue;
        }
        const lower = key.toLowerCase();
        const earlier = seen.get(lower);
        if (earlier !== undefined) {
          source.reportAt(
            keyNode,
            `The server name "${key}" is used twice${earlier === key ? '' : ` (as "${earlier}")`}.`,
            'Give each server its own name.',
          );
          continue;
        }
        seen.set(lower, key);
        named.push(key);
        const upstream = this.server(key, value, options);
        if (upstream && !upstream.namespace) {
          if (bare !== undefined) {
            source.reportAt(
              member(value, 'namespace'),
              `The servers "${bare}" and "${key}" both have "namespace": false.`,
              'Keep "namespace": false on one server at most: the others need their namespace to be told apart.',
            );
          }
          bare ??= key;
        }
        if (upstream) upstreams.push(upstream);
      }
    }
    this.security.checkAgainst(named, options.separator, bare !== undefined);
    if (source.problems.length > 0) return this.failed();
    return { ok: true, config: { file: source.file, options, upstreams, security }, warnings: this.warnings };
  }

  private failed(): LoadResult {
    const byPosition = (a: ConfigProblem, b: ConfigProblem) => a.line - b.line || a.column - b.column;
    return { ok: false, problems: [...this.source.problems].sort(byPosition), warnings: this.warnings };
  }

  report(node: Node | undefined, message: string, fix?: string): void {
    this.source.reportAt(node, message, fix);
  }

  warn(node: Node | undefined, message: string, fix?: string): void {
    const { line, column } = this.source.position(node?.offset ?? 0);
    this.warnings.push({ file: this.source.file, line, column, message, ...(fix ? { fix } : {}) });
  }

  private expandScope(root: Node): ExpandScope {
    const declaredInputs = new Set<string>();
    const inputs = member(root, 'inputs');
    if (inputs !== undefined) {
      if (inputs.type !== 'array') {
        this.source.reportAt(inputs, `"inputs" must be an array, not ${jsonType(inputs)}.`);
      } else {
        for (const input of inputs.children ?? []) {
          const id = input.type === 'object' ? member(input, 'id') : undefined;
          if (id?.type === 'string') declaredInputs.add(id.value as string);
          else
            this.source.reportAt(
              input,
              'Each input needs an "id".',
              'Write { "type": "promptString", "id": "api-key" }.',
            );
        }
      }
    }
    const dir = dirname(resolve(this.source.file));
    return {
      env: this.env,
      inputs: new Map(),
      declaredInputs,
      // VS Code keeps mcp.json in <workspace>/.vscode.
      workspaceFolder: basename(dir) === '.vscode' ? dirname(dir) : dir,
      userHome: this.env.HOME ?? this.env.USERPROFILE ?? homedir(),
    };
  }

  private options(node: Node | undefined): GatewayOptions {
    if (node === undefined) return DEFAULT_OPTIONS;
    if (node.type !== 'object') {
      this.source.reportAt(
        node,
        `"gateway" must be an object, not ${jsonType(node)}.`,
        'Write "gateway": { "port": 7420 }.',
      );
      return DEFAULT_OPTIONS;
    }
    this.unknownKeys(node, OPTION_KEYS, new Set(), '"gateway"');
    const host = this.string(member(node, 'host'), 'host') ?? DEFAULT_OPTIONS.host;
    const port = this.integer(member(node, 'port'), 'port', 0, 65535) ?? DEFAULT_OPTIONS.port;
    const separatorNode = member(node, 'separator');
    let separator = this.string(separatorNode, 'separator') ?? DEFAULT_OPTIONS.separator;
    if (!NAME_CHARS.test(separator) || separator.length > 4) {
      this.source.reportAt(
        separatorNode,
        `The separator ${JSON.stringify(separator)} would make names clients refuse.`,
        'Use 1-4 characters from A-Z, a-z, 0-9, "_" and "-" (default "__").',
      );
      separator = DEFAULT_OPTIONS.separator;
    }
    const collisions =
      this.oneOf(member(node, 'collisions'), 'collisions', ['rename', 'skip']) ?? DEFAULT_OPTIONS.collisions;
    const timeoutMs =
      this.integer(member(node, 'timeoutMs'), 'timeoutMs', 1, 86_400_000) ?? DEFAULT_OPTIONS.timeoutMs;
    const connectTimeoutMs =
      this.integer(member(node, 'connectTimeoutMs'), 'connectTimeoutMs', 1, 86_400_000) ??
      DEFAULT_OPTIONS.connectTimeoutMs;
    const healthCheckIntervalMs =
      this.interval(member(node, 'healthCheckIntervalMs'), 'healthCheckIntervalMs') ??
      DEFAULT_OPTIONS.healthCheckIntervalMs;
    const startup =
      this.oneOf(member(node, 'startup'), 'startup', ['eager', 'lazy']) ?? DEFAULT_OPTIONS.startup;
    const maxSessionsPerUpstream =
      this.integer(member(node, 'maxSessionsPerUpstream'), 'maxSessionsPerUpstream', 1, 10_000) ??
      DEFAULT_OPTIONS.maxSessionsPerUpstream;
    const upstreamSessionIdleMs =
      this.integer(
        member(node, 'upstreamSessionIdleMs'),
        'upstreamSessionIdleMs',
        100,
        DOWNSTREAM_SESSION_IDLE_MS - 1,
      ) ?? DEFAULT_OPTIONS.upstreamSessionIdleMs;
    return {
      host,
      port,
      separator,
      collisions,
      timeoutMs,
      connectTimeoutMs,
      healthCheckIntervalMs,
      maxSessionsPerUpstream,
      upstreamSessionIdleMs,
      startup,
    };
  }

  private server(name: string, node: Node, options: GatewayOptions): UpstreamConfig | undefined {
    const { source } = this;
    if (node.type !== 'object') {
      source.reportAt(
        node,
        `The server "${name}" must be an object, not ${jsonType(node)}.`,
        'Write { "command": "..." } or { "url": "..." }.',
      );
      return undefined;
    }
    this.unknownKeys(node, SERVER_KEYS, FOREIGN_SERVER_KEYS, `the server "${name}"`);
    if (this.boolean(member(node, 'disabled'), 'disabled') === true) return undefined;
    const common: UpstreamCommon = {
      name,
      include: this.strings(member(node, 'include'), 'include') ?? [],
      exclude: this.strings(member(node, 'exclude'), 'exclude') ?? [],
      timeoutMs: this.integer(member(node, 'timeoutMs'), 'timeoutMs', 1, 86_400_000) ?? options.timeoutMs,
      connectTimeoutMs:
        this.integer(member(node, 'connectTimeoutMs'), 'connectTimeoutMs', 1, 86_400_000) ??
        options.connectTimeoutMs,
      healthCheckIntervalMs:
        this.interval(member(node, 'healthCheckIntervalMs'), 'healthCheckIntervalMs') ??
        options.healthCheckIntervalMs,
      maxSessions:
        this.integer(member(node, 'maxSessions'), 'maxSessions', 1, 10_000) ?? options.maxSessionsPerUpstream,
      startup: this.oneOf(member(node, 'startup'), 'startup', ['eager', 'lazy']) ?? options.startup,
      namespace: this.boolean(member(node, 'namespace'), 'namespace') ?? true,
    };
    const typeNode = member(node, 'type');
    const type = this.string(typeNode, 'type');
    const commandNode = member(node, 'command');
    const urlNode = member(node, 'url');
    if (commandNode && urlNode) {
      source.reportAt(
        urlNode,
        `The server "${name}" has both "command" and "url".`,
        'Keep "command" for a local server or "url" for a remote one.',
      );
      return undefined;
    }
    if (type !== undefined && type !== 'stdio' && !(type in HTTP_TYPES)) {
      source.reportAt(
        typeNode,
        `Unknown server type ${JSON.stringify(type)}.`,
        'Write "stdio", "http" (Streamable HTTP, either era) or "sse" (legacy HTTP+SSE).',
      );
      return undefined;
    }
    if (urlNode || (type !== undefined && type !== 'stdio')) {
      if (!urlNode) {
        source.reportAt(node, `The ${type} server "${name}" has no "url".`, 'Add "url": "https://host/mcp".');
        return undefined;
      }
      const url = this.url(urlNode);
      const headers = this.stringMap(member(node, 'headers'), 'headers') ?? {};
      const tokenExchange = this.security.upstreamAuth(member(node, 'upstreamAuth'), name);
      if (!url) return undefined;
      const transport =
        type === undefined ? (/\/sse\/?$/.test(url.pathname) ? 'sse' : 'http') : HTTP_TYPES[type]!;
      return {
        ...common,
        transport,
        url,
        headers,
        ...(tokenExchange ? { upstreamAuth: { tokenExchange } } : {}),
      };
    }
    if (!commandNode) {
      source.reportAt(
        node,
        `The server "${name}" has neither "command" nor "url".`,
        'Add "command": "npx" (with "args") for a local server, or "url" for a remote one.',
      );
      return undefined;
    }
    if (member(node, 'upstreamAuth') !== undefined) {
      source.reportAt(
        member(node, 'upstreamAuth'),
        `The server "${name}" runs locally (stdio): "upstreamAuth" is for HTTP servers.`,
        'Remove "upstreamAuth", or give the server a "url".',
      );
    }
    const command = this.string(commandNode, 'command', true);
    if (command === '')
      source.reportAt(commandNode, 'The command is empty.', 'Name the program to run, e.g. "npx".');
    const args = this.strings(member(node, 'args'), 'args', true) ?? [];
    const cwdNode = member(node, 'cwd');
    const cwdText = this.string(cwdNode, 'cwd', true);
    const cwd = cwdText === undefined ? undefined : this.path(cwdText);
    const env: Record<string, string> = {};
    const envFileNode = member(node, 'envFile');
    const envFile = this.string(envFileNode, 'envFile', true);
    if (envFile !== undefined) Object.assign(env, this.envFile(envFileNode!, this.path(envFile)));
    Object.assign(env, this.stringMap(member(node, 'env'), 'env') ?? {});
    if (command === undefined || command === '') return undefined;
    return { ...common, transport: 'stdio', command, args, env, cwd };
  }

  path(text: string): string {
    return isAbsolute(text) ? text : resolve(dirname(resolve(this.source.file)), text);
  }

  private envFile(node: Node, path: string): Record<string, string> {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch {
      this.source.reportAt(
        node,
        `The envFile ${path} cannot be read.`,
        'Give the path of a KEY=value file, relative to the config file.',
      );
      return {};
    }
    const env: Record<string, string> = {};
    text.split(/\r?\n/).forEach((raw, index) => {
      const line = raw.trim();
      if (line === '' || line.startsWith('#')) return;
      const match = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line);
      if (!match) {
        this.source.reportAt(
          node,
          `${path}:${index + 1}: ${JSON.stringify(raw)} is not KEY=value.`,
          'Write one KEY=value per line (# starts a comment).',
        );
        return;
      }
      const value = match[2]!;
      const quoted = /^(["'])(.*)\1$/.exec(value);
      env[match[1]!] = quoted ? quoted[2]! : value.replace(/\s+#.*$/, '');
    });
    return env;
  }

  private url(node: Node): URL | undefined {
    const text = this.string(node, 'url', true);
    if (text === undefined) return undefined;
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      this.source.reportAt(
        node,
        `${JSON.stringify(text)} is not a URL.`,
        'Give the whole endpoint, e.g. "https://host/mcp".',
      );
      return undefined;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      this.source.reportAt(
        node,
        `The URL must be http or https, not ${url.protocol}.`,
        'Give the whole endpoint, e.g. "https://host/mcp".',
      );
      return undefined;
    }
    return url;
  }

  unknownKeys(node: Node, known: Set<string>, foreign: Set<string>, where: string): void {
    for (const { key, keyNode } of properties(node)) {
      if (known.has(key) || foreign.has(key)) continue;
      const near = closest(key, known);
      // An unknown key is not wrong (other tools add their own), but a near miss probably is.
      if (near) this.source.reportAt(keyNode, `Unknown key "${key}" in ${where}.`, `Did you mean "${near}"?`);
      else this.warn(keyNode, `Unknown key "${key}" in ${where} is ignored.`);
    }
  }

  /** A string value, expanded when `expandVars`. */
  string(node: Node | undefined, key: string, expandVars = false): string | undefined {
    if (node === undefined) return undefined;
    if (node.type !== 'string') {
      this.source.reportAt(node, `"${key}" must be a string, not ${jsonType(node)}.`);
      return undefined;
    }
    return expandVars ? this.expanded(node) : (node.value as string);
  }

  private expanded(node: Node): string {
    const raw = node.value as string;
    const { value, failures } = expand(raw, this.scope);
    for (const failure of failures) {
      // Inside the literal: the offset of the `$` when the string has no escapes before it.
      const literal = this.source.text.slice(node.offset, node.offset + node.length);
      const at = literal.indexOf(raw.slice(failure.index, raw.indexOf('}', failure.index) + 1));
      this.source.report(at === -1 ? node.offset : node.offset + at, failure.message, failure.fix);
    }
    return value;
  }

  strings(node: Node | undefined, key: string, expandVars = false): string[] | undefined {
    if (node === undefined) return undefined;
    if (node.type !== 'array') {
      this.source.reportAt(
        node,
        `"${key}" must be an array of strings, not ${jsonType(node)}.`,
        `Write "${key}": ["..."].`,
      );
      return undefined;
    }
    const out: string[] = [];
    for (const item of node.children ?? []) {
      if (item.type !== 'string') {
        this.source.reportAt(
          item,
          `Each entry of "${key}" must be a string, not ${jsonType(item)}.`,
          item.type === 'number' ? `Quote it: "${jsonValue(item)}".` : undefined,
        );
      } else out.push(expandVars ? this.expanded(item) : (item.value as string));
    }
    return out;
  }

  private stringMap(node: Node | undefined, key: string): Record<string, string> | undefined {
    if (node === undefined) return undefined;
    if (node.type !== 'object') {
      this.source.reportAt(
        node,
        `"${key}" must be an object of strings, not ${jsonType(node)}.`,
        `Write "${key}": { "NAME": "value" }.`,
      );
      return undefined;
    }
    const out: Record<string, string> = {};
    for (const { key: name, value } of properties(node)) {
      if (value.type === 'string') out[name] = this.expanded(value);
      else if (value.type === 'number' || value.type === 'boolean') {
        this.source.reportAt(
          value,
          `The value of "${name}" in "${key}" must be a string.`,
          `Quote it: "${jsonValue(value)}".`,
        );
      } else
        this.source.reportAt(
          value,
          `The value of "${name}" in "${key}" must be a string, not ${jsonType(value)}.`,
        );
    }
    return out;
  }

  integer(node: Node | undefined, key: string, min: number, max: number): number | undefined {
    if (node === undefined) return undefined;
    const value = node.value;
    if (node.type !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      this.source.reportAt(
        node,
        `"${key}" must be a whole number from ${min} to ${max}.`,
        node.type === 'string' && /^\d+$/.test(value) ? `Remove the quotes: ${value}.` : undefined,
      );
      return undefined;
    }
    return value as number;
  }

  /**
   * A period in milliseconds that `0` turns off: `0`, or 100 ms to a day (a shorter one would ping
   * a server more often than any of its calls could tell anything new).
   */
  private interval(node: Node | undefined, key: string): number | undefined {
    if (node === undefined) return undefined;
    const value = node.value;
    if (node.type === 'number' && value === 0) return 0;
    if (node.type !== 'number' || !Number.isInteger(value) || value < 100 || value > 86_400_000) {
      this.source.reportAt(
        node,
        `"${key}" must be 0 (off) or a whole number from 100 to 86400000.`,
        node.type === 'string' && /^\d+$/.test(value) ? `Remove the quotes: ${value}.` : undefined,
      );
      return undefined;
    }
    return value as number;
  }

  private boolean(node: Node | undefined, key: string): boolean | undefined {
    if (node === undefined) return undefined;
    if (node.type === 'boolean') return node.value as boolean;
    this.source.reportAt(
      node,
      `"${key}" must be true or false, not ${jsonType(node)}.`,
      node.type === 'string' && /^(true|false)$/.test(node.value)
        ? `Remove the quotes: ${node.value}.`
        : undefined,
    );
    return undefined;
  }

  private oneOf<T extends string>(node: Node | undefined, key: string, allowed: readonly T[]): T | undefined {
    const value = this.string(node, key);
    if (value === undefined) return undefined;
    if ((allowed as readonly string[]).includes(value)) return value as T;
    this.source.reportAt(
      node,
      `"${key}" cannot be ${JSON.stringify(value)}.`,
      `Write ${allowed.map((a) => `"${a}"`).join(' or ')}.`,
    );
    return undefined;
  }
}

function suggestName(key: string): string {
  const cleaned = key
    .replace(/[^A-Za-z0-9_-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 32);
  return cleaned === '' ? 'server' : cleaned;
}

/** The known key at edit distance 1-2 from `key`, if one is (a typo). */
export function closest(key: string, known: ReadonlySet<string>): string | undefined {
  let best: string | undefined;
  // A longer key may be two edits off; a short one only one ("name" is not "type").
  let bestDistance = key.length > 5 ? 3 : 2;
  for (const candidate of known) {
    const distance = editDistance(key.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        previous[j]! + 1,
        current[j - 1]! + 1,
        previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = current;
  }
  return previous[b.length]!;
}
