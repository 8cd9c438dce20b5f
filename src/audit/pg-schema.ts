// The PostgreSQL audit store's schema (versioned migrations, run once under an advisory lock) and
// how an event becomes a row and back.
import type pg from 'pg';
import { applyMigrations, quote, lockKey as sharedLockKey } from '../lib/pg-migrate.js';
import type { AuditEvent } from './types.js';

export const lockKey = (purpose: string, schema: string): string => sharedLockKey('audit', purpose, schema);
export { quote };

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
    // Version 2: the rows as ONE json parameter. node-postgres escapes array parameters element by
    // element in JavaScript, which cost more per event than everything PostgreSQL does with them
    // (bench/audit-ingest.ts; README, audit store ingest); JSON.stringify is native. json (not jsonb)
    // is only validated on input, and json_to_recordset parses each row once.
    `CREATE FUNCTION ${s}.append_events_json(rows JSON) RETURNS void LANGUAGE plpgsql AS $fn$
     BEGIN
       -- Writers draw seqs and commit one at a time (see src/audit/postgres.ts).
       PERFORM pg_advisory_xact_lock(${appendLock});
       INSERT INTO ${s}.events (id, time_ms, type, actor_id, actor_kind, target_id, session_id, success, body)
       SELECT r.i, r.t, r.y, r.a, r.k, r.g, r.s, r.ok, r.b
       FROM ROWS FROM (json_to_recordset(rows)
         AS (i TEXT, t BIGINT, y TEXT, a TEXT, k TEXT, g TEXT, s TEXT, ok BOOLEAN, b JSONB))
         WITH ORDINALITY AS r(i, t, y, a, k, g, s, ok, b, n)
       ORDER BY r.n;
     END
     $fn$;`,
  ];
}

export const AUDIT_POSTGRES_SCHEMA_VERSION = migrations('public').length;

export const migrate = (pool: Pick<pg.Pool, 'connect'>, schema: string): Promise<void> =>
  applyMigrations(pool, { store: 'audit', schema, table: 'schema_migrations', migrations: migrations(schema) });

// jsonb cannot hold U+0000 or a lone surrogate (JSON.stringify writes them as \u0000 and \udXXX
// escapes), and text columns cannot hold U+0000. Such an event is still stored losslessly: its JSON
// text goes into the body as one jsonb string, and its filter columns get U+FFFD in place of U+0000
// (a filter containing U+0000 matches nothing here; see where()).
const UNSTORABLE_IN_JSONB = /\\u0000|\\ud[89a-f][0-9a-f]{2}/i;
export const RAW_KEY = '$gatehouse_json';

export function encodeBody(e: AuditEvent): string {
  const json = JSON.stringify(e);
  return UNSTORABLE_IN_JSONB.test(json) ? JSON.stringify({ [RAW_KEY]: json }) : json;
}

export function decodeBody(body: AuditEvent | { [RAW_KEY]: string }): AuditEvent {
  return RAW_KEY in body && typeof body[RAW_KEY] === 'string'
    ? (JSON.parse(body[RAW_KEY]) as AuditEvent)
    : (body as AuditEvent);
}

// Lone surrogates become U+FFFD too: UTF-8 cannot carry them (the text parameters of where() are
// converted the same way, so filters still match).
export const column = (v: string | undefined): string | null =>
  v === undefined ? null : (v as string & { toWellFormed(): string }).toWellFormed().replaceAll('\u0000', '\ufffd');

/** The append_events_json parameter: one JSON array, each event's body spliced in as already encoded. */
export function rowsJson(events: AuditEvent[]): string {
  const parts: string[] = [];
  for (const e of events) {
    const cols = JSON.stringify({
      i: column(e.id),
      t: Date.parse(e.time),
      y: column(e.type),
      a: column(e.actor.id),
      k: column(e.actor.kind),
      g: column(e.target?.id),
      s: column(e.session_id),
      ok: e.success,
    });
    parts.push(`${cols.slice(0, -1)},"b":${encodeBody(e)}}`);
  }
  return `[${parts.join(',')}]`;
}
