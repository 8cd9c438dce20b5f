// Typed JSON records over the backend, with the cache as the read side. Every write returns only after
// the cache has seen it, so a caller always reads its own writes.
import type { CachedItem, StateCache } from './cache.js';
import type { Backend, Condition, Operation } from './types.js';

export interface StateStore {
  get<T>(key: string): CachedItem<T> | undefined;
  list<T>(prefix: string): readonly CachedItem<T>[];
  /** Writes key (and its unique index keys) only if none exists yet. */
  insert(key: string, value: unknown, opts?: { indexKeys?: string[]; expiresAt?: number } & CommitHook): Promise<void>;
  /** Replaces key if it is still at revision; index keys are moved in the same write. */
  replace(
    key: string,
    revision: number,
    value: unknown,
    opts?: { addIndexKeys?: string[]; removeIndexKeys?: string[]; expiresAt?: number },
  ): Promise<void>;
  remove(key: string, opts?: { revision?: number; indexKeys?: string[] }): Promise<void>;
  /** `onCommitted`: see Backend.atomicWrite; called once, before the write resolves, if it succeeds. */
  write(conditions: Condition[], operations: Operation[], opts?: CommitHook): Promise<void>;
  readonly cache: StateCache;
}

export interface CommitHook {
  onCommitted?: () => void;
}

export function createStateStore(backend: Backend, cache: StateCache): StateStore {
  async function write(conditions: Condition[], operations: Operation[], opts: CommitHook = {}): Promise<void> {
    let told = false;
    const committed = () => {
      if (told) return;
      told = true;
      opts.onCommitted?.();
    };
    const revision = await backend.atomicWrite(
      conditions,
      operations,
      opts.onCommitted ? { onCommitted: committed } : {},
    );
    committed();
    await cache.waitFor(revision);
  }
  const put = (key: string, value: unknown, expiresAt?: number): Operation =>
    expiresAt === undefined
      ? { type: 'put', key, value: JSON.stringify(value) }
      : { type: 'put', key, value: JSON.stringify(value), expiresAt };

  return {
    cache,
    get: (key) => cache.get(key),
    list: (prefix) => cache.list(prefix),
    insert(key, value, opts = {}) {
      const indexKeys = opts.indexKeys ?? [];
      return write(
        [key, ...indexKeys].map((k) => ({ key: k, is: 'absent' as const })),
        [put(key, value, opts.expiresAt), ...indexKeys.map((k) => put(k, { ref: key }, opts.expiresAt))],
        opts,
      );
    },
    replace(key, revision, value, opts = {}) {
      const add = opts.addIndexKeys ?? [];
      return write(
        [{ key, revision }, ...add.map((k) => ({ key: k, is: 'absent' as const }))],
        [
          put(key, value, opts.expiresAt),
          ...add.map((k) => put(k, { ref: key })),
          ...(opts.removeIndexKeys ?? []).map((k): Operation => ({ type: 'delete', key: k })),
        ],
      );
    },
    remove(key, opts = {}) {
      return write(
        [opts.revision === undefined ? { key, is: 'present' } : { key, revision: opts.revision }],
        [{ type: 'delete', key }, ...(opts.indexKeys ?? []).map((k): Operation => ({ type: 'delete', key: k }))],
      );
    },
    write,
  };
}

/**
 * Waits for a key another instance just wrote to reach this instance's cache (through the watch),
 * for create-if-absent races at start: the loser reads the winner's record instead of failing.
 */
export async function awaitCached<T>(
  state: Pick<StateStore, 'get'>,
  key: string,
  timeoutMs = 5000,
): Promise<CachedItem<T> | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const item = state.get<T>(key);
    if (item || Date.now() > deadline) return item;
    await new Promise((r) => setTimeout(r, 20));
  }
}
