// The state backend on etcd v3 — the consensus store of a 3+ instance auth tier (docs/architecture.md).
// Everything maps onto etcd's own machinery: an item's revision is its mod_revision, conditions are
// txn compares (create_revision = 0 for absent, version > 0 for present, mod_revision for a revision;
// present and at-revision also compare the value above the live mark, so an expired item fails them
// without a read first — liveAbove),
// and watch is one etcd watch on Gatehouse's prefix, fanned out (etcd-watch.ts). Expiry: the expiry
// time travels with the value and reads hide expired items at once; a sweeper deletes them (and
// watchers see the delete); leases are a safety net for when no instance runs, one per minute
// bucket rather than one per write (Teleport PR #16636: a lease per write exploded).
// Client: npm etcd3, pinned (idle upstream since 2023), and only ever used in this folder.
import { AsyncLocalStorage } from 'node:async_hooks';
import {
  ClientRuntimeError,
  Etcd3,
  EtcdError,
  GRPCDeadlineExceededError,
  GRPCGenericError,
  type IKeyValue,
  type IOptions,
  isRecoverableError,
  type Namespace,
} from 'etcd3';
import { parseDuration } from '../lib/duration.js';
import { GatehouseError } from '../lib/errors.js';
import { startEtcdCompactor } from './etcd-compactor.js';
import { MAX_RESPONSE_BYTES, rangeInPages } from './etcd-range.js';
import { createEtcdWatch } from './etcd-watch.js';
import {
  type Backend,
  BackendError,
  type Condition,
  ETCD_WRITE_LIMITS,
  type Item,
  type Operation,
  type WriteOptions,
} from './types.js';

/** etcd refuses requests over 1.5 MiB by default; refuse clearly before it does. */
export const ETCD_MAX_VALUE_BYTES = 1024 * 1024;
const EXPIRY_MARK = '\u0001';
const BUCKET_MS = 60_000;

export interface EtcdBackendOptions {
  hosts: string[];
  /** Key prefix isolating this cluster (default /gatehouse/). */
  prefix?: string;
  sweepIntervalMs?: number;
  dialTimeoutMs?: number;
  /** How long one etcd call may take before the caller gets state_unavailable (no quorum answers none). */
  callTimeoutMs?: number;
  /** History compaction interval (etcd-compactor.ts); default 5 minutes, 0: left to etcd's own. */
  compactionIntervalMs?: number;
  clock?: () => number;
}

const DEFAULT_COMPACTION_MS = 5 * 60_000;
// Every instance reads the whole state to sweep: 100,000 items took ~2 s and ~1.5 s of CPU, so once
// a minute, not every 10 s. Expired deletes go 60 to a transaction (a condition and a delete each).
const DEFAULT_SWEEP_MS = 60_000;
const SWEEP_BATCH = 60;

/** `etcd://h1:2379,h2:2379[?prefix=/gatehouse][&compaction=5m|off]` → backend options. */
export function parseEtcdUrl(url: string): { hosts: string[]; prefix: string; compactionIntervalMs?: number } {
  const m = /^etcd:\/\/([^/?#]+)\/?(?:\?(.*))?$/.exec(url);
  if (!m) throw new Error('use etcd://host:port[,host:port…][?prefix=/gatehouse][&compaction=5m|off]');
  const hosts = (m[1] as string).split(',').map((h) => {
    if (!/^[A-Za-z0-9.-]+:\d{1,5}$|^\[[0-9a-fA-F:]+\]:\d{1,5}$/.test(h)) throw new Error(`${h} is not host:port`);
    return `http://${h}`;
  });
  const params = new URLSearchParams(m[2] ?? '');
  let prefix = params.get('prefix') ?? '/gatehouse/';
  if (!prefix.endsWith('/')) prefix += '/';
  for (const key of params.keys())
    if (key !== 'prefix' && key !== 'compaction') throw new Error(`unknown parameter ${key}`);
  const compaction = params.get('compaction');
  if (compaction === null) return { hosts, prefix };
  const compactionIntervalMs = compaction === 'off' ? 0 : parseDuration(compaction);
  if (compactionIntervalMs === undefined || (compactionIntervalMs > 0 && compactionIntervalMs < 1000))
    throw new Error(`compaction must be a duration of at least 1s (such as 5m), or off; got ${compaction}`);
  return { hosts, prefix, compactionIntervalMs };
}

export const encodeValue = (value: string, expiresAt?: number): string =>
  expiresAt === undefined ? value : `${EXPIRY_MARK}${expiresAt}${EXPIRY_MARK}${value}`;

/**
 * The least raw value of an item unexpired at `now`: a value with an expiry starts with the mark and
 * its expiry in decimal, which sorts as a number while it has 13 digits (2001–2286); JSON values
 * (never starting below a space) sort above every mark. The last character sorts above anything a
 * value holds after its mark, so an item expiring at `now` itself is expired, as on every backend.
 * Undefined for a clock outside that range (a test's): conditions are then checked by reading first.
 */
export const liveAbove = (now: number): string | undefined =>
  now >= 1e12 && now < 1e13 ? `${EXPIRY_MARK}${Math.floor(now)}${EXPIRY_MARK}\uffff` : undefined;

/** An etcd key-value as an Item; `prefix` is stripped where etcd3's namespace left it on. */
export function decodeKv(kv: IKeyValue, prefix: string): Item {
  const raw = kv.value.toString();
  const full = kv.key.toString();
  const key = full.startsWith(prefix) ? full.slice(prefix.length) : full;
  const item: Item = { key, value: raw, revision: Number(kv.mod_revision) };
  if (raw.startsWith(EXPIRY_MARK)) {
    const end = raw.indexOf(EXPIRY_MARK, 1);
    item.expiresAt = Number(raw.slice(1, end));
    item.value = raw.slice(end + 1);
  }
  return item;
}

/**
 * etcd's own failures (no quorum, every member unreachable, a call past its deadline) as the stable
 * 503 state_unavailable: the write did not happen, and the caller may retry it.
 */
export function etcdUnavailable(error: unknown): unknown {
  const fromClient =
    error instanceof GRPCGenericError ||
    error instanceof EtcdError ||
    error instanceof ClientRuntimeError ||
    // etcd3 stops calling hosts that failed through cockatiel's circuit breaker, whose errors it does
    // not wrap; cockatiel marks them with isBrokenCircuitError (its own test, without importing it here).
    (error instanceof Error && (error as { isBrokenCircuitError?: boolean }).isBrokenCircuitError === true);
  if (!fromClient) return error;
  return new GatehouseError('state_unavailable', 'the state store (etcd) has no quorum or cannot be reached; retry', {
    headers: { 'retry-after': '1' },
    cause: error,
  });
}
/** The call in progress (a transaction's commit), so the retry policy can say it retried. */
const calls = new AsyncLocalStorage<{ retried: boolean }>();
/**
 * etcd3's default global policy (three tries on recoverable errors), written out so that it marks
 * the call it retried: a retried write may have committed the first time (see committedEarlier).
 */
const retryingPolicy = {
  async execute<T>(fn: (context: { attempt: number }) => Promise<T> | T): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await fn({ attempt });
      } catch (error) {
        // A call that ran out its deadline is not tried again: each call is bounded at callTimeoutMs,
        // and three tries made a write without quorum wait up to three times that (5, 10 or 15 s
        // depending on which members the tries reached; test/cluster-faults.test.ts).
        if (attempt >= 2 || !isRecoverableError(error as Error) || error instanceof GRPCDeadlineExceededError)
          throw error;
        const call = calls.getStore();
        if (call) call.retried = true;
      }
    }
  },
} as unknown as NonNullable<NonNullable<IOptions['faultHandling']>['global']>;

const guard = <T>(p: Promise<T>): Promise<T> =>
  p.catch((error: unknown) => {
    throw etcdUnavailable(error);
  });

export function openEtcdBackend(opts: EtcdBackendOptions): Backend {
  const clock = opts.clock ?? Date.now;
  const callTimeout = opts.callTimeoutMs ?? 5000;
  const client = new Etcd3({
    hosts: opts.hosts,
    dialTimeout: opts.dialTimeoutMs ?? 5000,
    // Without quorum etcd holds a request until its own timeout (≈ 7 s here) or longer; bound every
    // unary call so a caller learns in time. Watches are streams and are not bounded.
    defaultCallOptions: (context) => (context.isStream ? {} : { deadline: Date.now() + callTimeout }),
    faultHandling: { global: retryingPolicy },
    grpcOptions: { 'grpc.max_receive_message_length': MAX_RESPONSE_BYTES },
  });
  const prefix = opts.prefix ?? '/gatehouse/';
  const kv: Namespace = client.namespace(prefix);
  const decode = (raw: IKeyValue) => decodeKv(raw, prefix);
  // close() lets writes already asked for finish, as the SQLite backend's queue does.
  const pending = new Set<Promise<unknown>>();
  const track = <T>(p: Promise<T>): Promise<T> => {
    pending.add(p);
    void p.then(
      () => pending.delete(p),
      () => pending.delete(p),
    );
    return p;
  };
  const leases = new Map<number, Promise<string>>();
  const live = (item: Item | undefined) =>
    item && (item.expiresAt === undefined || item.expiresAt > clock()) ? item : undefined;

  /** A lease that outlives `expiresAt` by at most a bucket, shared by every write in that bucket. */
  function leaseFor(expiresAt: number): Promise<string> {
    const bucket = Math.ceil(expiresAt / BUCKET_MS) * BUCKET_MS + BUCKET_MS;
    let lease = leases.get(bucket);
    if (!lease) {
      const ttl = Math.max(2, Math.ceil((bucket - clock()) / 1000));
      lease = client.lease(ttl, { autoKeepAlive: false }).grant();
      lease.catch(() => leases.delete(bucket));
      leases.set(bucket, lease);
      for (const b of leases.keys()) if (b < clock()) leases.delete(b);
    }
    return lease;
  }

  function putOp(key: string, value: string, expiresAt?: number) {
    if (Buffer.byteLength(value) > ETCD_MAX_VALUE_BYTES) throw new BackendError('too_large', key);
    const op = kv.put(key).value(encodeValue(value, expiresAt));
    return expiresAt === undefined ? op : op.lease(leaseFor(expiresAt));
  }

  async function currentOf(key: string): Promise<Item | undefined> {
    const res = await kv.get(key).exec();
    const first = res.kvs[0];
    return first ? decode(first) : undefined;
  }

  /** A conditional write; expired items count as absent, as on every other backend. */
  function write(conditions: Condition[], operations: Operation[]): Promise<number> {
    if (closed) return Promise.reject(new Error('the etcd backend is closed'));
    return track(guard(writeNow(conditions, operations)));
  }

  async function writeNow(conditions: Condition[], operations: Operation[]): Promise<number> {
    const now = clock();
    // etcd takes one compare per condition and one always true (ETCD_WRITE_LIMITS); an unexpired
    // check is one more per present or at-revision condition, so a large write reads first instead.
    const checked = conditions.filter((c) => !('is' in c && c.is === 'absent')).length;
    const live = conditions.length + checked <= ETCD_WRITE_LIMITS.conditions ? liveAbove(now) : undefined;
    // "Present" and "at revision" are compared in the transaction itself (unexpired: the value
    // sorts above `live`); "absent" must see an expired item as gone, which etcd cannot compare: it
    // is deleted first. A login (its API key present) is then one round trip, not two (issue 36).
    for (const c of conditions) {
      if (!('is' in c) || (c.is === 'present' && live !== undefined)) continue;
      const current = await currentOf(c.key);
      if (current?.expiresAt !== undefined && current.expiresAt <= now) {
        await txn([{ key: c.key, revision: current.revision }], [{ type: 'delete', key: c.key }]).catch(() => {});
      }
    }
    return txn(conditions, operations, live);
  }

  /**
   * Runs a conditional write; on failure, finds which condition failed to name its key. With `live`,
   * a present or at-revision condition also requires the item unexpired (its value above `live`).
   */
  async function txn(conditions: Condition[], operations: Operation[], live?: string): Promise<number> {
    let t = kv.if('\u0000', 'Create', '==', 0); // always true: there is no empty key
    for (const c of conditions) {
      if ('is' in c) t = c.is === 'absent' ? t.and(c.key, 'Create', '==', 0) : t.and(c.key, 'Version', '>', 0);
      else t = t.and(c.key, 'Mod', '==', c.revision);
      if (live !== undefined && !('is' in c && c.is === 'absent')) t = t.and(c.key, 'Value', '>', live);
    }
    const ops = operations.map((op) =>
      op.type === 'put' ? putOp(op.key, op.value, op.expiresAt) : kv.delete().key(op.key),
    );
    const attempt = { retried: false };
    const res = await calls.run(attempt, () => t.then(...ops).commit());
    if (res.succeeded) return Number(res.header.revision);
    const own = attempt.retried ? await committedEarlier(operations) : undefined;
    if (own !== undefined) return own;
    const now = clock();
    for (const c of conditions) {
      const found = await currentOf(c.key);
      const current = found?.expiresAt !== undefined && found.expiresAt <= now ? undefined : found;
      const holds = 'is' in c ? (c.is === 'absent') === !current : current?.revision === c.revision;
      if (!holds) throw new BackendError('compare_failed', c.key);
    }
    throw new BackendError('compare_failed', conditions[0]?.key ?? '');
  }

  /**
   * The etcd client retries a call that failed on a recoverable error (a leader change), and a
   * transaction whose response was lost had committed: its retry then fails its own conditions
   * (`create` would say already_exists of the item it made). Recognized by its own writes: every put
   * of the transaction holds exactly its value at one shared revision and every delete is gone.
   * Asked only when the client did retry the commit (`retryingPolicy` marks it).
   */
  async function committedEarlier(operations: Operation[]): Promise<number | undefined> {
    const puts = operations.filter((op) => op.type === 'put');
    if (puts.length === 0) return undefined;
    const revisions = new Set<number>();
    for (const op of puts) {
      const current = await currentOf(op.key);
      if (!current || current.value !== op.value || current.expiresAt !== op.expiresAt) return undefined;
      revisions.add(current.revision);
    }
    for (const op of operations) if (op.type === 'delete' && (await currentOf(op.key))) return undefined;
    return revisions.size === 1 ? [...revisions][0] : undefined;
  }

  async function single(key: string, condition: Condition | undefined, value: string, o: WriteOptions) {
    const revision = await write(condition ? [condition] : [], [
      { type: 'put', key, value, ...(o.expiresAt !== undefined ? { expiresAt: o.expiresAt } : {}) },
    ]);
    return { key, value, revision, ...(o.expiresAt !== undefined ? { expiresAt: o.expiresAt } : {}) };
  }

  const rethrow = (reason: 'already_exists' | 'not_found', key: string) => (error: unknown) => {
    if (error instanceof BackendError && error.reason === 'compare_failed') throw new BackendError(reason, key);
    throw error;
  };

  /**
   * Deletes expired items, page by page (the whole state is never held at once), each only if
   * unchanged since read: another instance's sweep or a rewrite wins harmlessly. Reads and the cache
   * already hide expired items, so this only frees them; the leases are the net under it.
   */
  async function sweep(): Promise<void> {
    const now = clock();
    await rangeInPages(kv, prefix, '', async (page) => {
      const expired = page.map(decode).filter((i) => i.expiresAt !== undefined && i.expiresAt <= now);
      for (let i = 0; i < expired.length; i += SWEEP_BATCH) await deleteUnchanged(expired.slice(i, i + SWEEP_BATCH));
    });
  }
  async function deleteUnchanged(items: Item[]): Promise<void> {
    const only = (item: Item) =>
      txn([{ key: item.key, revision: item.revision }], [{ type: 'delete', key: item.key }]).catch(() => {});
    await txn(
      items.map((i) => ({ key: i.key, revision: i.revision })),
      items.map((i) => ({ type: 'delete', key: i.key })),
    ).catch(async () => {
      for (const item of items) await only(item);
    });
  }
  let closed = false;
  // Jittered, so instances that started together do not sweep in step.
  const sweepEvery = opts.sweepIntervalMs ?? DEFAULT_SWEEP_MS;
  let sweeper: NodeJS.Timeout;
  const scheduleSweep = () => {
    sweeper = setTimeout(
      () =>
        void sweep()
          .catch(() => {})
          .finally(() => {
            if (!closed) scheduleSweep();
          }),
      sweepEvery * (0.8 + 0.4 * Math.random()),
    );
    sweeper.unref();
  };
  scheduleSweep();
  const watches = createEtcdWatch(kv, { namespace: prefix, decode, live: (i) => live(i) !== undefined });
  const compactionMs = opts.compactionIntervalMs ?? DEFAULT_COMPACTION_MS;
  const compactor =
    compactionMs > 0
      ? startEtcdCompactor({
          intervalMs: compactionMs,
          currentRevision: async () => (await kv.get('ping').exec()).header.revision,
          compact: (revision) => client.kv.compact({ revision }),
        })
      : undefined;

  return {
    writeLimits: ETCD_WRITE_LIMITS,
    async get(key) {
      return live(await guard(currentOf(key)));
    },
    async getRange(under, o = {}) {
      const all = await guard(rangeInPages(kv, prefix, under));
      const items = all.kvs.map(decode).filter((i) => live(i) && (o.startKey === undefined || i.key >= o.startKey));
      return o.limit === undefined ? items : items.slice(0, o.limit);
    },
    create: (key, value, o = {}) =>
      single(key, { key, is: 'absent' }, value, o).catch(rethrow('already_exists', key)) as Promise<Item>,
    put: (key, value, o = {}) => single(key, undefined, value, o) as Promise<Item>,
    async update(key, value, o = {}) {
      const current = live(await guard(currentOf(key)));
      if (!current) throw new BackendError('not_found', key);
      return single(key, { key, revision: current.revision }, value, o).catch(
        rethrow('not_found', key),
      ) as Promise<Item>;
    },
    async compareAndSwap(key, expected, value, o = {}) {
      const current = live(await guard(currentOf(key)));
      if (current?.revision !== expected) throw new BackendError('compare_failed', key);
      return single(key, { key, revision: expected }, value, o) as Promise<Item>;
    },
    async delete(key) {
      const current = live(await guard(currentOf(key)));
      if (!current) throw new BackendError('not_found', key);
      await guard(txn([{ key, revision: current.revision }], [{ type: 'delete', key }])).catch(
        rethrow('not_found', key),
      );
    },
    async deleteRange(prefix) {
      const live = (await this.getRange(prefix)).length;
      await guard(kv.delete().prefix(prefix).exec());
      return live;
    },
    atomicWrite: write,
    watch: (prefixes, listener) => watches.watch(prefixes, listener),
    async ping() {
      await guard(kv.get('ping').exec());
    },
    async close() {
      if (closed) return;
      closed = true;
      clearTimeout(sweeper);
      await compactor?.stop();
      await Promise.allSettled([...pending]);
      watches.stop();
      client.close();
    },
  };
}
