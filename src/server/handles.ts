/**
 * Registering an item (tool, prompt, resource, template) and the handle `register*` returns: enable,
 * disable, remove, and update by rebuilding the entry from its merged definition. One shape for all
 * four kinds: a definition is a name, a key (the name, a URI or a URI template), a config and a
 * function (handler or reader); each kind says only which properties name the key and the function,
 * how to check a key, and how to build its entry.
 */
import type { Registry } from './registry.js';

/** A registered item's controls. Every change sends the matching `list_changed`. */
export interface Handle {
  readonly enabled: boolean;
  enable(): void;
  disable(): void;
  remove(): void;
}

/** What one registration holds: everything its entry is rebuilt from. */
export interface Definition<Config, Fn> {
  readonly name: string;
  readonly key: string;
  readonly config: Config;
  readonly fn: Fn;
}

/** How one kind of item is registered. */
export interface ItemKind<Config, Fn, Entry> {
  readonly registry: Registry<Entry>;
  /** The handle (and `update` changes) property holding the key: `name`, `uri` or `uriTemplate`. */
  readonly keyProperty: 'name' | 'uri' | 'uriTemplate';
  /** The `update` changes property holding the function: `handler` or `read`. */
  readonly fnProperty: 'handler' | 'read';
  /** Checks a key (throws CONFIG); returns it. */
  checkKey(key: string): string;
  /** Builds the entry of a definition; throws if it is invalid. */
  build(definition: Definition<Config, Fn>): Entry;
}

/**
 * Adds an item to its kind's registry and returns its handle. `update(changes)` takes any config
 * field, plus the key property (a rename), the function property and, where the key is not the
 * name, `name`.
 */
export function registerItem<Config extends object, Fn, Entry, H extends Handle>(
  kind: ItemKind<Config, Fn, Entry>,
  definition: Definition<Config, Fn>,
): H & { update(changes: object): void } {
  kind.checkKey(definition.key);
  kind.registry.add(definition.key, kind.build(definition));
  let state = definition;
  const { registry, keyProperty, fnProperty } = kind;
  const handle = {
    get enabled() {
      return registry.isEnabled(state.key);
    },
    enable: () => registry.setEnabled(state.key, true),
    disable: () => registry.setEnabled(state.key, false),
    remove: () => registry.remove(state.key),
    update: (changes: object) => {
      const {
        [keyProperty]: newKey,
        [fnProperty]: newFn,
        name: newName,
        ...rest
      } = changes as Record<string, unknown>;
      const key = kind.checkKey((newKey as string | undefined) ?? state.key);
      const next: Definition<Config, Fn> = {
        // Tools and prompts are keyed by their name: a rename changes both.
        name: keyProperty === 'name' ? key : ((newName as string | undefined) ?? state.name),
        key,
        config: { ...state.config, ...rest },
        fn: (newFn as Fn | undefined) ?? state.fn,
      };
      registry.replace(state.key, key, kind.build(next));
      // Committed only once the registry accepted it: a failed update leaves no trace.
      state = next;
    },
  };
  Object.defineProperty(handle, keyProperty, { get: () => state.key, enumerable: true });
  return handle as unknown as H & { update(changes: object): void };
}
