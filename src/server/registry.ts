/**
 * A keyed collection of registered things (tools, prompts, resources, templates) that keeps a sorted
 * snapshot for listing, a version that changes on every mutation, and a per-version page cache so a
 * list is computed once per change rather than once per request.
 */
import { SwitchboardError } from '../protocol/errors.js';
import { compareKeys, type Page, paginate } from './pagination.js';

interface Slot<T> {
  value: T;
  enabled: boolean;
}

export class Registry<T> {
  private readonly slots = new Map<string, Slot<T>>();
  private snapshot: { values: T[]; keys: string[] } | undefined;
  private pages = new Map<string, Page<T>>();
  private currentVersion = 0;
  /** Called with every value stored (added or replacing another). */
  onAdd: ((value: T) => void) | undefined;

  constructor(
    /** What the entries are called in error messages: "tool", "prompt"... */
    readonly kind: string,
    /** Called on every change with the entry before and after it (undefined: added, or removed). */
    private readonly changed: (before: T | undefined, after: T | undefined) => void,
  ) {}

  get version(): number {
    return this.currentVersion;
  }

  get size(): number {
    return this.slots.size;
  }

  has(key: string): boolean {
    return this.slots.has(key);
  }

  /** The enabled entry under `key`. */
  get(key: string): T | undefined {
    const slot = this.slots.get(key);
    return slot?.enabled ? slot.value : undefined;
  }

  add(key: string, value: T): void {
    if (this.slots.has(key)) {
      throw new SwitchboardError(
        'CONFIG',
        `A ${this.kind} named ${JSON.stringify(key)} is already registered; names must be unique (remove the old one first or use its handle's update()).`,
      );
    }
    this.slots.set(key, { value, enabled: true });
    this.onAdd?.(value);
    this.bump(undefined, value);
  }

  /** Replaces the entry under `key`, possibly moving it to `newKey`. */
  replace(key: string, newKey: string, value: T): void {
    const slot = this.require(key);
    if (newKey !== key) {
      if (this.slots.has(newKey)) {
        throw new SwitchboardError(
          'CONFIG',
          `Cannot rename ${this.kind} ${JSON.stringify(key)} to ${JSON.stringify(newKey)}: that name is taken.`,
        );
      }
      this.slots.delete(key);
      this.slots.set(newKey, slot);
    }
    const before = slot.enabled ? slot.value : undefined;
    slot.value = value;
    this.onAdd?.(value);
    this.bump(before, slot.enabled ? value : undefined);
  }

  setEnabled(key: string, enabled: boolean): void {
    const slot = this.require(key);
    if (slot.enabled === enabled) return;
    slot.enabled = enabled;
    this.bump(enabled ? undefined : slot.value, enabled ? slot.value : undefined);
  }

  isEnabled(key: string): boolean {
    return this.slots.get(key)?.enabled ?? false;
  }

  remove(key: string): void {
    const slot = this.slots.get(key);
    if (slot && this.slots.delete(key)) this.bump(slot.enabled ? slot.value : undefined, undefined);
  }

  /** Enabled entries in key order. */
  values(): readonly T[] {
    return this.sorted().values;
  }

  /** One page of the enabled entries; the same object for the same cursor until the next change. */
  page(cursor: string | undefined, pageSize: number): Page<T> {
    const cacheKey = `${pageSize}:${cursor ?? ''}`;
    let page = this.pages.get(cacheKey);
    if (!page) {
      const { values, keys } = this.sorted();
      page = paginate(values, keys, cursor, pageSize);
      // Bounded, so a client inventing cursors cannot grow the cache without limit.
      if (this.pages.size < 1024) this.pages.set(cacheKey, page);
    }
    return page;
  }

  /**
   * One page of the enabled entries `keep` accepts, paged over those alone: a caller who sees only
   * some entries gets full pages and cursors that name only entries it sees (never a hidden one's key).
   */
  pageOf(cursor: string | undefined, pageSize: number, keep: (value: T) => boolean): Page<T> {
    const { values, keys } = this.sorted();
    const kept: T[] = [];
    const keptKeys: string[] = [];
    for (let i = 0; i < values.length; i++) {
      if (!keep(values[i]!)) continue;
      kept.push(values[i]!);
      keptKeys.push(keys[i]!);
    }
    return paginate(kept, keptKeys, cursor, pageSize);
  }

  private sorted(): { values: T[]; keys: string[] } {
    if (!this.snapshot) {
      const keys = [...this.slots.keys()].filter((k) => this.slots.get(k)!.enabled).sort(compareKeys);
      this.snapshot = { keys, values: keys.map((k) => this.slots.get(k)!.value) };
    }
    return this.snapshot;
  }

  private require(key: string): Slot<T> {
    const slot = this.slots.get(key);
    if (!slot)
      throw new SwitchboardError(
        'CONFIG',
        `No ${this.kind} named ${JSON.stringify(key)} is registered (was it removed?).`,
      );
    return slot;
  }

  private bump(before: T | undefined, after: T | undefined): void {
    this.currentVersion++;
    this.snapshot = undefined;
    this.pages = new Map();
    this.changed(before, after);
  }
}
