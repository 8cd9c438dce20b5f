// The production audit store: events in one PostgreSQL table partitioned by week (jsonb body, a
// column and an index per filter; pg-schema.ts, pg-partitions.ts), written with group commit to the
// primary among the URL's hosts, read from the primary or from a replica (readUrl).
//
// Writing. One flush at a time per store: appends that arrive while a flush is in progress wait and
// go together in the next one (a queue of 1,000 events or more by halves, see SPLIT_MIN_EVENTS), as
// ONE COPY (pg-copy.ts; one transaction, one WAL flush) on the store's writer connection. Each
// append's promise resolves after that COMMIT, which the session's synchronous_commit (on by
// default) makes wait for the synchronous standby when the primary names one. If the batch fails
// with a database error (a duplicate id, a value PostgreSQL cannot store), each append is retried
// in its own transaction, so one bad append fails only its own caller.
//
// Failover. If the connection is lost mid-commit, the outcome is unknown: the batch is retried on
// whichever host is primary next (found by pg-primary.ts), inserting only the events not already
// there (ids are unique), until each append's deadline (writeTimeoutMs); an append still not
// committed then fails with audit_unavailable (503). Nothing is acknowledged before a COMMIT returned.
//
// Write order across instances. Each commit takes a transaction-scoped advisory lock before
// drawing seq values, so transactions draw seqs and commit one after another: a reader that has seen
// seq N will never later see a newly committed event below N. That is what lets tail() and cursors
// use `seq > / < position`. The lock is held for the commit only; readers never take it.
import pg from 'pg';
import type { GatehouseError } from '../lib/errors.js';
import { parseAuditUrl } from '../lib/pg-url.js';
import { copyRows, writeRows } from './pg-copy.js';
import { dropPartitionsBefore, ensurePartitions } from './pg-partitions.js';
import { backoffMs, createHostTracker, isConnectionLoss, type Target, unavailable } from './pg-primary.js';
import { deleteEventsBefore, headPosition, queryEvents, replayLagSeconds, tailEvents } from './pg-read.js';
import { column, migrate, quote } from './pg-schema.js';
import type { AuditEvent, AuditStore, AuditStoreStatus } from './types.js';

export { PostgresAuditUrlError, parsePostgresAuditUrl } from '../lib/pg-url.js';
export { AUDIT_POSTGRES_SCHEMA_VERSION } from './pg-schema.js';

export interface PostgresAuditOptions {
  /** postgres:// URL, one host or several (h1:5432,h2:5433); `?schema=name` selects a schema. */
  url: string;
  /** Overrides the URL's schema parameter. Created if missing. */
  schema?: string;
  /** A replica for query() (not tail(): the webhook dispatcher must see every committed event at once). */
  readUrl?: string;
  /** Connections per pool (default 10), besides the writer connection. */
  poolSize?: number;
  /** How long an append may wait for a primary and its commit before failing (default 10 s). */
  writeTimeoutMs?: number;
  /** Errors no caller awaits (an idle connection dropped by the server), for logging. */
  onError?: (error: unknown) => void;
  /** Called after each group commit with how many appends and events it carried (for metrics and tests). */
  onBatch?: (info: { appends: number; events: number; fallback: boolean }) => void;
}

interface Pending {
  events: AuditEvent[];
  /** The events' COPY text, made by append(): while one commit is in flight, the next is prepared. */
  rows: string;
  deadline: number;
  settled: boolean;
  resolve: () => void;
  reject: (e: unknown) => void;
}

/** How long reads go to the primary after the replica could not be reached. */
const REPLICA_RETRY_MS = 2000;

/** How often the store makes sure this week's and the next week's partitions exist. */
const PARTITION_CHECK_MS = 3_600_000;

/** Most events one group commit carries (more wait for the next one; a larger single append goes alone). */
const MAX_BATCH_EVENTS = 20_000;

/**
 * From twice this many events queued, a flush takes about half: two commits then alternate, and the
 * producers of one make and encode their next events while PostgreSQL inserts the other's, where one
 * commit of everything would leave each side waiting for the other. 500 events keep a commit's fixed
 * cost (a WAL flush, the lock, one round trip: ~0.4 ms) under 3 % of its inserts (~30 µs per event).
 */
const SPLIT_MIN_EVENTS = 500;

const settle = (p: Pending, error?: unknown) => {
  if (p.settled) return;
  p.settled = true;
  if (error === undefined) p.resolve();
  else p.reject(error);
};

export async function openPostgresAuditStore(opts: PostgresAuditOptions): Promise<AuditStore> {
  const url = parseAuditUrl(opts.url, opts.schema === undefined ? {} : { schema: opts.schema });
  const s = quote(url.schema);
  const writeTimeoutMs = opts.writeTimeoutMs ?? 10_000;
  const poolSize = opts.poolSize ?? 10;
  const onError = opts.onError;
  const primary = createHostTracker(url, { poolSize, role: 'primary', ...(onError ? { onError } : {}) });
  const replica = opts.readUrl
    ? createHostTracker(parseAuditUrl(opts.readUrl, { defaultAttrs: 'prefer-standby' }), {
        poolSize,
        role: 'replica',
        ...(onError ? { onError } : {}),
      })
    : undefined;
  try {
    // One pass over the hosts: a store that cannot be opened is a start-up error, reported at once.
    await migrate((await primary.target(Date.now())).pool, url.schema);
  } catch (error) {
    await Promise.allSettled([primary.close(), replica?.close()]);
    const cause = (error as Error).cause;
    throw cause instanceof Error ? new Error(`${(error as Error).message}: ${cause.message}`, { cause }) : error;
  }

  // This week's partition and the next one exist before the first append; then checked hourly, so a
  // long-running writer always has next week's. A failure here is not fatal: the default partition
  // takes what no week partition covers.
  const makePartitions = async () => {
    const target = await primary.target(Date.now() + writeTimeoutMs);
    await ensurePartitions(target.pool, s, Date.now());
  };
  try {
    await makePartitions();
  } catch (error) {
    onError?.(error);
  }
  const partitionTimer = setInterval(
    () => void makePartitions().catch((error) => onError?.(error)),
    PARTITION_CHECK_MS,
  );
  partitionTimer.unref();

  let lastCommitAt: number | undefined;
  let replicaRetryAt = 0;

  /** A commit that outlives the deadline is cut off (its socket destroyed) and counted as lost. */
  async function commit(target: Target, rows: string, deadline: number): Promise<void> {
    const client = await target.writer();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => {
          // Rejected once the server process is gone too, so that the retry does not queue behind it.
          void target.dropWriter().finally(() => reject(new Error('the audit commit did not complete in time')));
        },
        Math.max(1, deadline - Date.now()),
      );
    });
    try {
      await Promise.race([writeRows(client, s, rows), timeout]);
      lastCommitAt = Date.now();
    } finally {
      clearTimeout(timer);
    }
  }

  /** Events of `events` not yet stored (after a commit whose outcome is unknown). */
  async function missing(target: Target, events: AuditEvent[]): Promise<AuditEvent[]> {
    const { rows } = await target.pool.query<{ id: string }>(`SELECT id FROM ${s}.events WHERE id = ANY($1::text[])`, [
      events.map((e) => column(e.id)),
    ]);
    const stored = new Set(rows.map((r) => r.id));
    return events.filter((e) => !stored.has(column(e.id) as string));
  }

  /** Commits events on the primary, following failovers until the deadline. */
  async function insert(events: AuditEvent[], rows: string, deadline: () => number): Promise<void> {
    let unknownOutcome = false;
    for (let attempt = 0; ; attempt++) {
      const target = await primary.target(deadline());
      try {
        const todo = unknownOutcome ? await missing(target, events) : events;
        if (todo.length > 0) await commit(target, todo === events ? rows : copyRows(todo), deadline());
        return;
      } catch (error) {
        if (!isConnectionLoss(error)) throw error;
        unknownOutcome = true;
        primary.invalidate(target);
        if (Date.now() >= deadline()) {
          throw unavailable('the audit commit did not complete; the request is not confirmed', error);
        }
        await new Promise((r) => setTimeout(r, backoffMs(attempt)));
      }
    }
  }

  let queue: Pending[] = [];
  let inFlight: Pending[] = [];
  let flushing = false;
  let closed = false;
  let closing: Promise<void> | undefined;
  let idle: (() => void) | undefined;

  // Appends whose deadline passed while the flush was stuck (no primary, a commit waiting for a
  // standby) answer 503 now rather than when the flush gives up. Ten times a second on every
  // instance: the error (and its stack) is made only when an append did run out of time.
  const sweeper = setInterval(() => {
    const now = Date.now();
    let expired: GatehouseError | undefined;
    const expire = (p: Pending) => {
      if (p.settled || p.deadline > now) return;
      expired ??= unavailable('no durable audit write was possible in time; the request is not confirmed');
      settle(p, expired);
    };
    inFlight.forEach(expire);
    queue.forEach(expire);
    if (expired) queue = queue.filter((p) => !p.settled);
  }, 100);
  sweeper.unref();

  function take(): Pending[] {
    let queued = 0;
    for (const p of queue) queued += p.events.length;
    const most = queued >= 2 * SPLIT_MIN_EVENTS ? Math.min(Math.ceil(queued / 2), MAX_BATCH_EVENTS) : MAX_BATCH_EVENTS;
    let events = 0;
    let n = 0;
    while (n < queue.length && (n === 0 || events + (queue[n] as Pending).events.length <= most)) {
      events += (queue[n] as Pending).events.length;
      n++;
    }
    const batch = queue.slice(0, n);
    queue = queue.slice(n);
    return batch;
  }

  async function write(batch: Pending[]): Promise<void> {
    const events = batch.flatMap((p) => p.events);
    // The batch keeps trying while any of its appends may still be answered.
    const deadline = () => Math.max(...batch.filter((p) => !p.settled).map((p) => p.deadline), 0);
    inFlight = batch;
    try {
      await insert(events, batch.map((p) => p.rows).join(''), deadline);
    } catch (error) {
      // A database error may be one append's fault: give each its own transaction. Anything else
      // (no primary, pool closed) would fail them all the same way.
      if (batch.length === 1 || !(error instanceof pg.DatabaseError)) {
        for (const p of batch) settle(p, error);
        opts.onBatch?.({ appends: batch.length, events: events.length, fallback: false });
        return;
      }
      for (const p of batch) {
        try {
          await insert(p.events, p.rows, () => p.deadline);
          settle(p);
        } catch (each) {
          settle(p, each);
        }
      }
      opts.onBatch?.({ appends: batch.length, events: events.length, fallback: true });
      return;
    } finally {
      inFlight = [];
    }
    opts.onBatch?.({ appends: batch.length, events: events.length, fallback: false });
    // Answered on the next turn of the event loop, after flushLoop has sent the next commit: the
    // producers answered here then make their next events while PostgreSQL works on that one.
    setImmediate(() => {
      for (const p of batch) settle(p);
    });
  }

  async function flushLoop(): Promise<void> {
    // Let the appends of this event-loop turn join the first batch.
    await new Promise((r) => setImmediate(r));
    while (queue.length > 0) await write(take());
    flushing = false;
    idle?.();
  }

  /** A read on the primary; a lost connection makes the next call look for the primary again. */
  async function onPrimary<T>(read: (pool: pg.Pool) => Promise<T>): Promise<T> {
    const target = await primary.target(Date.now() + writeTimeoutMs);
    try {
      return await read(target.pool);
    } catch (error) {
      if (!isConnectionLoss(error) || closed) throw error;
      primary.invalidate(target);
      throw unavailable('the audit store did not answer', error);
    }
  }

  const store: AuditStore = {
    append(events) {
      if (closed) return Promise.reject(new Error('audit store is closed'));
      if (events.length === 0) return Promise.resolve();
      let rows: string;
      try {
        rows = copyRows(events);
      } catch (error) {
        return Promise.reject(error);
      }
      return new Promise((resolve, reject) => {
        queue.push({ events, rows, deadline: Date.now() + writeTimeoutMs, settled: false, resolve, reject });
        if (!flushing) {
          flushing = true;
          void flushLoop();
        }
      });
    },

    async query(q) {
      if (replica && q.consistency !== 'strong' && Date.now() >= replicaRetryAt) {
        const target = replica.known() ?? (await replica.target(Date.now()).catch(() => undefined));
        // A replica that is down is tried again after a pause, not on every read (a host that drops
        // packets would cost every read its connect timeout).
        if (!target) replicaRetryAt = Date.now() + REPLICA_RETRY_MS;
        if (target) {
          try {
            const [page, lag] = await Promise.all([queryEvents(target.pool, s, q), replayLagSeconds(target.pool)]);
            return lag === undefined ? page : { ...page, replicaLagSeconds: lag };
          } catch (error) {
            if (!isConnectionLoss(error)) throw error;
            replica.invalidate(target);
            onError?.(error);
          }
        }
        // The replica is down: the primary answers (strong reads are never worse than eventual ones).
      }
      return onPrimary((pool) => queryEvents(pool, s, q));
    },

    tail: (position, limit) => onPrimary((pool) => tailEvents(pool, s, position, limit)),
    // On the primary, as tail(): a position read from a replica could lie behind what tail() has read.
    head: () => onPrimary((pool) => headPosition(pool, s)),

    deleteBefore: (timeMs, batchSize) => onPrimary((pool) => deleteEventsBefore(pool, s, timeMs, batchSize)),

    dropBefore: (timeMs) => onPrimary((pool) => dropPartitionsBefore(pool, s, timeMs)),

    async ping() {
      if (closed) throw new Error('audit store is closed');
      await onPrimary((pool) => pool.query('SELECT 1'));
    },

    async status() {
      const out: AuditStoreStatus = {};
      const target = primary.known();
      if (target) {
        out.primary = target.hostPort;
        const { rows } = await target.pool
          .query<{ names: string; n: number }>(
            `SELECT current_setting('synchronous_standby_names') AS names,
                    (SELECT count(*)::int FROM pg_stat_replication WHERE sync_state IN ('sync', 'quorum')) AS n`,
          )
          .catch(() => ({ rows: [] }));
        const row = rows[0];
        if (row?.names) out.synchronousStandbys = { required: row.names, inSync: row.n };
      }
      const r = replica?.known() ?? (await replica?.target(Date.now()).catch(() => undefined));
      if (r) {
        out.replica = r.hostPort;
        const lag = await replayLagSeconds(r.pool).catch(() => undefined);
        if (lag !== undefined) out.replicaLagSeconds = lag;
      }
      if (lastCommitAt !== undefined) out.sinceLastCommitSeconds = (Date.now() - lastCommitAt) / 1000;
      return out;
    },

    close() {
      closing ??= (async () => {
        // Appends made while closing still commit; only then do the connections end.
        while (flushing || queue.length > 0) {
          await new Promise<void>((r) => {
            idle = r;
            if (!flushing) {
              flushing = true;
              void flushLoop();
            }
          });
        }
        closed = true;
        clearInterval(sweeper);
        clearInterval(partitionTimer);
        await Promise.allSettled([primary.close(), replica?.close()]);
      })();
      return closing;
    },
  };
  return store;
}
