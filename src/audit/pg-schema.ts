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
    // (bench/audit-ingest.ts; docs/operations.md, audit store ingest); JSON.stringify is native. json (not jsonb)
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
    partitionByTime(schema),
    // Version 4: the append lock as a procedure, so that a COPY and the lock go in one Query message
    // (src/audit/pg-copy.ts): CALL returns no rows, which a COPY stream could not take.
    `CREATE PROCEDURE ${s}.lock_events_for_append() LANGUAGE plpgsql AS $fn$
     BEGIN
       -- Writers draw seqs and commit one at a time (see src/audit/postgres.ts).
       PERFORM pg_advisory_xact_lock(${appendLock});
     END
     $fn$;`,
  ];
}

/** Partition width: a week, Monday 00:00 UTC to the next (1970-01-05, four days after the epoch, was a Monday). */
export const PARTITION_MS = 7 * 86_400_000;
export const PARTITION_ORIGIN_MS = 4 * 86_400_000;

/**
 * Version 3: events range-partitioned by time_ms, one partition per UTC week from Monday
 * (events_YYYYMMDD, the Monday's date) and a default partition (events_default) for events no week
 * partition covers yet, so an insert never fails. Retention then drops whole weeks
 * (drop_events_partitions_before) and deletes in batches only in the week that straddles the cutoff
 * and in the default partition. Weeks, not days: a query without a time range plans and opens every
 * partition (365 day partitions cost ~100 ms a query in bench/audit-query-large.ts), and with no
 * retention they accumulate.
 *
 * An existing table is converted in this migration's transaction: a partition for every week that
 * has events, the rows moved with their seq, the seq sequence handed over. Cursors and tail positions
 * are seqs, so they stay valid; appends wait on the append lock meanwhile (moving costs about as much
 * as writing the rows once, plus the index builds).
 *
 * A partitioned table's unique constraints must contain the partition key: seq is the primary key
 * with time_ms, and an id is unique with its time. A retried event (after a lost commit) and a
 * duplicated append carry the same id and time, so both are still refused; two different events
 * sharing an id but not a time are not (ids carry 70 random bits). Each partition's indexes are named
 * after the parent's (events_actor_20261123), so plans read as before.
 */
function partitionByTime(schema: string): string {
  const s = quote(schema);
  const appendLock = lockKey('append', schema);
  return `
    -- No append runs while the table changes (appends take this lock first, then the table's).
    SELECT pg_advisory_xact_lock(${appendLock});
    CREATE TABLE ${s}.events_partitioned (
      seq BIGINT NOT NULL DEFAULT nextval(${literal(`${s}.events_seq_seq`)}),
      id TEXT COLLATE "C" NOT NULL,
      time_ms BIGINT NOT NULL,
      type TEXT COLLATE "C" NOT NULL,
      actor_id TEXT COLLATE "C",
      actor_kind TEXT COLLATE "C",
      target_id TEXT COLLATE "C",
      session_id TEXT COLLATE "C",
      success BOOLEAN NOT NULL,
      body JSONB NOT NULL
    ) PARTITION BY RANGE (time_ms);
    CREATE TABLE ${s}.events_default PARTITION OF ${s}.events_partitioned DEFAULT;
    DO $do$
    DECLARE
      week BIGINT;
    BEGIN
      FOR week IN
        SELECT DISTINCT floor((time_ms - ${PARTITION_ORIGIN_MS}) / ${PARTITION_MS}.0)::bigint * ${PARTITION_MS} + ${PARTITION_ORIGIN_MS}
        FROM ${s}.events ORDER BY 1
      LOOP
        EXECUTE format('CREATE TABLE %I.%I PARTITION OF %I.events_partitioned FOR VALUES FROM (%s) TO (%s)',
          ${literal(schema)}, 'events_' || to_char(to_timestamp(week / 1000) AT TIME ZONE 'UTC', 'YYYYMMDD'),
          ${literal(schema)}, week, week + ${PARTITION_MS});
      END LOOP;
    END
    $do$;
    -- Rows first, indexes after: building an index over loaded rows is cheaper than growing it.
    INSERT INTO ${s}.events_partitioned SELECT seq, id, time_ms, type, actor_id, actor_kind, target_id, session_id, success, body FROM ${s}.events;
    ALTER SEQUENCE ${s}.events_seq_seq OWNED BY ${s}.events_partitioned.seq;
    DROP TABLE ${s}.events;
    ALTER TABLE ${s}.events_partitioned RENAME TO events;
    ALTER TABLE ${s}.events ADD CONSTRAINT events_pkey PRIMARY KEY (seq, time_ms);
    ALTER TABLE ${s}.events ADD CONSTRAINT events_id_key UNIQUE (id, time_ms);
    -- The same filter indexes as before (see version 1): with a time filter, partitions outside the
    -- range are skipped at planning; within one, the (column, seq, …) order still gives "newest first"
    -- without a sort.
    CREATE INDEX events_time ON ${s}.events (time_ms, seq, success);
    CREATE INDEX events_type ON ${s}.events (type, seq, time_ms, success);
    CREATE INDEX events_actor ON ${s}.events (actor_id, seq, type, time_ms, success);
    CREATE INDEX events_actor_kind ON ${s}.events (actor_kind, seq, type, time_ms, success);
    CREATE INDEX events_target ON ${s}.events (target_id, seq, type, time_ms, success);
    CREATE INDEX events_session ON ${s}.events (session_id, seq, type, time_ms, success);
    CREATE INDEX events_failed ON ${s}.events (seq) WHERE NOT success;

    -- Each partition's indexes renamed after the parent's: events_actor_20261123, events_pkey_default.
    CREATE FUNCTION ${s}.name_events_partition_indexes(part TEXT) RETURNS void LANGUAGE plpgsql AS $fn$
    DECLARE
      r RECORD;
    BEGIN
      FOR r IN
        SELECT child.relname AS child, parent.relname AS parent
        FROM pg_index x
        JOIN pg_class child ON child.oid = x.indexrelid
        JOIN pg_inherits i ON i.inhrelid = child.oid
        JOIN pg_class parent ON parent.oid = i.inhparent
        WHERE x.indrelid = format('%I.%I', ${literal(schema)}, part)::regclass
      LOOP
        IF r.child <> r.parent || '_' || substr(part, 8) THEN
          EXECUTE format('ALTER INDEX %I.%I RENAME TO %I', ${literal(schema)}, r.child, r.parent || '_' || substr(part, 8));
        END IF;
      END LOOP;
    END
    $fn$;
    SELECT ${s}.name_events_partition_indexes(c.relname)
    FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = ${literal(`${s}.events`)}::regclass;

    -- Makes the partition of the UTC week starting at week_ms unless it exists; events of that week
    -- that went to the default partition meanwhile move into it. Returns whether it made one.
    CREATE FUNCTION ${s}.ensure_events_partition(week_ms BIGINT) RETURNS boolean LANGUAGE plpgsql AS $fn$
    DECLARE
      part TEXT := 'events_' || to_char(to_timestamp(week_ms / 1000) AT TIME ZONE 'UTC', 'YYYYMMDD');
      stray BOOLEAN;
    BEGIN
      IF (week_ms - ${PARTITION_ORIGIN_MS}) % ${PARTITION_MS} <> 0 THEN
        RAISE EXCEPTION 'ensure_events_partition: % is not the start of a UTC week (Monday)', week_ms;
      END IF;
      IF to_regclass(format('%I.%I', ${literal(schema)}, part)) IS NOT NULL THEN
        RETURN false;
      END IF;
      -- Serialised with appends and with other instances doing the same.
      PERFORM pg_advisory_xact_lock(${appendLock});
      IF to_regclass(format('%I.%I', ${literal(schema)}, part)) IS NOT NULL THEN
        RETURN false;
      END IF;
      -- Creating a partition locks the whole table: behind a long reader, give up (appends wait on
      -- the append lock meanwhile) and let the next check try again.
      PERFORM set_config('lock_timeout', '1s', true);
      SELECT EXISTS (SELECT 1 FROM ${s}.events_default WHERE time_ms >= week_ms AND time_ms < week_ms + ${PARTITION_MS})
        INTO stray;
      IF stray THEN
        CREATE TEMP TABLE gatehouse_moving_events ON COMMIT DROP AS
          WITH gone AS (
            DELETE FROM ${s}.events_default WHERE time_ms >= week_ms AND time_ms < week_ms + ${PARTITION_MS} RETURNING *
          ) SELECT * FROM gone;
      END IF;
      EXECUTE format('CREATE TABLE %I.%I PARTITION OF %I.events FOR VALUES FROM (%s) TO (%s)',
        ${literal(schema)}, part, ${literal(schema)}, week_ms, week_ms + ${PARTITION_MS});
      PERFORM ${s}.name_events_partition_indexes(part);
      IF stray THEN
        INSERT INTO ${s}.events SELECT * FROM gatehouse_moving_events;
        DROP TABLE gatehouse_moving_events;
      END IF;
      RETURN true;
    END
    $fn$;

    -- Drops the partitions whose whole week is older than cutoff_ms; returns how many events they
    -- held. The default partition and the week that straddles the cutoff are left to batched deletes.
    CREATE FUNCTION ${s}.drop_events_partitions_before(cutoff_ms BIGINT) RETURNS bigint LANGUAGE plpgsql AS $fn$
    DECLARE
      r RECORD;
      n BIGINT;
      total BIGINT := 0;
    BEGIN
      FOR r IN
        SELECT c.relname AS part,
               substring(pg_get_expr(c.relpartbound, c.oid) FROM 'TO \\(''?(-?[0-9]+)''?\\)')::bigint AS upper
        FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = ${literal(`${s}.events`)}::regclass AND c.relname <> 'events_default'
        ORDER BY 2 NULLS FIRST
      LOOP
        -- A bound not read (NULL) stops here too: never drop what is not known to be old.
        EXIT WHEN r.upper IS NULL OR r.upper > cutoff_ms;
        EXECUTE format('SELECT count(*) FROM %I.%I', ${literal(schema)}, r.part) INTO n;
        -- DROP locks the whole table, and appends queue behind that request: behind a long reader,
        -- stop here (batched deletes go on; the next sweep tries again).
        BEGIN
          PERFORM set_config('lock_timeout', '1s', true);
          EXECUTE format('DROP TABLE %I.%I', ${literal(schema)}, r.part);
        EXCEPTION WHEN lock_not_available THEN
          EXIT;
        END;
        total := total + n;
      END LOOP;
      RETURN total;
    END
    $fn$;`;
}

/** A SQL string literal. */
const literal = (v: string) => `'${v.replace(/'/g, "''")}'`;

export const AUDIT_POSTGRES_SCHEMA_VERSION = migrations('public').length;

/** The migrations, for a test that builds a store as an older Gatehouse left it. */
export const auditMigrations = migrations;

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
