// The state backend on PostgreSQL: `postgres://…[?schema=name]`, for instances that share one database.
//
// Storage (postgres-schema.ts): the live items, a change log with one row per revision (deletes are
// rows too, so watchers and catch-up see them), and a single-row revision counter. Every write goes
// through one SQL function that first locks the counter row: writers from all instances take turns,
// so revisions are assigned AND committed in order, with no gaps. A sequence would not do: its values
// commit out of order, and a reader that has seen revision 12 could later find an 11 appear.
//
// Writes are queued and sent together, one batch per round trip (group commit, as the SQLite
// backend does per event-loop turn); each write is its own subtransaction, so one failing condition
// fails only its caller.
//
// Change feed: LISTEN/NOTIFY as a wake-up, with the change log as the truth (postgres-watch.ts). We
// chose this over logical decoding: decoding needs wal_level=logical, a replication slot (which
// holds WAL forever if an instance goes away without dropping it) and the REPLICATION privilege —
// a lot to ask of a managed database for a table written a few times a second. NOTIFY needs nothing
// but the connection, and because revisions are gapless and committed in order, `revision > last`
// after any wake-up (or reconnect) is an exact catch-up; a lost notification only delays a read.
// The log is pruned by age (default 15 minutes); a watcher that was away longer resyncs from a snapshot.
//
// Expiry: reads hide expired items at once; a sweeper on each instance deletes them through the same
// write path (so watchers see the delete), and prunes the change log.
import pg from 'pg';
import { parsePostgresAuditUrl } from '../lib/pg-url.js';
import { prefixUpperBound } from '../lib/prefix-range.js';
import { channelFor, migrate, quote } from './postgres-schema.js';
import { createPostgresFeed, type Snapshot } from './postgres-watch.js';
import { type Backend, BackendError, type Condition, type Item, type Operation, type WriteOptions } from './types.js';

export interface PostgresBackendOptions {
  /** postgres:// or postgresql:// URL; `?schema=name` selects a schema other than public (created if missing). */
  url: string;
  poolSize?: number;
  sweepIntervalMs?: number;
  /** How long deletes and overwritten values stay in the change log for watchers to catch up. */
  changeRetentionMs?: number;
  pollIntervalMs?: number;
  reconnectDelayMs?: number;
  now?: () => number;
  /** Errors no caller awaits (a dropped connection, a failed sweep), for logging. */
  onError?: (error: unknown) => void;
}

/** Parses a state backend URL (throws PostgresAuditUrlError, whose message never holds the URL). */
export const parsePostgresBackendUrl = (url: string) => parsePostgresAuditUrl(url);

type Kind = 'absent' | 'present' | 'revision' | 'put' | 'delete' | 'expire' | 'range';
interface Step {
  kind: Kind;
  key: string;
  value?: string;
  num?: number;
}
interface Job {
  steps: Step[];
  resolve: (result: { rev: number; n: number }) => void;
  reject: (error: unknown) => void;
}
interface Row {
  key: string;
  value: string;
  revision: string;
  expires_at: string | null;
}

const MAX_BATCH_STEPS = 2000;

const toItem = (r: Row): Item =>
  r.expires_at === null
    ? { key: r.key, value: r.value, revision: Number(r.revision) }
    : { key: r.key, value: r.value, revision: Number(r.revision), expiresAt: Number(r.expires_at) };

const conditionStep = (c: Condition): Step =>
  'is' in c ? { kind: c.is, key: c.key } : { kind: 'revision', key: c.key, num: c.revision };

export type PostgresBackend = Backend & {
  /** Resolves once connected and migrated; every operation waits for it, so awaiting it is optional. */
  ready: Promise<void>;
};

/** Opens at once (so it fits the synchronous openBackend); the connection and migrations follow in `ready`. */
export function openPostgresBackend(opts: PostgresBackendOptions): PostgresBackend {
  const { connectionString, schema } = parsePostgresBackendUrl(opts.url);
  const s = quote(schema);
  const now = opts.now ?? Date.now;
  const onError = opts.onError ?? (() => {});
  const pool = new pg.Pool({
    connectionString,
    max: opts.poolSize ?? 10,
    connectionTimeoutMillis: 5_000, // readiness checks (ping) must not hang on an unreachable server
    idleTimeoutMillis: 30_000,
  });
  pool.on('error', onError); // an idle connection dropped by the server: the pool replaces it
  const ready = migrate(pool, schema);
  ready.catch(() => {}); // handled by whoever awaits an operation; not an unhandled rejection
  const live = `(expires_at IS NULL OR expires_at > $2)`;
  const columns = 'key, value, revision, expires_at';

  async function snapshot(prefixes: string[]): Promise<Snapshot> {
    await ready;
    const client = await pool.connect();
    try {
      // One snapshot for the items and the revision they stand at.
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const head = await client.query<{ value: string }>(`SELECT value FROM ${s}.state_revision WHERE id = 1`);
      const byKey = new Map<string, Item>(); // overlapping prefixes list an item once
      for (const prefix of prefixes) {
        const { rows } = await client.query<Row>(
          `SELECT ${columns} FROM ${s}.state_kv WHERE key >= $1 AND ${live} AND key < $3 ORDER BY key`,
          [prefix, now(), prefixUpperBound(prefix)],
        );
        for (const r of rows) byKey.set(r.key, toItem(r));
      }
      await client.query('COMMIT');
      const items = [...byKey.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
      return { items, revision: Number(head.rows[0]?.value ?? 0) };
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }

  const feed = createPostgresFeed({
    pool,
    connectionString,
    schema: s,
    channel: channelFor(schema),
    snapshot,
    toItem,
    pollIntervalMs: opts.pollIntervalMs ?? 5_000,
    reconnectDelayMs: opts.reconnectDelayMs ?? 100,
    onError,
  });

  let queue: Job[] = [];
  let flushing = false;
  let closing: Promise<void> | undefined;
  let idle: (() => void) | undefined;

  async function send(batch: Job[]): Promise<void> {
    const starts: number[] = [];
    const kinds: string[] = [];
    const keys: string[] = [];
    const vals: Array<string | null> = [];
    const nums: Array<number | null> = [];
    for (const job of batch) {
      starts.push(kinds.length + 1);
      for (const step of job.steps) {
        kinds.push(step.kind);
        keys.push(step.key);
        vals.push(step.value ?? null);
        nums.push(step.num ?? null);
      }
    }
    let rows: Array<{ rev: string | null; n: number; reason: string | null; detail: string | null }>;
    try {
      await ready;
      ({ rows } = await pool.query({
        name: 'gatehouse-state-apply',
        text: `SELECT rev, n, reason, detail FROM ${s}.state_apply($1, $2::int[], $3::text[], $4::text[], $5::text[], $6::bigint[])`,
        values: [now(), starts, kinds, keys, vals, nums],
      }));
    } catch (error) {
      // A database error may be one write's fault (text PostgreSQL cannot hold, such as U+0000): send
      // each alone, so it fails only its own caller. Anything else would fail them all the same way.
      if (batch.length > 1 && error instanceof pg.DatabaseError) {
        for (const job of batch) await send([job]);
      } else {
        for (const job of batch) job.reject(error);
      }
      return;
    }
    feed.poke();
    batch.forEach((job, i) => {
      const r = rows[i];
      if (!r) job.reject(new Error('the state write returned no result'));
      else if (r.reason === 'compare_failed') job.reject(new BackendError('compare_failed', r.detail ?? ''));
      else if (r.reason !== null) job.reject(new Error(`the state write failed: ${r.detail}`));
      else job.resolve({ rev: Number(r.rev), n: r.n });
    });
  }

  async function flushLoop(): Promise<void> {
    // Let the writes of this event-loop turn join the first batch.
    await new Promise((r) => setImmediate(r));
    while (queue.length > 0) {
      let steps = 0;
      let n = 0;
      while (n < queue.length && (n === 0 || steps + (queue[n] as Job).steps.length <= MAX_BATCH_STEPS)) {
        steps += (queue[n] as Job).steps.length;
        n++;
      }
      const batch = queue.slice(0, n);
      queue = queue.slice(n);
      await send(batch);
    }
    flushing = false;
    idle?.();
  }

  function enqueue(steps: Step[], internal = false): Promise<{ rev: number; n: number }> {
    if (closing && !internal) return Promise.reject(new Error('the state backend is closed'));
    return new Promise((resolve, reject) => {
      queue.push({ steps, resolve, reject });
      if (!flushing) {
        flushing = true;
        void flushLoop();
      }
    });
  }

  /** A write whose failed condition means `reason` to the caller (create: already_exists, …). */
  const as = (reason: 'already_exists' | 'not_found', key: string) => (error: unknown) => {
    if (error instanceof BackendError && error.reason === 'compare_failed') throw new BackendError(reason, key);
    throw error;
  };

  async function putItem(key: string, value: string, o: WriteOptions, condition?: Step): Promise<Item> {
    const put: Step = { kind: 'put', key, value, ...(o.expiresAt !== undefined ? { num: o.expiresAt } : {}) };
    const { rev } = await enqueue(condition ? [condition, put] : [put]);
    return o.expiresAt === undefined
      ? { key, value, revision: rev }
      : { key, value, revision: rev, expiresAt: o.expiresAt };
  }

  let lastPrune = 0;
  async function sweep(): Promise<void> {
    if (closing) return;
    await ready;
    const at = now();
    const { rows } = await pool.query<{ key: string }>(
      `SELECT key FROM ${s}.state_kv WHERE expires_at IS NOT NULL AND expires_at <= $1 LIMIT 1000`,
      [at],
    );
    if (rows.length > 0) await enqueue(rows.map((r) => ({ kind: 'expire', key: r.key })));
    const retention = opts.changeRetentionMs ?? 15 * 60_000;
    if (at - lastPrune >= Math.min(retention / 4, 60_000)) {
      lastPrune = at;
      // The newest change stays: it is where a new reader of the log starts from.
      await pool.query(
        `DELETE FROM ${s}.state_changes WHERE at_ms < $1 AND revision < (SELECT max(revision) FROM ${s}.state_changes)`,
        [at - retention],
      );
    }
  }
  const sweeper = setInterval(() => void sweep().catch(onError), opts.sweepIntervalMs ?? 1_000);
  sweeper.unref();

  return {
    ready,
    async get(key) {
      await ready;
      const { rows } = await pool.query<Row>(`SELECT ${columns} FROM ${s}.state_kv WHERE key = $1 AND ${live}`, [
        key,
        now(),
      ]);
      return rows[0] && toItem(rows[0]);
    },
    async getRange(prefix, o = {}) {
      await ready;
      // startKey is compared in SQL: JavaScript orders strings by UTF-16 unit, not by code point.
      const { rows } = await pool.query<Row>(
        `SELECT ${columns} FROM ${s}.state_kv
         WHERE key >= $1 AND ${live} AND key < $3 AND key >= COALESCE($5, $1) ORDER BY key LIMIT $4`,
        [prefix, now(), prefixUpperBound(prefix), o.limit ?? null, o.startKey ?? null],
      );
      return rows.map(toItem);
    },
    create: (key, value, o = {}) => putItem(key, value, o, { kind: 'absent', key }).catch(as('already_exists', key)),
    put: (key, value, o = {}) => putItem(key, value, o),
    update: (key, value, o = {}) => putItem(key, value, o, { kind: 'present', key }).catch(as('not_found', key)),
    compareAndSwap: (key, expected, value, o = {}) => putItem(key, value, o, { kind: 'revision', key, num: expected }),
    async delete(key) {
      await enqueue([
        { kind: 'present', key },
        { kind: 'delete', key },
      ]).catch(as('not_found', key));
    },
    async deleteRange(prefix) {
      return (await enqueue([{ kind: 'range', key: prefix, value: prefixUpperBound(prefix) }])).n;
    },
    async atomicWrite(conditions: Condition[], operations: Operation[]) {
      const steps = conditions.map(conditionStep);
      for (const op of operations) {
        if (op.type === 'delete') steps.push({ kind: 'delete', key: op.key });
        else
          steps.push({
            kind: 'put',
            key: op.key,
            value: op.value,
            ...(op.expiresAt !== undefined ? { num: op.expiresAt } : {}),
          });
      }
      return (await enqueue(steps)).rev;
    },
    async watch(prefixes, listener) {
      if (closing) throw new Error('the state backend is closed');
      return feed.watch(prefixes, listener);
    },
    async ping() {
      await ready;
      await pool.query('SELECT 1');
    },
    close() {
      closing ??= (async () => {
        clearInterval(sweeper);
        // Let queued writes commit first: nothing acknowledged-in-flight is dropped.
        if (flushing) await new Promise<void>((r) => (idle = r));
        await feed.stop();
        await pool.end().catch(onError);
      })();
      return closing;
    },
  };
}
