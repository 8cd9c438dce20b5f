// The embedded audit store: events in one SQLite table, committed in groups by a writer thread
// (sqlite-writer.ts: one fsync per transaction however many requests wrote, and never on the main
// thread), each append resolving only once durable.
//
// Reading: newest first by seq (write order). Every filter column has an index ordered by
// (column, seq), so "newest first with one filter" is an index range read backwards (the plan for
// each combination of filters is chosen below). Deep pages use a cursor (`seq < ?`), never a large
// OFFSET; an offset, when given with a cursor, skips matching rows after the cursor. `total` is
// counted only when asked (countUpTo), and stops there.
//
// The cursor/position codec and the query checks below are shared with the PostgreSQL store.
import Database from 'better-sqlite3';
import { prefixUpperBound } from '../lib/prefix-range.js';
import { privateSqliteFile } from '../lib/private-files.js';
import { runMigrations } from '../lib/sqlite-migrations.js';
import { openWriter } from './sqlite-writer.js';
import { type AuditEvent, type AuditPage, type AuditQuery, type AuditStore, InvalidCursorError } from './types.js';

/** Schema versions, applied once each in order. Never edit a released entry; append a new one. */
export const AUDIT_SQLITE_MIGRATIONS = [
  `CREATE TABLE events (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     id TEXT NOT NULL UNIQUE,
     time_ms INTEGER NOT NULL,
     type TEXT NOT NULL,
     actor_id TEXT,
     target_id TEXT,
     session_id TEXT,
     success INTEGER NOT NULL,
     body TEXT NOT NULL
   );
   CREATE INDEX events_time ON events(time_ms);
   CREATE INDEX events_type ON events(type, seq);
   CREATE INDEX events_actor ON events(actor_id, seq);
   CREATE INDEX events_target ON events(target_id, seq);
   CREATE INDEX events_session ON events(session_id, seq);`,
  // 2: the actor_kind filter, and filter indexes that serve combined filters: each is ordered by
  // (column, seq) and carries type, time and outcome, so "newest first, filtered" is one index range
  // read backwards and counting is covered. Failures get a small partial index.
  `ALTER TABLE events ADD COLUMN actor_kind TEXT;
   UPDATE events SET actor_kind = json_extract(body, '$.actor.kind');
   DROP INDEX events_time;
   DROP INDEX events_type;
   DROP INDEX events_actor;
   DROP INDEX events_target;
   DROP INDEX events_session;
   CREATE INDEX events_time ON events(time_ms, seq, success);
   CREATE INDEX events_type ON events(type, seq, time_ms, success);
   CREATE INDEX events_actor ON events(actor_id, seq, type, time_ms, success);
   CREATE INDEX events_actor_kind ON events(actor_kind, seq, type, time_ms, success);
   CREATE INDEX events_target ON events(target_id, seq, type, time_ms, success);
   CREATE INDEX events_session ON events(session_id, seq, type, time_ms, success);
   CREATE INDEX events_failed ON events(seq) WHERE success = 0;`,
];

// ---- shared with the PostgreSQL store -------------------------------------------------------------

const MAX_SEQ = 9223372036854775807n; // both stores' seq is a signed 64-bit integer

/** The opaque form of a position in write order: base64url of the decimal seq. */
export function encodePosition(seq: number | bigint | string): string {
  return Buffer.from(String(seq), 'latin1').toString('base64url');
}

/** The decimal seq a cursor or tail position stands for; InvalidCursorError unless a store could have issued it. */
export function decodePosition(token: string, what = 'cursor'): string {
  const invalid = () => new InvalidCursorError(`the ${what} is not valid; use one returned by an earlier call`);
  if (typeof token !== 'string' || !/^[A-Za-z0-9_-]{1,32}$/.test(token)) throw invalid();
  const text = Buffer.from(token, 'base64url').toString('latin1');
  // Decoding base64url is lenient (ignores stray bits); requiring the canonical encoding back makes
  // every accepted token one that encodePosition produced.
  if (!/^(0|[1-9][0-9]{0,18})$/.test(text) || BigInt(text) > MAX_SEQ || encodePosition(text) !== token) {
    throw invalid();
  }
  return text;
}

/** Rejects a query no caller should build (the API validates its input before this). */
export function checkQuery(q: AuditQuery): void {
  const count = (name: string, v: unknown, required = false) => {
    if (v === undefined && !required) return;
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0)
      throw new RangeError(`audit query: ${name} must be a non-negative integer`);
  };
  count('limit', q.limit, true);
  count('offset', q.offset);
  count('countUpTo', q.countUpTo);
  for (const [name, v] of [
    ['from', q.from],
    ['to', q.to],
  ] as const) {
    if (v !== undefined && !Number.isFinite(v)) throw new RangeError(`audit query: ${name} must be a finite number`);
  }
}

export function checkTail(limit: number): void {
  if (!Number.isSafeInteger(limit) || limit < 0)
    throw new RangeError('audit tail: limit must be a non-negative integer');
}

export function checkDeleteBefore(timeMs: number, batchSize: number): void {
  if (!Number.isFinite(timeMs)) throw new RangeError('audit deleteBefore: timeMs must be a finite number');
  if (!Number.isSafeInteger(batchSize) || batchSize < 1)
    throw new RangeError('audit deleteBefore: batchSize must be a positive integer');
}

// ---------------------------------------------------------------------------------------------------

interface Row {
  seq: number;
  body: string;
}

export function openSqliteAuditStore(opts: {
  path: string;
  synchronous?: 'FULL' | 'NORMAL';
  /** Called with every SQL statement run, parameters filled in (tests check the query plans with it). */
  trace?: (sql: string) => void;
}): AuditStore {
  privateSqliteFile(opts.path); // 0600 with its -wal and -shm, whatever the data dir's mode
  const db = new Database(opts.path, opts.trace ? { verbose: (sql) => opts.trace?.(String(sql)) } : {});
  try {
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${opts.synchronous ?? 'FULL'}`);
    db.pragma('busy_timeout = 5000');
    runMigrations(db, 'audit', AUDIT_SQLITE_MIGRATIONS);
  } catch (error) {
    db.close();
    throw error;
  }

  const writer = openWriter(opts.path, opts.synchronous ?? 'FULL');

  // Queries differ only in which filters are present, so there are few distinct SQL texts.
  const statements = new Map<string, Database.Statement>();
  function statement(sql: string): Database.Statement {
    let s = statements.get(sql);
    if (!s) {
      if (statements.size >= 500) statements.clear();
      s = db.prepare(sql);
      statements.set(sql, s);
    }
    return s;
  }

  let closed = false;
  let closing: Promise<void> | undefined;

  // ---- reading ----------------------------------------------------------------------------------
  //
  // The plan is chosen here, not left to SQLite's planner (which has no statistics unless someone runs
  // ANALYZE), so that every query reads index ranges newest first and stops after the page:
  //   session_id, target, actor      their index, (column, seq, type, time_ms, success): seq order, and
  //                                  the type, time and outcome filters checked inside the index
  //   types                          one arm per exact type on (type, seq, time_ms, success), merged
  //                                  by seq (prefixes expand to the types present: one index seek each)
  //   actor_kind                     its index, like actor
  //   from/to                        (time_ms, seq, success): a small range is sorted by seq from the
  //                                  index alone; a large one that reaches the newest rows is read
  //                                  backwards by seq; otherwise the index range, sorted (top-N)
  //   success = false                a partial index of the failures
  //   nothing selective              the table itself, backwards by seq
  // Counting uses the same index, covering, and stops at countUpTo.

  interface Filters {
    /** Exact types to read as merged arms; undefined when there is no type filter. */
    types?: string[];
    /** The type condition as one range/OR expression (for a fallback when there are too many types). */
    typeRange?: { sql: string; params: unknown[] };
    /** Every other condition (not the type), over columns every filter index carries or the table has. */
    sql: string[];
    params: unknown[];
  }

  const firstType = db
    .prepare('SELECT type FROM events INDEXED BY events_type WHERE type >= ? AND type < ? ORDER BY type LIMIT 1')
    .pluck();
  const nextType = db
    .prepare('SELECT type FROM events INDEXED BY events_type WHERE type > ? AND type < ? ORDER BY type LIMIT 1')
    .pluck();
  const MAX_ARMS = 64;

  /** The distinct types stored under prefix, by skipping through the type index; undefined if too many. */
  function typesUnder(prefix: string, limit: number): string[] | undefined {
    const upper = prefixUpperBound(prefix);
    const found: string[] = [];
    let t = firstType.get(prefix, upper) as string | undefined;
    while (t !== undefined) {
      if (found.length >= limit) return undefined;
      found.push(t);
      t = nextType.get(t, upper) as string | undefined;
    }
    return found;
  }

  function filters(q: AuditQuery): Filters {
    const f: Filters = { sql: [], params: [] };
    const list = q.types ?? [];
    // "*" (an empty prefix) matches every type: no type filter at all.
    if (list.length > 0 && !list.includes('*')) {
      const rangeSql: string[] = [];
      const rangeParams: unknown[] = [];
      const exact = new Set<string>();
      let tooMany = false;
      for (const t of list) {
        if (t.endsWith('*')) {
          // A range, not LIKE: case-sensitive like exact matches, and served by the type index.
          const prefix = t.slice(0, -1);
          rangeSql.push('(type >= ? AND type < ?)');
          rangeParams.push(prefix, prefixUpperBound(prefix));
          const under = tooMany ? undefined : typesUnder(prefix, MAX_ARMS);
          if (under === undefined) tooMany = true;
          else for (const u of under) exact.add(u);
        } else {
          rangeSql.push('type = ?');
          rangeParams.push(t);
          exact.add(t);
        }
      }
      f.typeRange = {
        sql: rangeSql.length === 1 ? (rangeSql[0] as string) : `(${rangeSql.join(' OR ')})`,
        params: rangeParams,
      };
      if (!tooMany && exact.size <= MAX_ARMS) f.types = [...exact].sort();
    }
    const equal = (column: string, value: unknown) => {
      if (value === undefined) return;
      f.sql.push(`${column} = ?`);
      f.params.push(value);
    };
    equal('session_id', q.session_id);
    equal('target_id', q.target);
    equal('actor_id', q.actor);
    equal('actor_kind', q.actor_kind);
    // A literal, so that the partial index of failures applies.
    if (q.success !== undefined) f.sql.push(q.success ? 'success = 1' : 'success = 0');
    if (q.from !== undefined) {
      f.sql.push('time_ms >= ?');
      f.params.push(Math.ceil(q.from));
    }
    if (q.to !== undefined) {
      f.sql.push('time_ms <= ?');
      f.params.push(Math.floor(q.to));
    }
    return f;
  }

  type Access =
    | 'events_session'
    | 'events_target'
    | 'events_actor'
    | 'type'
    | 'events_actor_kind'
    | 'time'
    | 'failed'
    | 'table';

  function access(q: AuditQuery, f: Filters): Access {
    if (q.session_id !== undefined) return 'events_session';
    if (q.target !== undefined) return 'events_target';
    if (q.actor !== undefined) return 'events_actor';
    if (f.typeRange) return 'type';
    if (q.actor_kind !== undefined) return 'events_actor_kind';
    if (q.from !== undefined || q.to !== undefined) return 'time';
    if (q.success === false) return 'failed';
    return 'table';
  }

  const whereSql = (clauses: string[]) => (clauses.length > 0 ? `WHERE ${clauses.join(' AND ')}` : '');
  const SMALL_RANGE = 5000;

  function capped(sql: string, params: unknown[], cap: number): number {
    return (statement(`SELECT COUNT(*) AS n FROM (${sql} LIMIT ?)`).get(...params, cap) as { n: number }).n;
  }

  /** The page's rows, newest first: limit rows after skipping offset, below `before` if given. */
  function pageRows(q: AuditQuery, f: Filters, before: bigint | undefined, limit: number, offset: number): Row[] {
    const sql = [...f.sql];
    const params = [...f.params];
    if (before !== undefined) {
      sql.push('seq < ?');
      params.push(before);
    }
    const tail = offset > 0 ? 'LIMIT ? OFFSET ?' : 'LIMIT ?';
    const tailParams = offset > 0 ? [limit, offset] : [limit];
    const how = access(q, f);
    const select = (from: string, clauses: string[], p: unknown[]) =>
      statement(`SELECT seq, body FROM ${from} ${whereSql(clauses)} ORDER BY seq DESC ${tail}`).all(
        ...p,
        ...tailParams,
      ) as Row[];

    if (how === 'type') {
      if (f.types === undefined) {
        const range = f.typeRange as { sql: string; params: unknown[] };
        return select('events INDEXED BY events_type', [range.sql, ...sql], [...range.params, ...params]);
      }
      if (f.types.length === 0) return [];
      // One arm per type, each already in seq order: SQLite merges them (MERGE (UNION ALL)).
      const arm = `SELECT seq, body FROM events INDEXED BY events_type ${whereSql(['type = ?', ...sql])}`;
      const text = `${f.types.map(() => arm).join(' UNION ALL ')} ORDER BY 1 DESC ${tail}`;
      return statement(text).all(...f.types.flatMap((t) => [t, ...params]), ...tailParams) as Row[];
    }
    if (how === 'time') {
      const inRange = `SELECT 1 FROM events INDEXED BY events_time ${whereSql(sql)}`;
      let backwards = false;
      if (capped(inRange, params, SMALL_RANGE) >= SMALL_RANGE) {
        // Many rows match. If few rows are newer than the range, reading backwards by seq reaches
        // them at once; otherwise sort the range's seqs from the index (never the bodies).
        if (q.to === undefined) backwards = true;
        else {
          const newer = ['time_ms > ?', ...(before !== undefined ? ['seq < ?'] : [])];
          const newerParams = [Math.floor(q.to), ...(before !== undefined ? [before] : [])];
          backwards =
            capped(`SELECT 1 FROM events INDEXED BY events_time ${whereSql(newer)}`, newerParams, SMALL_RANGE) <
            SMALL_RANGE;
        }
      }
      if (backwards) return select('events NOT INDEXED', sql, params);
      const seqs = `SELECT seq FROM events INDEXED BY events_time ${whereSql(sql)} ORDER BY seq DESC ${tail}`;
      return statement(`SELECT seq, body FROM events WHERE seq IN (${seqs}) ORDER BY seq DESC`).all(
        ...params,
        ...tailParams,
      ) as Row[];
    }
    if (how === 'failed') return select('events INDEXED BY events_failed', sql, params);
    if (how === 'table') return select('events', sql, params);
    return select(`events INDEXED BY ${how}`, f.typeRange ? [f.typeRange.sql, ...sql] : sql, [
      ...(f.typeRange?.params ?? []),
      ...params,
    ]);
  }

  function count(q: AuditQuery, f: Filters, cap: number): number {
    const how = access(q, f);
    if (how === 'type') {
      if (f.types === undefined) {
        const range = f.typeRange as { sql: string; params: unknown[] };
        return capped(
          `SELECT 1 FROM events INDEXED BY events_type ${whereSql([range.sql, ...f.sql])}`,
          [...range.params, ...f.params],
          cap,
        );
      }
      if (f.types.length === 0) return 0;
      const arm = `SELECT 1 FROM events INDEXED BY events_type ${whereSql(['type = ?', ...f.sql])}`;
      return capped(
        f.types.map(() => arm).join(' UNION ALL '),
        (f.types as string[]).flatMap((t) => [t, ...f.params]),
        cap,
      );
    }
    const from =
      how === 'time'
        ? 'events INDEXED BY events_time'
        : how === 'failed'
          ? 'events INDEXED BY events_failed'
          : how === 'table'
            ? 'events'
            : `events INDEXED BY ${how}`;
    const clauses = f.typeRange ? [f.typeRange.sql, ...f.sql] : f.sql;
    return capped(`SELECT 1 FROM ${from} ${whereSql(clauses)}`, [...(f.typeRange?.params ?? []), ...f.params], cap);
  }

  return {
    append(events) {
      if (closed) return Promise.reject(new Error('audit store is closed'));
      return writer.append(events);
    },

    async query(q) {
      checkQuery(q);
      const before = q.cursor === undefined ? undefined : BigInt(decodePosition(q.cursor));
      const f = filters(q);
      // One row more than asked says whether there is a next page.
      const rows = pageRows(q, f, before, q.limit + 1, q.offset ?? 0);
      const more = rows.length > q.limit;
      if (more) rows.pop();
      const page: AuditPage = { events: rows.map((r) => JSON.parse(r.body) as AuditEvent) };
      if (q.countUpTo !== undefined) page.total = count(q, f, q.countUpTo);
      const last = rows[rows.length - 1];
      if (more && last) page.nextCursor = encodePosition(last.seq);
      return page;
    },

    async tail(position, limit) {
      checkTail(limit);
      const after = position === undefined ? undefined : decodePosition(position, 'tail position');
      const rows = (
        after === undefined
          ? statement('SELECT seq, body FROM events ORDER BY seq LIMIT ?').all(limit)
          : statement('SELECT seq, body FROM events WHERE seq > ? ORDER BY seq LIMIT ?').all(BigInt(after), limit)
      ) as Row[];
      const last = rows[rows.length - 1];
      return {
        events: rows.map((r) => JSON.parse(r.body) as AuditEvent),
        position: last ? encodePosition(last.seq) : position,
      };
    },

    async head() {
      const row = statement('SELECT max(seq) AS seq FROM events').get() as { seq: number | null };
      return row.seq === null ? undefined : encodePosition(row.seq);
    },

    async deleteBefore(timeMs, batchSize) {
      checkDeleteBefore(timeMs, batchSize);
      return statement(
        'DELETE FROM events WHERE seq IN (SELECT seq FROM events WHERE time_ms < ? ORDER BY time_ms, seq LIMIT ?)',
      ).run(Math.ceil(timeMs), batchSize).changes;
    },

    async ping() {
      db.prepare('SELECT 1').get();
    },

    close() {
      closing ??= (async () => {
        // Appends made while closing still commit; only then is the store closed.
        await writer.close();
        closed = true;
        db.close();
      })();
      return closing;
    },
  };
}
