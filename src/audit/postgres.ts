// The production audit store: events in one PostgreSQL table (jsonb body, a column and an index per
// filter), written with group commit and read with the same semantics as the SQLite store.
//
// Writing. One flush at a time per store: appends that arrive while a flush is in progress wait and
// go together in the next one, as ONE call of the append function (a multi-row INSERT from unnest()
// arrays: one statement, one transaction, one round trip, one WAL flush). Each append's promise
// resolves after that COMMIT. If the batch fails with a database error (a duplicate id, a value
// PostgreSQL cannot store), each append is retried in its own transaction, so one bad append fails
// only its own caller.
//
// Write order across instances. Several Gatehouse instances may share the table. The append function
// takes a transaction-scoped advisory lock before drawing seq values, so transactions draw seqs and
// commit one after another: a reader that has seen seq N will never later see a newly committed
// event below N. That is what lets tail() and cursors use `seq > / < position` and see every event
// exactly once. The lock is held for the commit only (a few ms); readers never take it.
//
// Migrations are versioned in <schema>.schema_migrations and run in one transaction under an advisory
// lock, so several instances starting at once are safe.
import { createHash } from 'node:crypto';
import pg from 'pg';
import { prefixUpperBound } from '../lib/prefix-range.js';
import { checkDeleteBefore, checkQuery, checkTail, decodePosition, encodePosition } from './sqlite.js';
import type { AuditEvent, AuditPage, AuditQuery, AuditStore } from './types.js';

export interface PostgresAuditOptions {
  /** postgres:// or postgresql:// URL; `?schema=name` selects a schema other than public. */
  url: string;
  /** Overrides the URL's schema parameter. Created if missing. */
  schema?: string;
  /** Connections in the pool (default 10). One carries the writes; the rest serve reads. */
  poolSize?: number;
  /** Errors no caller awaits (an idle connection dropped by the server), for logging. */
  onError?: (error: unknown) => void;
  /** Called after each group commit with how many appends and events it carried (for metrics and tests). */
  onBatch?: (info: { appends: number; events: number; fallback: boolean }) => void;
}

/** Thrown for a URL or schema name this store cannot use. */
export class PostgresAuditUrlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PostgresAuditUrlError';
  }
}

const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** Splits the schema parameter off the URL (node-postgres must not see it) and checks it. */
export function parsePostgresAuditUrl(url: string, schema?: string): { connectionString: string; schema: string } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new PostgresAuditUrlError('not a valid URL');
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new PostgresAuditUrlError(`the scheme must be postgres:// or postgresql://, not ${parsed.protocol}//`);
  }
  const fromUrl = parsed.searchParams.get('schema');
  parsed.searchParams.delete('schema');
  const chosen = schema ?? fromUrl ?? 'public';
  if (!SCHEMA_NAME.test(chosen)) {
    throw new PostgresAuditUrlError(
      `schema ${JSON.stringify(chosen)} must be a letter or _ followed by up to 62 letters, digits or _`,
    );
  }
  return { connectionString: parsed.toString(), schema: chosen };
}

/** A signed 64-bit advisory lock key for a purpose within a schema. */
function lockKey(purpose: string, schema: string): string {
  return createHash('sha256').update(`gatehouse.audit.${purpose}:${schema}`).digest().readBigInt64BE(0).toString();
}

const quote = (identifier: string) => `"${identifier.replace(/"/g, '""')}"`;

/** Schema versions, applied once each in order. Never edit a released entry; append a new one. */
function migrations(schema: string): string[] {
  const s = quote(schema);
  const appendLock = lockKey('append', schema);
  return [
    `CREATE TABLE ${s}.events (
       seq BIGSERIAL PRIMARY KEY,
       id TEXT COLLATE "C" NOT NULL UNIQUE,
       time_ms BIGINT NOT NULL,
       type TEXT COLLATE "C" NOT NULL,
       actor_id TEXT COLLATE "C",
       actor_kind TEXT COLLATE "C",
       target_id TEXT COLLATE "C",
       session_id TEXT COLLATE "C",
       success BOOLEAN NOT NULL,
       body JSONB NOT NULL
     );
     -- Each filter index is ordered by (column, seq), so "newest first, filtered" is an index range
     -- read backwards; the type, time and outcome columns after seq are checked inside the index
     -- (no heap visit for rows that do not match) and make counting an index-only scan.
     CREATE INDEX events_time ON ${s}.events (time_ms, seq, success);
     CREATE INDEX events_type ON ${s}.events (type, seq, time_ms, success);
     CREATE INDEX events_actor ON ${s}.events (actor_id, seq, type, time_ms, success);
     CREATE INDEX events_actor_kind ON ${s}.events (actor_kind, seq, type, time_ms, success);
     CREATE INDEX events_target ON ${s}.events (target_id, seq, type, time_ms, success);
     CREATE INDEX events_session ON ${s}.events (session_id, seq, type, time_ms, success);
     CREATE INDEX events_failed ON ${s}.events (seq) WHERE NOT success;
     CREATE FUNCTION ${s}.append_events(
       ids TEXT[], times BIGINT[], types TEXT[], actor_ids TEXT[], actor_kinds TEXT[],
       target_ids TEXT[], session_ids TEXT[], successes BOOLEAN[], bodies JSONB[]
     ) RETURNS void LANGUAGE plpgsql AS $fn$
     BEGIN
       -- Writers draw seqs and commit one at a time (see src/audit/postgres.ts).
       PERFORM pg_advisory_xact_lock(${appendLock});
       INSERT INTO ${s}.events (id, time_ms, type, actor_id, actor_kind, target_id, session_id, success, body)
       SELECT u.id, u.time_ms, u.type, u.actor_id, u.actor_kind, u.target_id, u.session_id, u.success, u.body
       FROM unnest(ids, times, types, actor_ids, actor_kinds, target_ids, session_ids, successes, bodies)
         WITH ORDINALITY AS u(id, time_ms, type, actor_id, actor_kind, target_id, session_id, success, body, n)
       ORDER BY u.n;
     END
     $fn$;`,
  ];
}

export const AUDIT_POSTGRES_SCHEMA_VERSION = migrations('public').length;

async function migrate(pool: pg.Pool, schema: string): Promise<void> {
  const s = quote(schema);
  const list = migrations(schema);
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1::bigint)', [lockKey('migrate', schema)]);
    // CREATE SCHEMA IF NOT EXISTS needs the CREATE privilege even when the schema exists; ask first.
    const exists = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
    if (exists.rowCount === 0) await client.query(`CREATE SCHEMA ${s}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${s}.schema_migrations (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`,
    );
    const { rows } = await client.query<{ v: number }>(
      `SELECT COALESCE(MAX(version), 0)::int AS v FROM ${s}.schema_migrations`,
    );
    const applied = rows[0]?.v ?? 0;
    if (applied > list.length) {
      throw new Error(
        `the audit database (schema ${schema}) is at schema version ${applied}, newer than this Gatehouse (${list.length}); upgrade Gatehouse`,
      );
    }
    for (let version = applied + 1; version <= list.length; version++) {
      await client.query(list[version - 1] as string);
      await client.query(`INSERT INTO ${s}.schema_migrations (version) VALUES ($1)`, [version]);
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

// jsonb cannot hold U+0000 or a lone surrogate (JSON.stringify writes them as \u0000 and \udXXX
// escapes), and text columns cannot hold U+0000. Such an event is still stored losslessly: its JSON
// text goes into the body as one jsonb string, and its filter columns get U+FFFD in place of U+0000
// (a filter containing U+0000 matches nothing here; see where()).
const UNSTORABLE_IN_JSONB = /\\u0000|\\ud[89a-f][0-9a-f]{2}/i;
const RAW_KEY = '$gatehouse_json';

function encodeBody(e: AuditEvent): string {
  const json = JSON.stringify(e);
  return UNSTORABLE_IN_JSONB.test(json) ? JSON.stringify({ [RAW_KEY]: json }) : json;
}

function decodeBody(body: AuditEvent | { [RAW_KEY]: string }): AuditEvent {
  return RAW_KEY in body && typeof body[RAW_KEY] === 'string'
    ? (JSON.parse(body[RAW_KEY]) as AuditEvent)
    : (body as AuditEvent);
}

const column = (v: string | undefined): string | null => (v === undefined ? null : v.replaceAll('\u0000', '\ufffd'));

interface Pending {
  events: AuditEvent[];
  resolve: () => void;
  reject: (e: unknown) => void;
}

interface Row {
  seq: string | number;
  body: AuditEvent | { [RAW_KEY]: string };
}

/** Most events one group commit carries (more wait for the next one; a larger single append goes alone). */
const MAX_BATCH_EVENTS = 20_000;

export async function openPostgresAuditStore(opts: PostgresAuditOptions): Promise<AuditStore> {
  const { connectionString, schema } = parsePostgresAuditUrl(opts.url, opts.schema);
  const s = quote(schema);
  const pool = new pg.Pool({
    connectionString,
    max: opts.poolSize ?? 10,
    connectionTimeoutMillis: 5_000, // readiness checks (ping) must not hang on an unreachable server
    idleTimeoutMillis: 30_000,
  });
  pool.on('error', (error) => opts.onError?.(error));
  try {
    await migrate(pool, schema);
  } catch (error) {
    await pool.end().catch(() => {});
    throw error;
  }

  const appendSql = `SELECT ${s}.append_events($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::boolean[], $9::jsonb[])`;
  const appendName = 'gatehouse-audit-append'; // one pool per store, so one schema per connection

  async function insert(events: AuditEvent[]): Promise<void> {
    const columns: unknown[][] = [[], [], [], [], [], [], [], [], []];
    const [ids, times, types, actorIds, actorKinds, targetIds, sessionIds, successes, bodies] = columns as [
      unknown[],
      unknown[],
      unknown[],
      unknown[],
      unknown[],
      unknown[],
      unknown[],
      unknown[],
      unknown[],
    ];
    for (const e of events) {
      ids.push(column(e.id));
      times.push(Date.parse(e.time));
      types.push(column(e.type));
      actorIds.push(column(e.actor.id));
      actorKinds.push(column(e.actor.kind));
      targetIds.push(column(e.target?.id));
      sessionIds.push(column(e.session_id));
      successes.push(e.success);
      bodies.push(encodeBody(e));
    }
    // A named statement is parsed once per connection.
    await pool.query({ name: appendName, text: appendSql, values: columns });
  }

  let queue: Pending[] = [];
  let flushing = false;
  let closed = false;
  let closing: Promise<void> | undefined;
  let idle: (() => void) | undefined;

  function take(): Pending[] {
    let events = 0;
    let n = 0;
    while (n < queue.length && (n === 0 || events + (queue[n] as Pending).events.length <= MAX_BATCH_EVENTS)) {
      events += (queue[n] as Pending).events.length;
      n++;
    }
    const batch = queue.slice(0, n);
    queue = queue.slice(n);
    return batch;
  }

  async function write(batch: Pending[]): Promise<void> {
    const events = batch.flatMap((p) => p.events);
    try {
      await insert(events);
    } catch (error) {
      // A database error may be one append's fault: give each its own transaction. Anything else
      // (connection refused, pool closed) would fail them all the same way.
      if (batch.length === 1 || !(error instanceof pg.DatabaseError)) {
        for (const p of batch) p.reject(error);
        opts.onBatch?.({ appends: batch.length, events: events.length, fallback: false });
        return;
      }
      for (const p of batch) {
        try {
          await insert(p.events);
          p.resolve();
        } catch (each) {
          p.reject(each);
        }
      }
      opts.onBatch?.({ appends: batch.length, events: events.length, fallback: true });
      return;
    }
    for (const p of batch) p.resolve();
    opts.onBatch?.({ appends: batch.length, events: events.length, fallback: false });
  }

  async function flushLoop(): Promise<void> {
    // Let the appends of this event-loop turn join the first batch.
    await new Promise((r) => setImmediate(r));
    while (queue.length > 0) await write(take());
    flushing = false;
    idle?.();
  }

  function where(q: AuditQuery, params: unknown[]): string[] {
    const p = (value: unknown) => {
      params.push(value);
      return `$${params.length}`;
    };
    // PostgreSQL text cannot hold U+0000, so no stored value contains it: such a filter matches nothing
    // (sending it would be an encoding error).
    const storable = (v: string) => !v.includes('\u0000');
    const clauses: string[] = [];
    if (q.types && q.types.length > 0) {
      const ors = q.types.map((t) => {
        if (!storable(t)) return 'FALSE';
        if (t.endsWith('*')) {
          // A range over "C"-collated text: byte order, case-sensitive, served by the type index.
          const prefix = t.slice(0, -1);
          return `(type >= ${p(prefix)} AND type < ${p(prefixUpperBound(prefix))})`;
        }
        return `type = ${p(t)}`;
      });
      clauses.push(ors.length === 1 ? (ors[0] as string) : `(${ors.join(' OR ')})`);
    }
    const equal = (column: string, value: string | undefined) => {
      if (value === undefined) return;
      clauses.push(storable(value) ? `${column} = ${p(value)}` : 'FALSE');
    };
    equal('actor_id', q.actor);
    equal('actor_kind', q.actor_kind);
    equal('target_id', q.target);
    equal('session_id', q.session_id);
    // A literal, so that the partial index of failures applies.
    if (q.success !== undefined) clauses.push(q.success ? 'success' : 'NOT success');
    if (q.from !== undefined) clauses.push(`time_ms >= ${p(Math.ceil(q.from))}`);
    if (q.to !== undefined) clauses.push(`time_ms <= ${p(Math.floor(q.to))}`);
    return clauses;
  }

  const whereSql = (clauses: string[]) => (clauses.length > 0 ? `WHERE ${clauses.join(' AND ')}` : '');

  return {
    append(events) {
      if (closed) return Promise.reject(new Error('audit store is closed'));
      if (events.length === 0) return Promise.resolve();
      return new Promise((resolve, reject) => {
        queue.push({ events, resolve, reject });
        if (!flushing) {
          flushing = true;
          void flushLoop();
        }
      });
    },

    async query(q) {
      checkQuery(q);
      const before = q.cursor === undefined ? undefined : decodePosition(q.cursor);
      const params: unknown[] = [];
      const clauses = where(q, params);
      if (before !== undefined) {
        params.push(before);
        clauses.push(`seq < $${params.length}::bigint`);
      }
      params.push(q.limit + 1); // one more than asked says whether there is a next page
      let sql = `SELECT seq, body FROM ${s}.events ${whereSql(clauses)} ORDER BY seq DESC LIMIT $${params.length}`;
      if (q.offset) {
        params.push(q.offset);
        sql += ` OFFSET $${params.length}`;
      }
      let counting: Promise<number> | undefined;
      if (q.countUpTo !== undefined) {
        const countParams: unknown[] = [];
        const countClauses = where(q, countParams);
        countParams.push(q.countUpTo);
        counting = pool
          .query<{ n: number }>(
            `SELECT count(*)::int AS n FROM (SELECT 1 FROM ${s}.events ${whereSql(countClauses)} LIMIT $${countParams.length}) AS matching`,
            countParams,
          )
          .then((r) => r.rows[0]?.n ?? 0);
      }
      // The page and the count run on two connections at once.
      const [result, total] = await Promise.all([pool.query<Row>(sql, params), counting]);
      const rows = result.rows;
      const more = rows.length > q.limit;
      if (more) rows.pop();
      const page: AuditPage = { events: rows.map((r) => decodeBody(r.body)) };
      if (total !== undefined) page.total = total;
      const last = rows[rows.length - 1];
      if (more && last) page.nextCursor = encodePosition(last.seq);
      return page;
    },

    async tail(position, limit) {
      checkTail(limit);
      const after = position === undefined ? undefined : decodePosition(position, 'tail position');
      const { rows } =
        after === undefined
          ? await pool.query<Row>(`SELECT seq, body FROM ${s}.events ORDER BY seq LIMIT $1`, [limit])
          : await pool.query<Row>(`SELECT seq, body FROM ${s}.events WHERE seq > $1::bigint ORDER BY seq LIMIT $2`, [
              after,
              limit,
            ]);
      const last = rows[rows.length - 1];
      return { events: rows.map((r) => decodeBody(r.body)), position: last ? encodePosition(last.seq) : position };
    },

    async deleteBefore(timeMs, batchSize) {
      checkDeleteBefore(timeMs, batchSize);
      const result = await pool.query(
        `DELETE FROM ${s}.events WHERE seq IN (SELECT seq FROM ${s}.events WHERE time_ms < $1 ORDER BY time_ms, seq LIMIT $2)`,
        [Math.ceil(timeMs), batchSize],
      );
      return result.rowCount ?? 0;
    },

    async ping() {
      await pool.query('SELECT 1');
    },

    close() {
      closing ??= (async () => {
        // Appends made while closing still commit; only then does the pool end.
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
        await pool.end();
      })();
      return closing;
    },
  };
}
