/**
 * A server spec as each client's file wants it (key names, transport markers, secret references),
 * and back: an entry read from a file as what the client would start or connect to.
 */
import { type ExpandScope, expand } from '../gateway/expand.js';
import { isPlainObject } from '../util/guards.js';
import type { ClientInfo } from './clients.js';
import { FleetError } from './errors.js';
import {
  references,
  type ServerSpec,
  type StdioSpec,
  soleReference,
  substitute,
  type UrlSpec,
} from './spec.js';

/** A VS Code `inputs` item: asked for once by VS Code, stored by it, never in the file. */
export interface VsCodeInput {
  readonly type: 'promptString';
  readonly id: string;
  readonly description: string;
  readonly password: true;
}

export interface RenderOptions {
  /** Write secrets' values (from `env`) into the file instead of references (`--inline-secrets`). */
  readonly inlineSecrets: boolean;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** `switchboard gateway --stdio` as a command: node and the CLI's script, absolute. */
  readonly bridge: { readonly command: string; readonly args: readonly string[] };
}

export interface RenderedEntry {
  readonly entry: Record<string, unknown>;
  /** VS Code inputs the entry refers to. */
  readonly inputs: readonly VsCodeInput[];
  /** What the user should know about how it was written. */
  readonly notes: readonly string[];
}

/** The entry `client` keeps for `spec` under its server key. */
export function renderEntry(
  client: ClientInfo,
  name: string,
  spec: ServerSpec,
  options: RenderOptions,
): RenderedEntry {
  const notes: string[] = [];
  if (spec.kind === 'url' && (!client.urls || (client.id === 'codex' && spec.transport === 'sse'))) {
    notes.push(
      `${client.title} ${client.urls ? 'takes only Streamable HTTP URLs' : 'takes only commands in its file'}: written as "switchboard gateway --stdio" bridging ${spec.url}.`,
    );
    // The gateway expands `${NAME}` in its arguments itself, from the environment it is started with.
    const rendered = renderEntry({ ...client, secrets: 'plain' }, name, bridged(spec, options), options);
    const variables = [...new Set(Object.values(spec.headers).flatMap(references))];
    if (variables.length > 0 && !options.inlineSecrets && !client.terminal)
      notes.push(
        `${variables.join(', ')} must be set in the environment ${client.title} runs in: the gateway reads ${variables.length === 1 ? 'it' : 'them'} from there.`,
      );
    return { ...rendered, notes: [...notes, ...rendered.notes] };
  }
  const inputs: VsCodeInput[] = [];
  const refer = referrer(client, name, options, inputs);
  const map = (values: Readonly<Record<string, string>>) =>
    Object.fromEntries(Object.entries(values).map(([k, v]) => [k, refer(v, k)]));
  if (spec.kind === 'stdio') return { entry: stdioEntry(client, spec, refer, map), inputs, notes };
  return { entry: urlEntry(client, spec, options, refer, map), inputs, notes };
}

type Refer = (value: string, key?: string) => string;

function stdioEntry(
  client: ClientInfo,
  spec: StdioSpec,
  refer: Refer,
  map: (values: Readonly<Record<string, string>>) => Record<string, string>,
): Record<string, unknown> {
  const typed = client.id === 'claude-code' || client.id === 'vscode';
  const entry: Record<string, unknown> = {
    ...(typed ? { type: 'stdio' } : {}),
    command: refer(spec.command),
    args: spec.args.map((a) => refer(a)),
  };
  if (client.secrets === 'codex') {
    // Codex passes variables through by name (`env_vars`); a value must be literal otherwise.
    const env: Record<string, string> = {};
    const passed: string[] = [];
    for (const [key, value] of Object.entries(spec.env)) {
      if (soleReference(value) === key) passed.push(key);
      else env[key] = refer(value, key);
    }
    if (Object.keys(env).length > 0) entry.env = env;
    if (passed.length > 0) entry.env_vars = passed;
    return entry;
  }
  if (Object.keys(spec.env).length > 0) entry.env = map(spec.env);
  return entry;
}

function urlEntry(
  client: ClientInfo,
  spec: UrlSpec,
  options: RenderOptions,
  refer: Refer,
  map: (values: Readonly<Record<string, string>>) => Record<string, string>,
): Record<string, unknown> {
  if (client.id === 'codex') return codexUrlEntry(spec, options, refer);
  const url = refer(spec.url);
  const headers = Object.keys(spec.headers).length > 0 ? { headers: map(spec.headers) } : {};
  switch (client.id) {
    case 'claude-code':
    case 'vscode':
      return { type: spec.transport, url, ...headers };
    case 'windsurf':
      return { serverUrl: url, ...headers };
    case 'gemini':
      return spec.transport === 'http' ? { httpUrl: url, ...headers } : { url, ...headers };
    default:
      return { url, ...headers };
  }
}

/** Codex: `bearer_token_env_var` for `Bearer ${VAR}`, `env_http_headers` for a header that is `${VAR}`. */
function codexUrlEntry(spec: UrlSpec, options: RenderOptions, refer: Refer) {
  const entry: Record<string, unknown> = { url: refer(spec.url) };
  const literal: Record<string, string> = {};
  const fromEnv: Record<string, string> = {};
  for (const [header, value] of Object.entries(spec.headers)) {
    const bearer = /^Bearer (\$\{[A-Za-z_][A-Za-z0-9_]*\})$/.exec(value);
    const sole = soleReference(value);
    if (header.toLowerCase() === 'authorization' && bearer && !options.inlineSecrets)
      entry.bearer_token_env_var = soleReference(bearer[1]!);
    else if (sole !== undefined && !options.inlineSecrets) fromEnv[header] = sole;
    else literal[header] = refer(value, header);
  }
  if (Object.keys(literal).length > 0) entry.http_headers = literal;
  if (Object.keys(fromEnv).length > 0) entry.env_http_headers = fromEnv;
  return entry;
}

/** How `client` writes a value holding `${NAME}` references (or their values, when asked). */
function referrer(client: ClientInfo, server: string, options: RenderOptions, inputs: VsCodeInput[]): Refer {
  return (value, key) => {
    if (references(value).length === 0) return value;
    if (options.inlineSecrets) {
      return substitute(value, (variable) => {
        const set = options.env[variable];
        if (set === undefined)
          throw new FleetError(`--inline-secrets: the environment variable ${variable} is not set.`);
        return set;
      });
    }
    switch (client.secrets) {
      case 'env':
        return substitute(value, (v) => `\${env:${v}}`);
      case 'plain':
        return value;
      case 'input':
        return substitute(value, (v) => {
          if (!inputs.some((i) => i.id === v)) {
            inputs.push({
              type: 'promptString',
              id: v,
              description: `${v} for the MCP server "${server}"`,
              password: true,
            });
          }
          return `\${input:${v}}`;
        });
      default:
        throw new FleetError(
          `${client.title} has no way to refer to an environment variable${key ? ` in ${key}` : ''}, and secrets are not written into files unless asked: ` +
            `give the value itself, or pass --inline-secrets to write the value of ${references(value).join(', ')} from your environment.`,
        );
    }
  };
}

/** A URL server as a command: the gateway serving that one URL over stdio, its tools named as they are. */
function bridged(spec: UrlSpec, options: RenderOptions): StdioSpec {
  const headers = Object.entries(spec.headers).flatMap(([k, v]) => ['--header', `${k}: ${v}`]);
  return {
    kind: 'stdio',
    command: options.bridge.command,
    args: [...options.bridge.args, 'gateway', '--stdio', ...headers, spec.url],
    env: {},
  };
}

/** What a client would start (`stdio`) or connect to (`url`) for an entry, references unexpanded. */
export type Launch =
  | {
      readonly kind: 'stdio';
      readonly command: string;
      readonly args: readonly string[];
      readonly env: Readonly<Record<string, string>>;
      /** Codex `env_vars`: variables passed through from the client's environment. */
      readonly passed: readonly string[];
      readonly cwd: string | undefined;
    }
  | {
      readonly kind: 'url';
      readonly url: string;
      readonly transport: 'http' | 'sse';
      readonly headers: Readonly<Record<string, string>>;
      /** Codex: header name → the variable holding its value (`bearer_token_env_var` as Authorization). */
      readonly headerVars: Readonly<Record<string, string>>;
    };

/** Reads an entry of `client`'s file; a string says why it is not one the client could use. */
export function readEntry(client: ClientInfo, entry: unknown): Launch | string {
  if (!isPlainObject(entry)) return 'the entry is not an object';
  const strings = (v: unknown): Record<string, string> =>
    isPlainObject(v)
      ? Object.fromEntries(Object.entries(v).filter((e): e is [string, string] => typeof e[1] === 'string'))
      : {};
  const list = (v: unknown): string[] =>
    Array.isArray(v) ? v.filter((a): a is string => typeof a === 'string') : [];
  const url = entry.url ?? entry.serverUrl ?? entry.httpUrl;
  if (typeof url === 'string') {
    if (!client.urls && client.id === 'claude-desktop')
      return 'Claude Desktop ignores "url" entries in its file';
    const transport =
      entry.type === 'sse' || (entry.httpUrl === undefined && client.id === 'gemini') ? 'sse' : 'http';
    const headerVars: Record<string, string> = {};
    if (typeof entry.bearer_token_env_var === 'string') headerVars.Authorization = entry.bearer_token_env_var;
    Object.assign(headerVars, strings(entry.env_http_headers));
    return {
      kind: 'url',
      url,
      transport,
      headers: { ...strings(entry.headers), ...strings(entry.http_headers) },
      headerVars,
    };
  }
  // Zed's older form: "command": { "path", "args", "env" }.
  const command = isPlainObject(entry.command) ? entry.command.path : entry.command;
  const nested = isPlainObject(entry.command) ? entry.command : entry;
  if (typeof command !== 'string' || command === '') return 'the entry has neither "command" nor a URL';
  return {
    kind: 'stdio',
    command,
    args: list(nested.args),
    env: strings(nested.env),
    passed: list(entry.env_vars),
    cwd: typeof entry.cwd === 'string' ? entry.cwd : undefined,
  };
}

/** A launch with each reference expanded as `client` expands it; `missing` names what was not set. */
export function expandLaunch(
  client: ClientInfo,
  launch: Launch,
  env: Readonly<Record<string, string | undefined>>,
  place: { readonly home: string; readonly projectDir: string },
): { launch: Launch; missing: string[] } {
  const missing: string[] = [];
  // Clients without a reference form take every value as written.
  const expands = client.secrets !== 'none' && client.secrets !== 'codex';
  const scope: ExpandScope = {
    env,
    inputs: new Map(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined)),
    declaredInputs: new Set(),
    workspaceFolder: place.projectDir,
    userHome: place.home,
  };
  const one = (value: string): string => {
    if (!expands) return value;
    const { value: out, failures } = expand(value, scope);
    for (const f of failures) missing.push(f.message);
    return out;
  };
  const each = (values: Readonly<Record<string, string>>) =>
    Object.fromEntries(Object.entries(values).map(([k, v]) => [k, one(v)]));
  const fromVars = (vars: Readonly<Record<string, string>>, format: (name: string, v: string) => string) => {
    const out: Record<string, string> = {};
    for (const [key, variable] of Object.entries(vars)) {
      const value = env[variable];
      if (value === undefined) missing.push(`The environment variable ${variable} is not set.`);
      else out[key] = format(key, value);
    }
    return out;
  };
  if (launch.kind === 'stdio') {
    const passed = fromVars(Object.fromEntries(launch.passed.map((v) => [v, v])), (_k, v) => v);
    return {
      launch: {
        ...launch,
        command: one(launch.command),
        args: launch.args.map(one),
        env: { ...each(launch.env), ...passed },
      },
      missing,
    };
  }
  const fromEnv = fromVars(launch.headerVars, (k, v) =>
    k === 'Authorization' && launch.headerVars.Authorization !== undefined ? `Bearer ${v}` : v,
  );
  return {
    launch: {
      ...launch,
      url: one(launch.url),
      headers: { ...each(launch.headers), ...fromEnv },
      headerVars: {},
    },
    missing,
  };
}
