/**
 * The catalog: what every upstream offers, mirrored into the gateway's server as pass-through
 * items (see server/pass-through.ts), so pagination, cursors, 2026-07-28 cache hints, `filterList`,
 * scopes, middleware and `list_changed` in both eras are the server's. The lists are read on the
 * gateway's catalog session with each upstream, and read again when the upstream says one changed
 * (at most one read running and one waiting per upstream and list, however many notifications
 * come) or reconnects; when its circuit opens its items disappear until it is back.
 */
import { APPS_EXTENSION, isToolForApp, toolUi } from '../extensions/apps.js';
import type { Client } from '../extensions/client.js';
import type { Server } from '../extensions/server.js';
import { SKILLS_EXTENSION } from '../extensions/skills/types.js';
import { TASKS_EXTENSION } from '../extensions/tasks/types.js';
import type { Prompt, Resource, ResourceTemplate, ServerCapabilities, Tool } from '../protocol/types.js';
import type { PassThroughHandle } from '../server/pass-through.js';
import { errorMessage } from '../util/guards.js';
import type { Logger } from '../util/logger.js';
import type { Forwarding } from './forwarding.js';
import { glob } from './glob.js';
import type { ToolPins } from './pins.js';
import type { Routes } from './routes.js';
import type { GatewaySkills } from './skills.js';
import type { Upstream } from './upstream.js';

type Kind = 'tool' | 'prompt' | 'resource' | 'template';
type Item = Tool | Prompt | Resource | ResourceTemplate;
/** The lists an upstream's `list_changed` names: resources covers resources and templates. */
type List = 'tools' | 'prompts' | 'resources';
const LISTS: readonly List[] = ['tools', 'prompts', 'resources'];
const KINDS_OF: Record<List, readonly Kind[]> = {
  tools: ['tool'],
  prompts: ['prompt'],
  resources: ['resource', 'template'],
};

/** What is registered downstream for one upstream item, and the definition it came from. */
interface Mirrored {
  readonly handle: PassThroughHandle<any>;
  readonly definition: string;
}

/**
 * Work that runs at most once at a time, with at most one run waiting: a request while one waits
 * joins it (the waiting run reads the newest state, so it answers for every request it absorbed).
 */
class Coalesced {
  private running: Promise<void> | undefined;
  private waiting: Promise<void> | undefined;

  constructor(private readonly work: () => Promise<void>) {}

  request(): Promise<void> {
    if (this.waiting) return this.waiting;
    if (!this.running) return this.start();
    this.waiting = this.running.then(() => {
      this.waiting = undefined;
      return this.start();
    });
    return this.waiting;
  }

  /** Settles when nothing runs or waits any more (for what was requested until now). */
  get settled(): Promise<void> {
    return this.waiting ?? this.running ?? Promise.resolve();
  }

  private start(): Promise<void> {
    const run = this.work().finally(() => {
      if (this.running === run) this.running = undefined;
    });
    this.running = run;
    return run;
  }
}

/** One upstream in the catalog: its items shown downstream, and its lists' refreshes. */
interface Entry {
  readonly mirrors: Record<Kind, Map<string, Mirrored>>;
  readonly refreshes: Record<List, Coalesced>;
  /** Its items were taken off because its circuit opened, and are not read back yet. */
  hidden: boolean;
}

export class Catalog {
  private readonly entries = new Map<Upstream, Entry>();
  /** Per catalog session: its `list_changed` subscription, acknowledged. */
  private readonly listening = new WeakMap<Client, Promise<void>>();
  /** The reads that bring back the items of upstreams up again after their circuit opened. */
  private readonly restorations = new Set<Promise<void>>();
  private closed = false;

  constructor(
    private readonly server: Server,
    private readonly routes: Routes,
    private readonly forwarding: Forwarding,
    private readonly pins: ToolPins | undefined,
    private readonly skills: GatewaySkills,
    private readonly logger: Logger,
  ) {}

  add(upstream: Upstream): void {
    const refresh = (list: List) =>
      new Coalesced(() =>
        this.mirror(upstream, list).catch((error: unknown) => {
          this.logger.warn(`gateway: cannot list the ${list} of "${upstream.name}": ${errorMessage(error)}`);
        }),
      );
    this.entries.set(upstream, {
      mirrors: { tool: new Map(), prompt: new Map(), resource: new Map(), template: new Map() },
      refreshes: { tools: refresh('tools'), prompts: refresh('prompts'), resources: refresh('resources') },
      hidden: false,
    });
  }

  /** Takes an upstream's items off the lists (after its refreshes settled). */
  async remove(upstream: Upstream): Promise<void> {
    const entry = this.entries.get(upstream);
    if (!entry) return;
    await Promise.all(LISTS.map((list) => entry.refreshes[list].settled));
    for (const kind of ['tool', 'prompt', 'resource', 'template'] as const) this.apply(upstream, kind, []);
    this.skills.remove(upstream);
    this.entries.delete(upstream);
  }

  close(): void {
    this.closed = true;
  }

  /** Reads the lists named (all by default) again; resolves once they are mirrored. */
  refresh(upstream: Upstream, lists: readonly List[] = LISTS): Promise<void> {
    const entry = this.entries.get(upstream);
    if (!entry) return Promise.resolve();
    const read = Promise.all(lists.map((list) => entry.refreshes[list].request())).then(() => undefined);
    if (entry.hidden && upstream.health().state === 'up') {
      // Up again (its /readyz says so) while its items are still off the lists: until they are read
      // back, a list would miss them (and a 2026-07-28 client keep that list for its ttlMs) and a
      // call of one would be answered "Unknown tool". Such requests wait for this read.
      entry.hidden = false;
      const restoring = read.finally(() => this.restorations.delete(restoring));
      this.restorations.add(restoring);
    }
    return read;
  }

  /**
   * Settles once the items of every upstream that came back after its circuit opened are mirrored
   * again; undefined when none is being read back (the usual case: nothing to wait for).
   */
  restoring(): Promise<void> | undefined {
    if (this.restorations.size === 0) return undefined;
    return Promise.all(this.restorations).then(() => undefined);
  }

  /** Connects the catalogs of `upstreams` and waits for their lists to be mirrored. */
  async connect(upstreams: readonly Upstream[]): Promise<void> {
    await Promise.all(
      upstreams.map((upstream) =>
        upstream.catalog().then(
          () => this.settled(upstream),
          () => undefined,
        ),
      ),
    );
  }

  /** Lazily started upstreams connect on the first list that needs them. */
  async ensureStarted(): Promise<void> {
    const lazy = [...this.routes.upstreams.values()].filter(
      (u) => u.config.startup === 'lazy' && u.health().state === 'idle',
    );
    if (lazy.length > 0) await this.connect(lazy);
  }

  /** Names shown downstream for an upstream, by kind. */
  exposed(upstream: Upstream | undefined): Record<'tools' | 'prompts' | 'resources' | 'templates', number> {
    const mirrors = upstream && this.entries.get(upstream)?.mirrors;
    return {
      tools: mirrors?.tool.size ?? 0,
      prompts: mirrors?.prompt.size ?? 0,
      resources: mirrors?.resource.size ?? 0,
      templates: mirrors?.template.size ?? 0,
    };
  }

  private settled(upstream: Upstream): Promise<void> {
    const entry = this.entries.get(upstream);
    if (!entry) return Promise.resolve();
    return Promise.all(LISTS.map((list) => entry.refreshes[list].settled)).then(() => undefined);
  }

  /** Reads one of the upstream's lists and makes the server's registry match it. */
  private async mirror(upstream: Upstream, list: List): Promise<void> {
    if (this.closed) return;
    const { state } = upstream.health();
    if (state !== 'up') {
      // While it reconnects its items stay (a call waits for the session, or answers that the
      // upstream is unavailable); once its circuit opens they disappear (clients get list_changed)
      // until it is back.
      if (state === 'circuit-open' || state === 'stopped') {
        const entry = this.entries.get(upstream);
        if (entry) entry.hidden = true;
        for (const kind of KINDS_OF[list]) this.apply(upstream, kind, []);
        if (list === 'resources') this.skills.remove(upstream);
      }
      return;
    }
    const { client } = await upstream.catalog();
    // Listening first, and acknowledged before listing, so no change after the lists goes unseen.
    await this.listen(upstream, client);
    const caps = client.serverCapabilities;
    if (list === 'tools') {
      const tools = caps.tools ? (await client.listTools()).tools : [];
      const { include, exclude } = upstream.config;
      const included = include.map(glob);
      const excluded = exclude.map(glob);
      const shown = (tool: Tool) =>
        (included.length === 0 || included.some((g) => g.test(tool.name))) &&
        !excluded.some((g) => g.test(tool.name));
      this.apply(upstream, 'tool', tools.filter(shown));
    } else if (list === 'prompts') {
      this.apply(upstream, 'prompt', caps.prompts ? (await client.listPrompts()).prompts : []);
    } else {
      // Skills (SEP-2640) are resources too: read with them, and first, so the files of a skill its
      // pin holds back are not shown.
      const [resources, templates, skills] = await Promise.all([
        caps.resources ? client.listResources().then((r) => r.resources) : [],
        caps.resources ? client.listResourceTemplates().then((r) => r.resourceTemplates) : [],
        this.skills.read(upstream, client),
      ]);
      if (skills) this.skills.apply(upstream, skills);
      this.apply(upstream, 'resource', resources);
      this.apply(upstream, 'template', templates);
    }
  }

  /** Follows the catalog's list changes (legacy notifications or a 2026-07-28 listen stream), once per session. */
  private listen(upstream: Upstream, client: Client): Promise<void> {
    let listening = this.listening.get(client);
    if (listening) return listening;
    const caps = client.serverCapabilities;
    const filter = {
      ...(caps.tools?.listChanged ? { toolsListChanged: true } : {}),
      ...(caps.prompts?.listChanged ? { promptsListChanged: true } : {}),
      ...(caps.resources?.listChanged ? { resourcesListChanged: true } : {}),
    };
    if (Object.keys(filter).length === 0) {
      listening = Promise.resolve();
    } else {
      const subscription = client.listen(filter, {
        onToolsListChanged: () => void this.refresh(upstream, ['tools']),
        onPromptsListChanged: () => void this.refresh(upstream, ['prompts']),
        onResourcesListChanged: () => void this.refresh(upstream, ['resources']),
      });
      listening = subscription.acknowledged.then(
        () => undefined,
        (error: unknown) => {
          this.logger.warn(`gateway: cannot follow the lists of "${upstream.name}": ${errorMessage(error)}`);
        },
      );
    }
    this.listening.set(client, listening);
    return listening;
  }

  /** Registers, updates and removes downstream items so they match `items` of one upstream. */
  private apply(upstream: Upstream, kind: Kind, items: readonly Item[]): void {
    const entry = this.entries.get(upstream);
    // An upstream removed while its lists were being read: nothing of it is shown any more.
    if (entry === undefined) return;
    const mirror = entry.mirrors[kind];
    const seen = new Set<string>();
    // An upstream with MCP Apps views: its views call its tools by their own names.
    const views =
      kind === 'tool' &&
      (upstream.capabilities?.extensions?.[APPS_EXTENSION] !== undefined ||
        items.some((item) => toolUi(item as Tool)?.resourceUri !== undefined));
    for (const item of items) {
      const original =
        kind === 'resource'
          ? (item as Resource).uri
          : kind === 'template'
            ? (item as ResourceTemplate).uriTemplate
            : (item as Tool | Prompt).name;
      const key =
        kind === 'resource' || kind === 'template'
          ? this.routes.shownUri(upstream, original)
          : this.routes.nameOf(upstream, kind, original);
      if (key === undefined || (kind === 'resource' && this.skills.held(key))) continue;
      if (kind === 'tool' && this.pins && !this.pins.admit(key, item as Tool)) {
        this.logger.warn(
          `gateway: tool "${key}" is hidden: its definition changed since it was pinned in ${this.pins.file}. ` +
            'Review it, then run: switchboard gateway approve --lock <lock file> <config>',
        );
        continue;
      }
      seen.add(key);
      if (kind === 'tool') this.routes.setAppTool(original, key, views && isToolForApp(item as Tool));
      const definition = JSON.stringify(item);
      const existing = mirror.get(key);
      if (existing?.definition === definition) continue;
      try {
        const shown = this.shown(upstream, kind, key, item);
        if (existing) existing.handle.update(shown);
        const handle = existing?.handle ?? this.register(upstream, kind, original, shown);
        mirror.set(key, { handle, definition });
        if (kind === 'tool' || kind === 'prompt') this.routes.set(kind, key, { upstream, name: original });
      } catch (error) {
        // Only what the server cannot serve at all (a template it cannot parse) is left out, and said.
        seen.delete(key);
        this.logger.warn(
          `gateway: ${kind} ${JSON.stringify(original)} of "${upstream.name}" is not shown: ${errorMessage(error)}`,
        );
      }
    }
    for (const [key, { handle }] of mirror) {
      if (seen.has(key)) continue;
      handle.remove();
      mirror.delete(key);
      if (kind === 'tool') {
        const original = this.routes.route('tool', key)?.name;
        if (original !== undefined) this.routes.setAppTool(original, key, false);
      }
      if (kind === 'tool' || kind === 'prompt') this.routes.delete(kind, key);
    }
  }

  /**
   * The descriptor as shown downstream: the upstream's, under its downstream name or URI; a tool's
   * MCP Apps view (`_meta.ui.resourceUri`, and the older flat `_meta["ui/resourceUri"]`) under the
   * URI the gateway shows it at.
   */
  private shown(upstream: Upstream, kind: Kind, key: string, item: Item): Item {
    switch (kind) {
      case 'tool':
        return { ...item, name: key, ...this.viewMeta(upstream, item as Tool) } as Item;
      case 'prompt':
        return { ...item, name: key } as Item;
      case 'resource':
        return { ...item, uri: key } as Resource;
      case 'template':
        return { ...item, uriTemplate: key } as ResourceTemplate;
    }
  }

  /** `{ _meta }` with the view URIs mapped, when the tool links to a view; else nothing. */
  private viewMeta(upstream: Upstream, tool: Tool): { _meta?: Tool['_meta'] } {
    const mapped = this.routes.viewMeta(upstream, tool._meta);
    return mapped === undefined ? {} : { _meta: mapped };
  }

  private register(upstream: Upstream, kind: Kind, original: string, shown: Item) {
    const { forwarding, server } = this;
    switch (kind) {
      case 'tool': {
        const route = { upstream, name: original };
        return server.registerPassThroughTool(shown as Tool, (params, ctx) =>
          forwarding.callTool(route, params, ctx),
        );
      }
      case 'prompt': {
        const route = { upstream, name: original };
        return server.registerPassThroughPrompt(
          shown as Prompt,
          (params, ctx) => forwarding.getPrompt(route, params, ctx),
          {
            complete: (params, ctx) =>
              forwarding.complete(upstream, { type: 'ref/prompt', name: original }, params, ctx),
          },
        );
      }
      case 'resource':
        return server.registerPassThroughResource(shown as Resource, (uri, ctx) =>
          forwarding.readResource(uri, ctx),
        );
      case 'template':
        return server.registerPassThroughTemplate(
          shown as ResourceTemplate,
          (uri, ctx) => forwarding.readResource(uri, ctx),
          {
            complete: (params, ctx) =>
              forwarding.complete(upstream, { type: 'ref/resource', uri: original }, params, ctx),
          },
        );
    }
  }

  /**
   * What the upstreams offer, together: a kind is shown when one of them offers it. An upstream not
   * seen yet (lazy, or down since start) might offer anything, so while one is unknown every kind is
   * shown. The lists change whenever an upstream's do, or an upstream comes or goes: listChanged.
   */
  capabilities(capabilities: ServerCapabilities): void {
    const known = [...this.routes.upstreams.values()].map((upstream) => upstream.capabilities);
    const all = known.length === 0 || known.some((caps) => caps === undefined);
    const some = (has: (caps: ServerCapabilities) => unknown) =>
      all || known.some((caps) => caps !== undefined && Boolean(has(caps)));
    const set = <K extends keyof ServerCapabilities>(
      key: K,
      shown: boolean,
      value: ServerCapabilities[K],
    ) => {
      if (shown) capabilities[key] = value;
      else delete capabilities[key];
    };
    set(
      'tools',
      some((c) => c.tools),
      { listChanged: true },
    );
    set(
      'prompts',
      some((c) => c.prompts),
      { listChanged: true },
    );
    set(
      'resources',
      some((c) => c.resources),
      some((c) => c.resources?.subscribe) ? { subscribe: true, listChanged: true } : { listChanged: true },
    );
    set(
      'completions',
      some((c) => c.completions),
      {},
    );
    set(
      'logging',
      some((c) => c.logging),
      {},
    );
    // The skills extension (SEP-2640): declared when an upstream declares it (its id is declared
    // for legacy initialize too, see gateway.ts), with directoryRead when one has it.
    const skills = this.skills.capability(known);
    if (skills) capabilities.extensions = { ...capabilities.extensions, [SKILLS_EXTENSION]: skills };
    else if (capabilities.extensions?.[SKILLS_EXTENSION] !== undefined) {
      const { [SKILLS_EXTENSION]: _, ...others } = capabilities.extensions;
      if (Object.keys(others).length > 0) capabilities.extensions = others;
      else delete capabilities.extensions;
    }
    // The tasks extension (2026-07-28): a tool call that runs as a task upstream is passed on as one.
    if (known.some((caps) => caps?.extensions?.[TASKS_EXTENSION] !== undefined)) {
      capabilities.extensions = { ...capabilities.extensions, [TASKS_EXTENSION]: {} };
    }
  }
}
