// The in-memory view of cluster state that every request reads (authentication, authorization, lists).
// It is filled from the backend's watch and never queried per request against the database.
import type { Backend, WatchEvent } from './types.js';

export interface CachedItem<T = unknown> {
  key: string;
  value: T;
  revision: number;
  expiresAt?: number;
}

/** `previous`: the item as it was before this change (undefined for a new key), so a listener keeps no copy of its own. */
export type ChangeListener = (key: string, item: CachedItem | undefined, previous: CachedItem | undefined) => void;

export interface StateCache {
  get<T>(key: string): CachedItem<T> | undefined;
  /** Items under prefix in key order; the array is shared and must not be mutated. */
  list<T>(prefix: string): readonly CachedItem<T>[];
  onChange(listener: ChangeListener): () => void;
  /**
   * Values under `prefix` are decoded by `decode` instead of JSON.parse (items already held are
   * decoded again): a kind kept by the hundred thousand can be held in a compact form.
   */
  decodeUnder(prefix: string, decode: (json: string) => unknown): void;
  /** Resolves once the cache has seen every write up to revision (read-your-writes). */
  waitFor(revision: number): Promise<void>;
  readonly revision: number;
  close(): void;
}

export async function createStateCache(backend: Backend, prefixes: string[] = ['']): Promise<StateCache> {
  const items = new Map<string, CachedItem>();
  // Sorted listings per prefix, rebuilt lazily after a change below that prefix.
  const listings = new Map<string, { all: CachedItem[]; expiring: boolean }>();
  const listeners = new Set<ChangeListener>();
  const waiting: Array<{ revision: number; resolve: () => void }> = [];
  let revision = 0;
  const decoders: Array<[string, (json: string) => unknown]> = [];
  /** The item as held: decoded by the decoder of its prefix, JSON.parse otherwise. */
  const hold = (item: { key: string; value: string; revision: number; expiresAt?: number }): CachedItem => {
    const decoder = decoders.find(([prefix]) => item.key.startsWith(prefix));
    const value = decoder ? decoder[1](item.value) : JSON.parse(item.value);
    // One literal per shape: a field added after the literal goes to a property array (40 bytes).
    return item.expiresAt === undefined
      ? { key: item.key, value, revision: item.revision }
      : { key: item.key, value, revision: item.revision, expiresAt: item.expiresAt };
  };

  const invalidate = (key: string): void => {
    for (const prefix of listings.keys()) if (key.startsWith(prefix)) listings.delete(prefix);
  };

  const apply = (events: WatchEvent[], atRevision: number): void => {
    for (const e of events) {
      if (e.type === 'put') {
        const cached = hold(e.item);
        const previous = items.get(e.item.key);
        items.set(e.item.key, cached);
        invalidate(e.item.key);
        revision = Math.max(revision, e.item.revision);
        for (const l of listeners) l(e.item.key, cached, previous);
      } else {
        const previous = items.get(e.key);
        items.delete(e.key);
        invalidate(e.key);
        revision = Math.max(revision, e.revision);
        for (const l of listeners) l(e.key, undefined, previous);
      }
    }
    revision = Math.max(revision, atRevision);
    for (let i = waiting.length - 1; i >= 0; i--) {
      const w = waiting[i];
      if (w && w.revision <= revision) {
        waiting.splice(i, 1);
        w.resolve();
      }
    }
  };

  const watcher = await backend.watch(prefixes, apply);
  for (const item of watcher.initial) items.set(item.key, hold(item));
  revision = watcher.revision;

  return {
    get<T>(key: string) {
      const item = items.get(key) as CachedItem<T> | undefined;
      if (item?.expiresAt !== undefined && item.expiresAt <= Date.now()) return undefined;
      return item;
    },
    list<T>(prefix: string) {
      let listing = listings.get(prefix);
      if (!listing) {
        const fresh: CachedItem[] = [];
        for (const item of items.values()) if (item.key.startsWith(prefix)) fresh.push(item);
        fresh.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
        listing = { all: fresh, expiring: fresh.some((i) => i.expiresAt !== undefined) };
        listings.set(prefix, listing);
      }
      if (!listing.expiring) return listing.all as CachedItem<T>[];
      // Expired items are hidden at once, like get() does, not only once the sweeper removed them.
      const now = Date.now();
      return listing.all.filter((i) => i.expiresAt === undefined || i.expiresAt > now) as CachedItem<T>[];
    },
    decodeUnder(prefix, decode) {
      decoders.push([prefix, decode]);
      // Once, when the decoder is set (at startup): the items already held, in their new form.
      for (const item of items.values())
        if (item.key.startsWith(prefix)) item.value = decode(JSON.stringify(item.value));
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    waitFor(target) {
      if (target <= revision) return Promise.resolve();
      return new Promise((resolve) => waiting.push({ revision: target, resolve }));
    },
    get revision() {
      return revision;
    },
    close() {
      watcher.stop();
      listeners.clear();
    },
  };
}
