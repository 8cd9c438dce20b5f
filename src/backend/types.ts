// The cluster-state backend: a small key-value interface in the style of Teleport's lib/backend.
// Implementations: SQLite (embedded); PostgreSQL and etcd follow the same contract
// (test/backend-conformance.ts runs against each).

export interface Item {
  key: string;
  value: string;
  revision: number;
  /** Epoch ms after which the item no longer exists. */
  expiresAt?: number;
}

export interface WriteOptions {
  expiresAt?: number;
}

export type Condition =
  | { key: string; is: 'absent' }
  | { key: string; is: 'present' }
  | { key: string; revision: number };

export type Operation =
  | { type: 'put'; key: string; value: string; expiresAt?: number }
  | { type: 'delete'; key: string };

export type WatchEvent = { type: 'put'; item: Item } | { type: 'delete'; key: string; revision: number };

export interface Watcher {
  /** Items under the watched prefixes at the moment the watch started. */
  initial: Item[];
  /** The backend revision of that snapshot; events that follow are all newer. */
  revision: number;
  stop(): void;
}

/** too_large: a value over the backend's request limit (etcd's 1.5 MiB), refused rather than truncated. */
export type BackendFailure = 'already_exists' | 'not_found' | 'compare_failed' | 'too_large';

export class BackendError extends Error {
  constructor(
    readonly reason: BackendFailure,
    readonly key: string,
  ) {
    super(`${reason}: ${key}`);
    this.name = 'BackendError';
  }
}

/**
 * The most operations one atomic write may carry on a backend that bounds it: etcd refuses a
 * transaction of more than 128 operations or 128 compares (`--max-txn-ops`, default 128), and its
 * transactions spend one compare of their own. A change larger than that is written in parts
 * (StateStore.writeInParts); the embedded store and PostgreSQL take any size in one write.
 */
export interface WriteLimits {
  operations: number;
  conditions: number;
}

export const ETCD_WRITE_LIMITS: WriteLimits = { operations: 128, conditions: 127 };

export interface Backend {
  /** Absent: one write may carry any number of operations. */
  readonly writeLimits?: WriteLimits;
  get(key: string): Promise<Item | undefined>;
  /** Items whose key starts with prefix, in key order, from startKey (inclusive). */
  getRange(prefix: string, opts?: { limit?: number; startKey?: string }): Promise<Item[]>;
  /** Fails with already_exists if the key is present. */
  create(key: string, value: string, opts?: WriteOptions): Promise<Item>;
  put(key: string, value: string, opts?: WriteOptions): Promise<Item>;
  /** Fails with not_found if the key is absent. */
  update(key: string, value: string, opts?: WriteOptions): Promise<Item>;
  /** Fails with compare_failed unless the key is at expectedRevision. */
  compareAndSwap(key: string, expectedRevision: number, value: string, opts?: WriteOptions): Promise<Item>;
  /** Fails with not_found if the key is absent. */
  delete(key: string): Promise<void>;
  deleteRange(prefix: string): Promise<number>;
  /**
   * All conditions hold and every operation applies, or nothing does (compare_failed names the key).
   * `onCommitted` runs once the write is decided and committed but perhaps not yet durable (the
   * embedded store syncs its WAL after): work that only needs the outcome can start while the sync
   * runs. A backend whose commit is its sync may not call it; the state store then calls it itself.
   */
  atomicWrite(conditions: Condition[], operations: Operation[], opts?: { onCommitted?: () => void }): Promise<number>;
  /**
   * Snapshot, then change events in revision order with the backend revision they bring it to.
   * The listener may be called with no events: the backend moved on by writes outside the prefixes.
   */
  watch(prefixes: string[], listener: (events: WatchEvent[], revision: number) => void): Promise<Watcher>;
  /** Reachable and answering (readiness). */
  ping(): Promise<void>;
  close(): Promise<void>;
}
