// The embedded audit store: events in one SQLite table, committed in groups (one fsync per
// event-loop turn, however many requests wrote), each append resolving only once durable.
import Database from 'better-sqlite3';
import { prefixUpperBound } from '../lib/prefix-range.js';
import { runMigrations } from '../lib/sqlite-migrations.js';
import type { AuditEvent, AuditQuery, AuditStore } from './types.js';

const MIGRATIONS = [
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
];

interface Pending {
  events: AuditEvent[];
  resolve: () => void;
  reject: (e: unknown) => void;
}

export function openSqliteAuditStore(opts: { path: string; synchronous?: 'FULL' | 'NORMAL' }): AuditStore {
  const db = new Database(opts.path);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${opts.synchronous ?? 'FULL'}`);
    db.pragma('busy_timeout = 5000');
    runMigrations(db, 'audit', MIGRATIONS);
  } catch (error) {
    db.close();
    throw error;
  }

  const insert = db.prepare(
    'INSERT INTO events (id, time_ms, type, actor_id, target_id, session_id, success, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const insertAll = db.transaction((batches: Pending[]) => {
    for (const batch of batches) {
      for (const e of batch.events) {
        insert.run(
          e.id,
          Date.parse(e.time),
          e.type,
          e.actor.id ?? null,
          e.target?.id ?? null,
          e.session_id ?? null,
          e.success ? 1 : 0,
          JSON.stringify(e),
        );
      }
    }
  });

  let queue: Pending[] = [];
  let scheduled = false;
  let closed = false;

  function flush(): void {
    scheduled = false;
    const batches = queue;
    queue = [];
    if (batches.length === 0) return;
    try {
      insertAll(batches);
    } catch {
      // One caller's bad batch must not fail the others: retry each batch in its own transaction.
      for (const b of batches) {
        try {
          insertAll([b]);
          b.resolve();
        } catch (error) {
          b.reject(error);
        }
      }
      return;
    }
    for (const b of batches) b.resolve();
  }

  function where(q: AuditQuery): { sql: string; params: unknown[] } {
    const clauses: string[] = [];
    const params: unknown[] = [];
    if (q.types && q.types.length > 0) {
      const ors = q.types.map((t) => {
        if (t.endsWith('*')) {
          // A range, not LIKE: case-sensitive like exact matches, and served by the type index.
          const prefix = t.slice(0, -1);
          params.push(prefix, prefixUpperBound(prefix));
          return '(type >= ? AND type < ?)';
        }
        params.push(t);
        return 'type = ?';
      });
      clauses.push(`(${ors.join(' OR ')})`);
    }
    if (q.actor !== undefined) {
      clauses.push('actor_id = ?');
      params.push(q.actor);
    }
    if (q.target !== undefined) {
      clauses.push('target_id = ?');
      params.push(q.target);
    }
    if (q.success !== undefined) {
      clauses.push('success = ?');
      params.push(q.success ? 1 : 0);
    }
    if (q.from !== undefined) {
      clauses.push('time_ms >= ?');
      params.push(q.from);
    }
    if (q.to !== undefined) {
      clauses.push('time_ms <= ?');
      params.push(q.to);
    }
    return { sql: clauses.length > 0 ? `WHERE ${clauses.join(' AND ')}` : '', params };
  }

  return {
    append(events) {
      if (closed) return Promise.reject(new Error('audit store is closed'));
      if (events.length === 0) return Promise.resolve();
      return new Promise((resolve, reject) => {
        queue.push({ events, resolve, reject });
        if (!scheduled) {
          scheduled = true;
          setImmediate(flush);
        }
      });
    },
    async query(q) {
      const w = where(q);
      const rows = db
        .prepare(`SELECT body FROM events ${w.sql} ORDER BY seq DESC LIMIT ? OFFSET ?`)
        .all(...w.params, q.limit, q.offset) as Array<{ body: string }>;
      const total = (db.prepare(`SELECT COUNT(*) AS n FROM events ${w.sql}`).get(...w.params) as { n: number }).n;
      return { events: rows.map((r) => JSON.parse(r.body) as AuditEvent), total };
    },
    async ping() {
      db.prepare('SELECT 1').get();
    },
    async close() {
      if (closed) return;
      while (queue.length > 0 || scheduled) await new Promise((r) => setImmediate(r));
      closed = true;
      db.close();
    },
  };
}
