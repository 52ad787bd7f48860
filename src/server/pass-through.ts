/**
 * Pass-through items: a tool, prompt, resource or template that another server offers, registered
 * as that server described it and answered by a forward to it (a proxy's or a gateway's items).
 *
 * The descriptor is listed exactly as given: no schema is compiled, no argument checked, no result
 * normalized, since the server behind checks its own. Everything else is the server's, as for an
 * item of its own: admission, `filterList` and scopes (a hidden item's request is answered like an
 * unknown one's), every `use()` middleware, and the encoder that fits the result to the caller's
 * revision.
 */
import { SwitchboardError } from '../protocol/errors.js';
import type { Prompt, Resource, ResourceTemplate, Tool } from '../protocol/types.js';
import { frozenCopy } from '../util/freeze.js';
import type { CompleteForward } from './completion.js';
import type { RequestContext } from './context.js';
import type { Handle } from './handles.js';
import type { PromptEntry, PromptForward } from './prompts.js';
import type { Registry } from './registry.js';
import type { ReadForward, ResourceEntry, TemplateEntry } from './resources.js';
import { declareScopes, type ScopedConfig } from './scopes.js';
import type { ToolEntry, ToolForward } from './tools.js';
import { UriTemplate } from './uri-template.js';

export interface PassThroughOptions extends ScopedConfig {
  /** Prompts and templates: completions of their arguments, forwarded too. Without it: no values. */
  complete?: CompleteForward;
}

/** A pass-through item's controls: `update` replaces the whole descriptor (the key may change). */
export interface PassThroughHandle<D> extends Handle {
  readonly descriptor: D;
  update(descriptor: D): void;
}

/** How one kind of pass-through item is keyed and built. */
interface PassThroughKind<D, F, E> {
  readonly registry: Registry<E>;
  readonly what: string;
  key(descriptor: D): unknown;
  build(descriptor: D, forward: F, options: PassThroughOptions): E;
}

/** The descriptor as it is listed: a frozen copy of what was given, with the item's scopes recorded. */
function listed<D extends object>(descriptor: D, options: PassThroughOptions, what: string): D {
  const copy = frozenCopy(descriptor);
  declareScopes(copy, options, what);
  return copy;
}

function register<D extends object, F, E>(
  kind: PassThroughKind<D, F, E>,
  descriptor: D,
  forward: F,
  options: PassThroughOptions = {},
): PassThroughHandle<D> {
  const keyOf = (d: D): string => {
    const key = kind.key(d);
    if (typeof key !== 'string' || key.length === 0) {
      throw new SwitchboardError(
        'CONFIG',
        `A pass-through ${kind.what} needs a non-empty string key (name, uri or uriTemplate), got ${JSON.stringify(key)}.`,
      );
    }
    return key;
  };
  let key = keyOf(descriptor);
  let entry = kind.build(descriptor, forward, options);
  kind.registry.add(key, entry);
  const { registry } = kind;
  return {
    get descriptor() {
      return (entry as { descriptor: D }).descriptor;
    },
    get enabled() {
      return registry.isEnabled(key);
    },
    enable: () => registry.setEnabled(key, true),
    disable: () => registry.setEnabled(key, false),
    remove: () => registry.remove(key),
    update: (next: D) => {
      const nextKey = keyOf(next);
      const built = kind.build(next, forward, options);
      registry.replace(key, nextKey, built);
      key = nextKey;
      entry = built;
    },
  };
}

/** The four kinds, over the server's registries. */
export function passThroughKinds(registries: {
  tools: Registry<ToolEntry>;
  prompts: Registry<PromptEntry>;
  resources: Registry<ResourceEntry>;
  templates: Registry<TemplateEntry>;
}) {
  const tool: PassThroughKind<Tool, ToolForward, ToolEntry> = {
    registry: registries.tools,
    what: 'tool',
    key: (d) => d.name,
    build: (d, forward, options) => {
      const descriptor = listed(d, options, `tool ${JSON.stringify(d.name)}`);
      return {
        descriptor,
        input: undefined,
        output: undefined,
        // What a plugin running the tool by its handler gets: the same forward.
        handler: (args: Record<string, unknown>, ctx: RequestContext) =>
          forward({ name: descriptor.name, arguments: args }, ctx),
        deferTask: false,
        forward,
      };
    },
  };
  const prompt: PassThroughKind<Prompt, PromptForward, PromptEntry> = {
    registry: registries.prompts,
    what: 'prompt',
    key: (d) => d.name,
    build: (d, forward, options) => {
      const descriptor = listed(d, options, `prompt ${JSON.stringify(d.name)}`);
      return {
        descriptor,
        schema: undefined,
        required: [],
        complete: {},
        handler: (args: Record<string, string>, ctx: RequestContext) =>
          forward({ name: descriptor.name, arguments: args }, ctx),
        forward,
        forwardComplete: options.complete,
      };
    },
  };
  const resource: PassThroughKind<Resource, ReadForward, ResourceEntry> = {
    registry: registries.resources,
    what: 'resource',
    key: (d) => d.uri,
    build: (d, forward, options) => ({
      descriptor: listed(d, options, `resource ${JSON.stringify(d.uri)}`),
      cache: undefined,
      read: forward,
    }),
  };
  const template: PassThroughKind<ResourceTemplate, ReadForward, TemplateEntry> = {
    registry: registries.templates,
    what: 'resource template',
    key: (d) => d.uriTemplate,
    build: (d, forward, options) => ({
      descriptor: listed(d, options, `resource template ${JSON.stringify(d.uriTemplate)}`),
      template: new UriTemplate(d.uriTemplate),
      cache: undefined,
      list: undefined,
      complete: undefined,
      read: (uri, _variables, ctx) => forward(uri, ctx),
      forwardComplete: options.complete,
      passThrough: true,
    }),
  };
  return {
    tool: (d: Tool, f: ToolForward, o?: PassThroughOptions) => register(tool, d, f, o),
    prompt: (d: Prompt, f: PromptForward, o?: PassThroughOptions) => register(prompt, d, f, o),
    resource: (d: Resource, f: ReadForward, o?: PassThroughOptions) => register(resource, d, f, o),
    template: (d: ResourceTemplate, f: ReadForward, o?: PassThroughOptions) => register(template, d, f, o),
  };
}
