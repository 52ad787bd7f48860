/**
 * The handle `register*` returns: enable, disable, remove, and update an entry by rebuilding it from
 * its merged definition. One implementation for tools, prompts, resources and templates; each kind
 * only says how to rebuild its entry and under which property its key is exposed.
 */
import type { Registry } from './registry.js';

/** A registered item's controls. Every change sends the matching `list_changed`. */
export interface Handle {
  readonly enabled: boolean;
  enable(): void;
  disable(): void;
  remove(): void;
}

interface Registered<D> {
  readonly key: string;
  readonly definition: D;
}

export function createHandle<D, E, C, H extends Handle>(
  registry: Registry<E>,
  /** The handle property that reads the current key: `name`, `uri` or `uriTemplate`. */
  keyProperty: string,
  registered: Registered<D>,
  /** Builds the entry for `current` changed by `changes`; throws if they are invalid. */
  rebuild: (current: D, currentKey: string, changes: C) => Registered<D> & { readonly entry: E },
): H & { update(changes: C): void } {
  let state = registered;
  const handle = {
    get enabled() {
      return registry.isEnabled(state.key);
    },
    enable: () => registry.setEnabled(state.key, true),
    disable: () => registry.setEnabled(state.key, false),
    remove: () => registry.remove(state.key),
    update: (changes: C) => {
      const next = rebuild(state.definition, state.key, changes);
      registry.replace(state.key, next.key, next.entry);
      // Committed only once the registry accepted it: a failed update leaves no trace.
      state = { key: next.key, definition: next.definition };
    },
  };
  Object.defineProperty(handle, keyProperty, { get: () => state.key, enumerable: true });
  return handle as unknown as H & { update(changes: C): void };
}
