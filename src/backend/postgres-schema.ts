// The PostgreSQL state backend's tables and its one write function (see postgres.ts for the design).
//
//   state_kv        the live items (deleted rows are really deleted; expired ones wait for the sweeper)
//   state_changes   one row per revision: a put (value set) or a delete (value NULL) — the change log
//                   watchers catch up from, so a delete is seen even after its key is gone. Pruned by age.
//   state_revision  a single-row counter; its row lock is what serializes writers (below)
//
// state_apply runs a batch of jobs (each a list of conditions and operations) in one transaction: one
// round trip and one commit for everything queued in an event-loop turn. Each job runs in its own
// exception block (a subtransaction), so a failed condition or a value the database refuses undoes
// that job only. The first statement locks the counter row, so writers from every instance run one
// at a time and commit in revision order — a reader that sees revision N has seen all below it.
import { createHash } from 'node:crypto';
import type pg from 'pg';
import { applyMigrations, quote, lockKey as sharedLockKey } from '../lib/pg-migrate.js';

export { quote };
export const lockKey = (purpose: string, schema: string): string => sharedLockKey('state', purpose, schema);

/** LISTEN/NOTIFY channels are database-wide: one per schema, short enough for an identifier. */
export const channelFor = (schema: string): string =>
  `gatehouse_state_${createHash('sha256').update(schema).digest('hex').slice(0, 16)}`;

/** Schema versions, applied once each in order. Never edit a released entry; append a new one. */
function migrations(schema: string): string[] {
  const s = quote(schema);
  const channel = channelFor(schema);
  const live = '(expires_at IS NULL OR expires_at > now_ms)';
  const fail = "RAISE EXCEPTION USING ERRCODE = 'GH001', MESSAGE = keys[i]";
  return [
    `CREATE TABLE ${s}.state_kv (
       key TEXT COLLATE "C" PRIMARY KEY,
       value TEXT NOT NULL,
       revision BIGINT NOT NULL,
       expires_at BIGINT
     );
     CREATE INDEX state_kv_expires ON ${s}.state_kv (expires_at) WHERE expires_at IS NOT NULL;
     CREATE TABLE ${s}.state_changes (
       revision BIGINT PRIMARY KEY,
       key TEXT COLLATE "C" NOT NULL,
       value TEXT,
       expires_at BIGINT,
       at_ms BIGINT NOT NULL
     );
     CREATE INDEX state_changes_at ON ${s}.state_changes (at_ms);
     CREATE TABLE ${s}.state_revision (id INTEGER PRIMARY KEY CHECK (id = 1), value BIGINT NOT NULL);
     INSERT INTO ${s}.state_revision (id, value) VALUES (1, 0);
     CREATE FUNCTION ${s}.state_apply(
       now_ms BIGINT, starts INTEGER[], kinds TEXT[], keys TEXT[], vals TEXT[], nums BIGINT[]
     ) RETURNS TABLE (rev BIGINT, n INTEGER, reason TEXT, detail TEXT) LANGUAGE plpgsql AS $fn$
     #variable_conflict use_column
     DECLARE
       start_head BIGINT;
       head BIGINT;
       job_rev BIGINT;
       job_n INTEGER;
       found_rev BIGINT;
       k TEXT;
       last_i INTEGER;
       total INTEGER := coalesce(array_length(kinds, 1), 0);
     BEGIN
       -- The row lock, held to COMMIT, serializes writers: revisions are taken and committed in order.
       SELECT value INTO start_head FROM ${s}.state_revision WHERE id = 1 FOR UPDATE;
       head := start_head;
       FOR j IN 1 .. coalesce(array_length(starts, 1), 0) LOOP
         last_i := coalesce(starts[j + 1], total + 1) - 1;
         job_rev := head;
         job_n := 0;
         BEGIN
           FOR i IN starts[j] .. last_i LOOP
             CASE kinds[i]
             WHEN 'absent' THEN
               IF EXISTS (SELECT 1 FROM ${s}.state_kv WHERE key = keys[i] AND ${live}) THEN ${fail}; END IF;
             WHEN 'present' THEN
               IF NOT EXISTS (SELECT 1 FROM ${s}.state_kv WHERE key = keys[i] AND ${live}) THEN ${fail}; END IF;
             WHEN 'revision' THEN
               found_rev := NULL;
               SELECT revision INTO found_rev FROM ${s}.state_kv WHERE key = keys[i] AND ${live};
               IF found_rev IS DISTINCT FROM nums[i] THEN ${fail}; END IF;
             WHEN 'put' THEN
               job_rev := job_rev + 1;
               INSERT INTO ${s}.state_kv (key, value, revision, expires_at) VALUES (keys[i], vals[i], job_rev, nums[i])
                 ON CONFLICT (key) DO UPDATE
                 SET value = excluded.value, revision = excluded.revision, expires_at = excluded.expires_at;
               INSERT INTO ${s}.state_changes (revision, key, value, expires_at, at_ms)
                 VALUES (job_rev, keys[i], vals[i], nums[i], now_ms);
             WHEN 'delete', 'expire' THEN
               -- delete: the row, live or expired (conditions say whether it must be live);
               -- expire: the sweeper's delete, only if the row is still expired.
               DELETE FROM ${s}.state_kv
                 WHERE key = keys[i] AND (kinds[i] = 'delete' OR expires_at <= now_ms);
               IF FOUND THEN
                 job_rev := job_rev + 1;
                 INSERT INTO ${s}.state_changes (revision, key, at_ms) VALUES (job_rev, keys[i], now_ms);
               END IF;
             WHEN 'range' THEN
               -- deleteRange: the live keys in [keys[i], vals[i]).
               FOR k IN SELECT key FROM ${s}.state_kv
                        WHERE key >= keys[i] AND key < vals[i] AND ${live} ORDER BY key LOOP
                 DELETE FROM ${s}.state_kv WHERE key = k;
                 job_rev := job_rev + 1;
                 job_n := job_n + 1;
                 INSERT INTO ${s}.state_changes (revision, key, at_ms) VALUES (job_rev, k, now_ms);
               END LOOP;
             END CASE;
           END LOOP;
           head := job_rev;
           rev := job_rev; n := job_n; reason := NULL; detail := NULL;
           RETURN NEXT;
         EXCEPTION
           WHEN SQLSTATE 'GH001' THEN
             rev := NULL; n := 0; reason := 'compare_failed'; detail := SQLERRM;
             RETURN NEXT;
           WHEN OTHERS THEN
             rev := NULL; n := 0; reason := 'error'; detail := SQLERRM;
             RETURN NEXT;
         END;
       END LOOP;
       IF head > start_head THEN
         UPDATE ${s}.state_revision SET value = head WHERE id = 1;
         -- Delivered at COMMIT, to every instance listening; the payload is only a hint.
         PERFORM pg_notify('${channel}', head::text);
       END IF;
     END
     $fn$;`,
  ];
}

export const STATE_POSTGRES_SCHEMA_VERSION = migrations('public').length;

/** Creates the schema if needed and applies pending migrations, under a lock so instances may start at once. */
export const migrate = (pool: pg.Pool, schema: string): Promise<void> =>
  // Its own table, not the audit store's schema_migrations: both stores may share one schema.
  applyMigrations(pool, { store: 'state', schema, table: 'state_schema_migrations', migrations: migrations(schema) });
