/**
 * server.json, the MCP Registry's description of a server (modelcontextprotocol/registry,
 * docs/reference/server-json), read in every published revision of its schema: 2025-07-09 (first
 * with `registry_name`/`name`/`version_detail`, later `registry_type`/`identifier`/`transport`,
 * snake_case), 2025-09-16 (camelCase), 2025-09-29, 2025-10-11 and 2025-10-17 (`version` optional
 * for oci and mcpb), 2025-12-11 (`variables` in remote URLs). Each package becomes the command its
 * `registryType` implies (and, when its `transport` is streamable-http or sse, the URL it then
 * serves at, its template filled from the package's arguments and variables), each remote a URL target; inputs not given are asked for (or an error
 * names the flag), secrets become `${NAME}` references, never values.
 */
import { isPlainObject } from '../util/guards.js';
import { FleetError } from './errors.js';
import type { ServerSpec, StdioSpec } from './spec.js';

/** A server.json as the fleet commands use it. */
export interface ServerJson {
  readonly name: string;
  readonly version: string | undefined;
  readonly description: string | undefined;
  readonly packages: readonly Record<string, unknown>[];
  readonly remotes: readonly Record<string, unknown>[];
}

/** What a server.json declares one way of running it: a package or a remote. */
export interface Declared {
  /** `package npm @scope/name@1.2.3`, `remote https://...`, for messages. */
  readonly label: string;
  /** The transport the file declares: stdio, streamable-http or sse. */
  readonly transport: 'stdio' | 'streamable-http' | 'sse';
  readonly spec: ServerSpec;
  /**
   * For a package that serves HTTP (its `transport` is streamable-http or sse): the command that
   * runs it, which must be serving before anyone connects to `spec`'s URL.
   */
  readonly start?: StdioSpec;
  /** Secret variables the spec refers to (`${NAME}`). */
  readonly secrets: readonly string[];
}

/** How a missing input is got: `--env` values first, then (at a terminal) a question. */
export interface InputSource {
  /** Values given on the command line, by variable or input name. */
  readonly given: Readonly<Record<string, string>>;
  /** Asks for a value; undefined when nobody can be asked (not a terminal). */
  readonly ask?: (question: string) => Promise<string>;
}

/** Any of the schema's spellings of a field (camelCase since 2025-09-16, snake_case before). */
function field(object: Record<string, unknown>, ...names: string[]): unknown {
  for (const name of names) if (object[name] !== undefined) return object[name];
  return undefined;
}
const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const flag = (object: Record<string, unknown>, camel: string, snake: string) =>
  field(object, camel, snake) === true;
const objects = (v: unknown): Record<string, unknown>[] => (Array.isArray(v) ? v.filter(isPlainObject) : []);

export function parseServerJson(source: string, file: string): ServerJson {
  let value: unknown;
  try {
    value = JSON.parse(source);
  } catch (error) {
    throw new FleetError(`${file}: not JSON (${(error as Error).message}).`);
  }
  if (!isPlainObject(value)) throw new FleetError(`${file}: a server.json is a JSON object.`);
  // The Registry's API wraps it: { "server": {...}, "_meta": {...} }.
  const server = isPlainObject(value.server) && value.name === undefined ? value.server : value;
  const name = text(server.name);
  if (name === undefined) throw new FleetError(`${file}: the server.json has no "name".`);
  const versionDetail = isPlainObject(server.version_detail) ? server.version_detail : {};
  const packages = objects(server.packages);
  const remotes = objects(server.remotes);
  if (packages.length === 0 && remotes.length === 0)
    throw new FleetError(
      `${file}: the server.json declares neither "packages" nor "remotes": nothing to run.`,
    );
  return {
    name,
    version: text(server.version) ?? text(versionDetail.version),
    description: text(server.description),
    packages,
    remotes,
  };
}

/** A package or remote that cannot be run from a client's file, and why. */
export interface Undeclarable {
  readonly label: string;
  readonly error: string;
}

/** Every package and remote the file declares, in its order, as specs (or why not). */
export async function declaredServers(
  json: ServerJson,
  inputs: InputSource,
): Promise<(Declared | Undeclarable)[]> {
  const out: (Declared | Undeclarable)[] = [];
  const attempt = async (label: string, make: () => Promise<Declared>) => {
    try {
      out.push(await make());
    } catch (error) {
      if (!(error instanceof FleetError)) throw error;
      out.push({ label, error: error.message });
    }
  };
  for (const [i, pkg] of json.packages.entries())
    await attempt(`package ${i + 1}`, () => packageServer(pkg, inputs));
  for (const [i, remote] of json.remotes.entries())
    await attempt(`remote ${i + 1}`, () => remoteServer(remote, inputs));
  return out;
}

class Resolver {
  readonly secrets: string[] = [];
  /**
   * The values of the package's arguments and environment variables, by valueHint, name (with and
   * without its dashes) and variable name: what a package transport's URL template refers to.
   */
  readonly resolved = new Map<string, string>();
  constructor(private readonly inputs: InputSource) {}

  /** An input's value: given, fixed, default, `${NAME}` for a secret, or asked for when required. */
  async value(input: Record<string, unknown>, name: string, what: string): Promise<string | undefined> {
    const given = this.inputs.given[name];
    if (given !== undefined) return given;
    const fixed = text(input.value) ?? text(input.default);
    if (fixed !== undefined) return this.substitute(fixed, input);
    if (flag(input, 'isSecret', 'is_secret')) {
      const variable = name.replace(/[^A-Za-z0-9_]/g, '_').toUpperCase();
      if (!this.secrets.includes(variable)) this.secrets.push(variable);
      return `\${${variable}}`;
    }
    if (!flag(input, 'isRequired', 'is_required')) return undefined;
    const description = text(input.description);
    if (!this.inputs.ask)
      throw new FleetError(
        `The server.json requires ${what}${description ? ` (${description})` : ''}: give it with --env ${name}=VALUE.`,
      );
    return this.inputs.ask(`${what}${description ? ` (${description})` : ''}: `);
  }

  /** `{name}` in a value replaced from the input's `variables`; unknown names stay as they are. */
  async substitute(value: string, input: Record<string, unknown>): Promise<string> {
    const variables = isPlainObject(input.variables) ? input.variables : {};
    let out = '';
    let last = 0;
    for (const match of value.matchAll(/\{([A-Za-z0-9_.-]+)\}/g)) {
      const variable = variables[match[1]!];
      out += value.slice(last, match.index);
      last = match.index + match[0].length;
      const resolved = isPlainObject(variable)
        ? await this.value(variable, match[1]!, `the value of {${match[1]}}`)
        : undefined;
      out += resolved ?? match[0];
    }
    return out + value.slice(last);
  }

  async arguments(list: unknown): Promise<string[]> {
    const args: string[] = [];
    for (const arg of objects(list)) {
      const type = text(arg.type) ?? 'positional';
      const name = text(arg.name) ?? text(field(arg, 'valueHint', 'value_hint')) ?? 'argument';
      const value = await this.value(
        arg,
        name,
        type === 'named' ? `the option ${name}` : `the argument ${name}`,
      );
      if (value !== undefined) {
        this.resolved.set(name, value);
        this.resolved.set(name.replace(/^-+/, ''), value);
      }
      if (type === 'named') {
        if (value !== undefined) args.push(name, value);
        else if (flag(arg, 'isRequired', 'is_required')) args.push(name);
      } else if (value !== undefined) args.push(value);
    }
    return args;
  }
}

async function packageServer(pkg: Record<string, unknown>, inputs: InputSource): Promise<Declared> {
  const registry = text(field(pkg, 'registryType', 'registry_type', 'registry_name'));
  const identifier = text(field(pkg, 'identifier', 'name'));
  const version = text(pkg.version);
  if (registry === undefined || identifier === undefined)
    throw new FleetError('A package of the server.json has no registryType or identifier.');
  const declaredTransport = isPlainObject(pkg.transport) ? pkg.transport : {};
  const transport = text(declaredTransport.type) ?? 'stdio';
  const label = `package ${registry} ${identifier}${version ? `@${version}` : ''}`;
  if (transport !== 'stdio' && transport !== 'streamable-http' && transport !== 'sse')
    throw new FleetError(
      `The ${label} has the transport ${JSON.stringify(transport)}: use stdio, streamable-http or sse.`,
    );
  const resolver = new Resolver(inputs);
  const runtime = await resolver.arguments(field(pkg, 'runtimeArguments', 'runtime_arguments'));
  const packageArgs = await resolver.arguments(field(pkg, 'packageArguments', 'package_arguments'));
  const env: Record<string, string> = {};
  for (const variable of objects(field(pkg, 'environmentVariables', 'environment_variables'))) {
    const name = text(variable.name);
    if (name === undefined) continue;
    const value = await resolver.value(variable, name, `the environment variable ${name}`);
    if (value !== undefined) {
      env[name] = value;
      resolver.resolved.set(name, value);
    }
  }
  const hint = text(field(pkg, 'runtimeHint', 'runtime_hint'));
  let command: string;
  let args: string[];
  switch (registry) {
    case 'npm':
      command = hint ?? 'npx';
      args = [
        ...runtime,
        ...(runtime.includes('-y') || runtime.includes('--yes') ? [] : ['-y']),
        `${identifier}${version ? `@${version}` : ''}`,
        ...packageArgs,
      ];
      break;
    case 'pypi':
      command = hint ?? 'uvx';
      args = [...runtime, `${identifier}${version ? `==${version}` : ''}`, ...packageArgs];
      break;
    case 'oci':
    case 'docker': {
      command = hint ?? 'docker';
      // The container sees only the variables passed into it.
      const passEnv = Object.keys(env).flatMap((name) => ['-e', name]);
      const image =
        version && !/:[^/]+$/.test(identifier) && !identifier.includes('@')
          ? `${identifier}:${version}`
          : identifier;
      args = ['run', '-i', '--rm', ...passEnv, ...runtime, image, ...packageArgs];
      break;
    }
    case 'nuget':
      command = hint ?? 'dnx';
      args = [
        ...runtime,
        `${identifier}${version ? `@${version}` : ''}`,
        '--yes',
        ...(packageArgs.length > 0 ? ['--', ...packageArgs] : []),
      ];
      break;
    default:
      throw new FleetError(
        `The ${label}: a ${registry} package is not run from a command line (${registry === 'mcpb' ? 'an MCP bundle is installed by the client itself' : 'unknown registryType'}); use another package or a remote.`,
      );
  }
  const run: StdioSpec = { kind: 'stdio', command, args, env };
  if (transport === 'stdio') return { label, transport, spec: run, secrets: resolver.secrets };
  const served = await packageUrl(declaredTransport, resolver, label);
  return {
    label: `${label} (${transport} at ${served.url})`,
    transport,
    spec: {
      kind: 'url',
      url: served.url,
      transport: transport === 'sse' ? 'sse' : 'http',
      headers: served.headers,
    },
    start: run,
    secrets: resolver.secrets,
  };
}

/**
 * Where a package that serves HTTP listens: its transport's `url`, whose `{variables}` are the
 * package's own arguments (by valueHint or name) and environment variables, and its headers.
 */
async function packageUrl(
  transport: Record<string, unknown>,
  resolver: Resolver,
  label: string,
): Promise<{ url: string; headers: Record<string, string> }> {
  const template = text(transport.url);
  if (template === undefined)
    throw new FleetError(`The ${label} serves ${String(transport.type)} but its transport has no "url".`);
  const unknown: string[] = [];
  const url = template.replace(/\{([A-Za-z0-9_.-]+)\}/g, (whole, name: string) => {
    const value = resolver.resolved.get(name);
    if (value === undefined) unknown.push(name);
    return value ?? whole;
  });
  if (unknown.length > 0)
    throw new FleetError(
      `The ${label} serves at ${template}, but no argument or environment variable of the package gives ${unknown.map((n) => `{${n}}`).join(', ')}: give ${unknown.length === 1 ? 'it' : 'them'} with --env ${unknown[0]}=VALUE.`,
    );
  if (!URL.canParse(url.replace(/\$\{[A-Za-z_][A-Za-z0-9_]*\}/g, 'x')))
    throw new FleetError(`The ${label} serves at ${JSON.stringify(url)}, which is not a URL.`);
  const headers = await resolveHeaders(transport.headers, resolver);
  return { url, headers };
}

async function resolveHeaders(list: unknown, resolver: Resolver): Promise<Record<string, string>> {
  const headers: Record<string, string> = {};
  for (const header of objects(list)) {
    const name = text(header.name);
    if (name === undefined) continue;
    const value = await resolver.value(header, name, `the header ${name}`);
    if (value !== undefined) headers[name] = value;
  }
  return headers;
}

async function remoteServer(remote: Record<string, unknown>, inputs: InputSource): Promise<Declared> {
  const type = text(field(remote, 'type', 'transport_type')) ?? 'streamable-http';
  const template = text(remote.url);
  if (template === undefined) throw new FleetError('A remote of the server.json has no "url".');
  if (type !== 'streamable-http' && type !== 'sse' && type !== 'http')
    throw new FleetError(
      `The remote ${template} has the transport ${JSON.stringify(type)}: use streamable-http or sse.`,
    );
  const resolver = new Resolver(inputs);
  const url = await resolver.substitute(template, remote);
  const headers = await resolveHeaders(remote.headers, resolver);
  const transport = type === 'sse' ? 'sse' : 'streamable-http';
  return {
    label: `remote ${url}`,
    transport,
    spec: { kind: 'url', url, transport: transport === 'sse' ? 'sse' : 'http', headers },
    secrets: resolver.secrets,
  };
}
