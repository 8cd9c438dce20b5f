// Typed JSON records over the backend, with the cache as the read side. Every write returns only after
// the cache has seen it, so a caller always reads its own writes.
import type { CachedItem, StateCache } from './cache.js';
import type { Backend, Condition, Operation, WriteLimits } from './types.js';

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
  /**
   * A change that may be too large for one write on this backend (etcd: 128 operations). Within the
   * bound it is one atomic write, as `write`. Beyond it, `decisive` is written atomically under the
   * conditions first, then `cleanup` in parts. The caller keeps this promise: the decisive part alone
   * ends what the change ends (a principal's status, a credential's revocation, a consent withdrawn),
   * and cleanup only writes it down on each token, key or record, so a failure partway leaves nothing
   * usable that the decisive write did not already refuse. Resolves with how many writes it took.
   */
  writeInParts(conditions: Condition[], decisive: Operation[], cleanup: Operation[]): Promise<number>;
  /** The most operations one write may carry here (Infinity: any number). */
  readonly maxWriteOperations: number;
  /** Whether one write of these may be made here. */
  fits(conditions: Condition[], operations: Operation[]): boolean;
  readonly cache: StateCache;
}

export interface CommitHook {
  onCommitted?: () => void;
}

export function createStateStore(
  backend: Backend,
  cache: StateCache,
  /** Tests set a small bound to exercise writes in parts on any backend. */
  limits: WriteLimits | undefined = backend.writeLimits,
): StateStore {
  const fits = (conditions: Condition[], operations: Operation[]): boolean =>
    !limits || (operations.length <= limits.operations && conditions.length <= limits.conditions);

  // Refused here with the reason, not by etcd as an unreachable store (a 503 that no retry cures).
  function checkLimits(conditions: Condition[], operations: Operation[]): void {
    if (!fits(conditions, operations))
      throw new Error(
        `one write of ${operations.length} operations and ${conditions.length} conditions exceeds the state store's bound (${limits?.operations} and ${limits?.conditions}); write it in parts`,
      );
  }

  async function write(conditions: Condition[], operations: Operation[], opts: CommitHook = {}): Promise<void> {
    checkLimits(conditions, operations);
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
    maxWriteOperations: limits?.operations ?? Infinity,
    fits,
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
    async writeInParts(conditions, decisive, cleanup) {
      const max = limits?.operations ?? Infinity;
      if (decisive.length + cleanup.length <= max) {
        await write(conditions, [...decisive, ...cleanup]);
        return 1;
      }
      // The first write is filled up with cleanup: most changes then take two writes, not more.
      const room = Math.max(0, max - decisive.length);
      await write(conditions, [...decisive, ...cleanup.slice(0, room)]);
      let writes = 1;
      for (let i = room; i < cleanup.length; i += max, writes++) await write([], cleanup.slice(i, i + max));
      return writes;
    },
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

/**
 * Stores `fresh` at `key` unless another instance did first (a create-if-absent race at start): the
 * record that stands, ours or the winner's once it reaches the cache; undefined if it never does.
 */
export async function insertOrTheirs<T>(
  state: Pick<StateStore, 'get' | 'insert'>,
  key: string,
  fresh: T,
): Promise<T | undefined> {
  const won = await state.insert(key, fresh).then(
    () => true,
    () => false,
  );
  return won ? fresh : (await awaitCached<T>(state, key))?.value;
}
