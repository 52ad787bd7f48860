/**
 * Names and routes: which upstream, and which of its names or URIs, a downstream name or URI
 * stands for. Tools and prompts are `<server><separator><name>` (names.ts makes them valid),
 * resources and templates `gateway://<server>/<uri>` (MCP Apps views `ui://<server>/<rest>`, skills `skill://<server>/<skill-path>/...`); an
 * upstream with `"namespace": false` keeps its own names and URIs. A view's tool calls by its own
 * server's names are routed too (`appTool`). Two upstreams that come to the same downstream name are told apart by
 * the config's collision policy (`suffix` or `skip`).
 */
import { ErrorCode, ProtocolError } from '../protocol/errors.js';
import type { Meta } from '../protocol/types.js';
import { isPlainObject } from '../util/guards.js';
import type { Logger } from '../util/logger.js';
import type { GatewayConfig } from './config.js';
import { APP_URI_PREFIX, exposedName, exposedUri, parseExposedUri, withSuffix } from './names.js';
import type { Upstream } from './upstream.js';

/** Where a downstream tool or prompt name leads. */
export interface Route {
  readonly upstream: Upstream;
  readonly name: string;
}

export type NamedKind = 'tool' | 'prompt';

export class Routes {
  /** Downstream tool and prompt names → where they lead. */
  private readonly named: Record<NamedKind, Map<string, Route>> = { tool: new Map(), prompt: new Map() };
  /** Upstream names of tools views may call → the downstream names (see {@link appTool}). */
  private readonly appTools = new Map<string, Set<string>>();
  /** The upstreams by name. */
  readonly upstreams = new Map<string, Upstream>();
  private config: GatewayConfig;
  /** The upstream shown without a namespace (`"namespace": false`), if one is. */
  private bare: string | undefined;

  constructor(
    config: GatewayConfig,
    private readonly logger: Logger,
  ) {
    this.config = config;
    this.bare = bareOf(config);
  }

  get options(): GatewayConfig['options'] {
    return this.config.options;
  }

  /** A new config's upstreams (the gateway's own options keep their first values). */
  configure(config: GatewayConfig): void {
    this.config = { ...config, options: this.config.options };
    this.bare = bareOf(config);
  }

  route(kind: NamedKind, name: string): Route | undefined {
    return this.named[kind].get(name);
  }

  set(kind: NamedKind, name: string, route: Route): void {
    this.named[kind].set(name, route);
  }

  delete(kind: NamedKind, name: string): void {
    this.named[kind].delete(name);
  }

  /**
   * The downstream name of upstream tool or prompt `original`; undefined when another upstream has
   * it and the collision policy is `skip` (reported).
   */
  nameOf(upstream: Upstream, kind: NamedKind, original: string): string | undefined {
    const { separator, collisions } = this.config.options;
    const name = upstream.config.namespace
      ? exposedName(upstream.name, separator, original)
      : exposedName('', '', original);
    const taken = this.named[kind].get(name);
    if (taken === undefined || (taken.upstream === upstream && taken.name === original)) return name;
    if (collisions === 'skip') {
      this.logger.warn(
        `gateway: ${kind} "${original}" of "${upstream.name}" is not shown: "${name}" is taken by "${taken.upstream.name}".`,
      );
      return undefined;
    }
    return withSuffix(name, `${upstream.name}/${original}`);
  }

  /**
   * The upstream a downstream URI belongs to (by name) and its URI there. With a server shown
   * without a namespace, a URI that names no namespaced server (its own `ui://x/...`) is that one's.
   */
  owner(uri: string): { namespace: string; uri: string } | undefined {
    const parsed = parseExposedUri(uri);
    if (this.bare === undefined) return parsed;
    if (parsed && this.upstreams.get(parsed.namespace)?.config.namespace) return parsed;
    return { namespace: this.bare, uri };
  }

  /**
   * An upstream's URI as clients see it: under `gateway://<server>/` (a `ui://` view as
   * `ui://<server>/...`), or as it is without a namespace.
   */
  shownUri(upstream: Upstream, uri: string): string {
    return upstream.config.namespace ? exposedUri(upstream.name, uri) : uri;
  }

  /**
   * A `_meta` naming an MCP Apps view (`ui.resourceUri`, or the older flat `ui/resourceUri`) with
   * the view's `ui://` URI as shown downstream, as a new object; undefined when it names no view.
   * Tool descriptors and tool results alike (a result may name the view to show it in).
   */
  viewMeta(upstream: Upstream, meta: Meta | undefined): Meta | undefined {
    if (meta === undefined) return undefined;
    const ui = isPlainObject(meta.ui) ? meta.ui : undefined;
    const nested = ui?.resourceUri;
    const flat = meta['ui/resourceUri'];
    if (nested === undefined && flat === undefined) return undefined;
    const shown = (uri: unknown) =>
      typeof uri === 'string' && uri.startsWith(APP_URI_PREFIX) ? this.shownUri(upstream, uri) : uri;
    const mapped: Meta = { ...meta };
    if (nested !== undefined) mapped.ui = { ...ui, resourceUri: shown(nested) };
    if (flat !== undefined) mapped['ui/resourceUri'] = shown(flat);
    return mapped;
  }

  /**
   * Content blocks of a tool's or prompt's result as shown downstream: a `resource_link`'s URI and
   * an embedded `resource`'s are mapped as the upstream's resources are (`ui://<server>/...` for a
   * view, `gateway://<server>/...` else), so the client reads them back through the gateway.
   * Mutates the blocks (parsed for this call alone); allocates only for a block it maps.
   */
  mapContent(upstream: Upstream, blocks: readonly unknown[]): void {
    if (!upstream.config.namespace) return;
    for (const block of blocks) {
      if (!isPlainObject(block)) continue;
      if (block.type === 'resource_link' && typeof block.uri === 'string') {
        block.uri = exposedUri(upstream.name, block.uri);
      } else if (
        block.type === 'resource' &&
        isPlainObject(block.resource) &&
        typeof block.resource.uri === 'string'
      ) {
        block.resource = { ...block.resource, uri: exposedUri(upstream.name, block.resource.uri) };
      }
    }
  }

  /** The upstream of a downstream URI and its URI there; -32602 when no upstream has it. */
  target(uri: string): { upstream: Upstream; uri: string } {
    const parsed = this.owner(uri);
    const upstream = parsed && this.upstreams.get(parsed.namespace);
    if (!parsed || !upstream) {
      throw new ProtocolError(
        ErrorCode.InvalidParams,
        `Unknown resource: ${uri}. Call resources/list for the available resources.`,
      );
    }
    return { upstream, uri: parsed.uri };
  }

  /**
   * A tool an MCP Apps view may call by its own server's name (views are written for their server,
   * not for the gateway), with the downstream name it stands for. Set by the catalog.
   */
  setAppTool(original: string, name: string, on: boolean): void {
    let names = this.appTools.get(original);
    if (on) {
      if (!names) {
        names = new Set();
        this.appTools.set(original, names);
      }
      names.add(name);
    } else if (names?.delete(name) && names.size === 0) {
      this.appTools.delete(original);
    }
  }

  /**
   * The downstream tool a `tools/call` by `name` stands for when no downstream tool has that name
   * but exactly one upstream with views has a tool by it that views may call; else undefined.
   */
  appTool(name: string): string | undefined {
    const names = this.appTools.get(name);
    if (names === undefined || names.size !== 1 || this.named.tool.has(name)) return undefined;
    return names.values().next().value;
  }

  /** The upstream a method not addressed to anyone goes to: the only one, or the one without a namespace. */
  defaultUpstream(): Upstream | undefined {
    if (this.upstreams.size === 1) return this.upstreams.values().next().value;
    return this.bare === undefined ? undefined : this.upstreams.get(this.bare);
  }
}

function bareOf(config: GatewayConfig): string | undefined {
  return config.upstreams.find((upstream) => !upstream.namespace)?.name;
}
