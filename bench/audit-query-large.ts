// Audit query latency on a large PostgreSQL table (npx tsx bench/audit-query-large.ts): the issue's
// "query p99 < 50 ms on 10M events with two filters", and what partitioning by week changes.
//
//  1. BENCH_LARGE_EVENTS (10,000,000) events over the last BENCH_LARGE_DAYS (30) days, generated
//     straight in SQL (INSERT … SELECT generate_series, in chunks), not through the API: the same
//     type mix and Zipf actors as bench/audit-ingest.ts, write order = time order.
//  2. With BENCH_LARGE_LAYOUT=both (default): first into a store as schema version 2 left it (one
//     table), queries timed there; then the store opens, which converts it (schema version 3, timed),
//     and the same queries are timed on the week partitions. BENCH_LARGE_LAYOUT=partitioned loads
//     into the partitioned table directly.
//  3. Queries, one at a time, BENCH_QUERIES (200) each, actor among the ten busiest, limit 50:
//     - two filters: types ['auth.*'] + actor, countUpTo 10,000 (as bench/audit-ingest.ts);
//     - two filters and a time range: type auth.token.issued + actor, one day a week ago, countUpTo 10,000;
//     - two filters, page 20 by cursor (the cursor found first, not timed).
//     p50 and p99 (ms); after VACUUM ANALYZE, as autovacuum would do after a bulk load.
// GATEHOUSE_BENCH_POSTGRES_URL (else GATEHOUSE_TEST_POSTGRES_URL, else
// postgres://postgres@127.0.0.1:5432/test); a fresh schema, dropped afterwards (BENCH_KEEP=1 keeps it).
import { randomBytes } from 'node:crypto';
import { cpus, loadavg, totalmem } from 'node:os';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { partitionStart } from '../src/audit/pg-partitions.js';
import { queryEvents } from '../src/audit/pg-read.js';
import { auditMigrations, PARTITION_MS } from '../src/audit/pg-schema.js';
import { openPostgresAuditStore } from '../src/audit/postgres.js';
import type { AuditPage, AuditQuery } from '../src/audit/types.js';
import { applyMigrations, quote } from '../src/lib/pg-migrate.js';
import { ACTORS, actorId, TYPES } from './event-mix.js';
import { intEnv } from './stats.js';

const EVENTS = intEnv('BENCH_LARGE_EVENTS', 10_000_000, 1000);
const DAYS = intEnv('BENCH_LARGE_DAYS', 30, 1);
const QUERIES = intEnv('BENCH_QUERIES', 200, 10);
const CHUNK = 500_000;
const LAYOUT = process.env.BENCH_LARGE_LAYOUT ?? 'both';
if (LAYOUT !== 'both' && LAYOUT !== 'partitioned') throw new Error('BENCH_LARGE_LAYOUT must be both or partitioned');
const PG_URL =
  process.env.GATEHOUSE_BENCH_POSTGRES_URL ??
  process.env.GATEHOUSE_TEST_POSTGRES_URL ??
  'postgres://postgres@127.0.0.1:5432/test';
const P99_TARGET_MS = 50;
const DAY = 86_400_000;

/** A lookup table of `slots` entries, each value appearing in proportion to its weight (SQL picks one at random). */
function slots<T>(values: Array<[T, number]>, count: number): T[] {
  const total = values.reduce((a, [, w]) => a + w, 0);
  const out: T[] = [];
  let acc = 0;
  for (const [v, w] of values) {
    acc += w;
    while (out.length < Math.round((acc / total) * count)) out.push(v);
  }
  return out;
}
const typeSlots = slots(TYPES, 10_000);
const actorSlots = slots(
  Array.from({ length: ACTORS }, (_, i): [number, number] => [i, 1 / (i + 1)]),
  100_000,
);

/** Rows lo..hi (1-based, inclusive) of the generated events, in one statement. */
function insertSql(s: string): string {
  // Volatile picks in the innermost subquery: evaluated once per row, then used by the columns and the body.
  return `
    INSERT INTO ${s}.events (id, time_ms, type, actor_id, actor_kind, target_id, session_id, success, body)
    SELECT id, t, ty, a, k, tg, se, ok,
      jsonb_build_object('id', id, 'type', ty, 'code', 'GH1000I',
        'time', to_char(to_timestamp(t / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
        'actor', jsonb_build_object('kind', k, 'id', a, 'name', 'principal-' || ai),
        'success', ok, 'remote_addr', '10.0.' || (g % 250) || '.' || ((g >> 8) % 250), 'request_id', 'req_' || g)
      || CASE WHEN tg IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('target', jsonb_build_object('kind', 'server', 'id', tg)) END
      || CASE WHEN se IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('session_id', se) END
    FROM (
      SELECT g, id, t, ty, ai, ok,
             ($5::text[])[ai + 1] AS a, CASE WHEN ai % 5 = 4 THEN 'agent' ELSE 'user' END AS k,
             CASE WHEN ty LIKE 'auth.%' THEN NULL ELSE 'srv_' || tn END AS tg,
             CASE WHEN ty LIKE 'session.%' OR ty LIKE 'recording.%' THEN 'sess_' || sn END AS se
      FROM (
        SELECT g, 'evt_bench' || lpad(g::text, 12, '0') AS id, ($6::bigint + g * $7::float8)::bigint AS t,
               ($3::text[])[1 + floor(random() * ${typeSlots.length})::int] AS ty,
               ($4::int[])[1 + floor(random() * ${actorSlots.length})::int] AS ai,
               random() < 0.95 AS ok, floor(random() * 50000)::int AS sn, floor(random() * 500)::int AS tn
        FROM generate_series($1::bigint, $2::bigint) AS g
      ) AS picked
    ) AS rows
    ORDER BY g`;
}

const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] as number;
};
const int = (n: number) => Math.round(n).toLocaleString('en-US');
const ms = (n: number) => `${n.toFixed(n < 10 ? 2 : 1)} ms`;

interface Timing {
  name: string;
  p50: number;
  p99: number;
  meanTotal: number;
}

async function timeQueries(run: (q: AuditQuery) => Promise<AuditPage>, now: number): Promise<Timing[]> {
  const busiest = Array.from({ length: 10 }, (_, i) => actorId(i));
  const shapes: Array<[string, (i: number) => AuditQuery]> = [
    [
      "types ['auth.*'] + actor, countUpTo 10000",
      (i) => ({ types: ['auth.*'], actor: busiest[i % 10] as string, limit: 50, countUpTo: 10_000 }),
    ],
    [
      'type auth.token.issued + actor + one day a week ago, countUpTo 10000',
      (i) => ({
        types: ['auth.token.issued'],
        actor: busiest[i % 10] as string,
        from: now - 7 * DAY,
        to: now - 6 * DAY,
        limit: 50,
        countUpTo: 10_000,
      }),
    ],
  ];
  const out: Timing[] = [];
  for (const [name, q] of shapes) {
    for (let i = 0; i < 20; i++) await run(q(i)); // warm-up
    const times: number[] = [];
    let totals = 0;
    for (let i = 0; i < QUERIES; i++) {
      const t0 = performance.now();
      const page = await run(q(i));
      times.push(performance.now() - t0);
      totals += page.total ?? 0;
    }
    out.push({ name, p50: percentile(times, 50), p99: percentile(times, 99), meanTotal: totals / QUERIES });
  }
  // Page 20 of the first listing, by cursor.
  const deep: number[] = [];
  for (let i = 0; i < Math.min(QUERIES, 50); i++) {
    const base: AuditQuery = { types: ['auth.*'], actor: busiest[i % 10] as string, limit: 50 };
    let cursor: string | undefined;
    for (let p = 0; p < 19 && (p === 0 || cursor); p++) {
      cursor = (await run({ ...base, ...(cursor ? { cursor } : {}) })).nextCursor;
    }
    if (!cursor) continue;
    const t0 = performance.now();
    await run({ ...base, cursor });
    deep.push(performance.now() - t0);
  }
  out.push({
    name: "types ['auth.*'] + actor, page 20 by cursor",
    p50: percentile(deep, 50),
    p99: percentile(deep, 99),
    meanTotal: Number.NaN,
  });
  return out;
}

function report(layout: string, timings: Timing[]): void {
  for (const t of timings) {
    const met = t.p99 < P99_TARGET_MS ? 'met' : 'NOT met';
    const total = Number.isNaN(t.meanTotal) ? '' : `, mean total ${int(t.meanTotal)}`;
    console.log(
      `  ${layout} | ${t.name}: p50 ${ms(t.p50)}, p99 ${ms(t.p99)}${total} (p99 < ${P99_TARGET_MS} ms: ${met})`,
    );
  }
}

async function main(): Promise<void> {
  const schema = `gh_audit_bench_large_${randomBytes(4).toString('hex')}`;
  const s = quote(schema);
  const pool = new pg.Pool({ connectionString: PG_URL, max: 4 });
  const now = Date.now();
  const first = now - DAYS * DAY;
  const step = (DAYS * DAY) / EVENTS;
  const version = await pool.query<{ v: string }>("SELECT current_setting('server_version') AS v");
  console.log('# Gatehouse audit query latency on a large table\n');
  console.log(
    `- CPU: ${cpus()[0]?.model.trim() ?? 'unknown'} × ${cpus().length}; memory ${(totalmem() / 2 ** 30).toFixed(1)} GiB`,
  );
  console.log(`- PostgreSQL ${version.rows[0]?.v}; Node ${process.version}`);
  console.log(
    `- Load average before: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(', ')}`,
  );
  console.log(`- ${int(EVENTS)} events over ${DAYS} days; ${QUERIES} queries per shape; layout ${LAYOUT}\n`);
  let store: Awaited<ReturnType<typeof openPostgresAuditStore>> | undefined;
  const url = `${PG_URL}${PG_URL.includes('?') ? '&' : '?'}schema=${schema}`;
  try {
    if (LAYOUT === 'both') {
      await applyMigrations(pool, {
        store: 'audit',
        schema,
        table: 'schema_migrations',
        migrations: auditMigrations(schema).slice(0, 2),
      });
    } else {
      store = await openPostgresAuditStore({ url });
      for (let start = partitionStart(first); start <= now; start += PARTITION_MS) {
        await pool.query(`SELECT ${s}.ensure_events_partition($1)`, [start]);
      }
    }
    const loadStart = performance.now();
    const client = await pool.connect();
    try {
      await client.query('SET synchronous_commit = off'); // loading only; the store's commits are untouched
      for (let lo = 1; lo <= EVENTS; lo += CHUNK) {
        const hi = Math.min(EVENTS, lo + CHUNK - 1);
        await client.query(insertSql(s), [
          lo,
          hi,
          typeSlots,
          actorSlots,
          Array.from({ length: ACTORS }, (_, i) => actorId(i)),
          first,
          step,
        ]);
        const secs = (performance.now() - loadStart) / 1000;
        console.log(`  generated ${int(hi)} of ${int(EVENTS)} (${secs.toFixed(0)} s, ${int(hi / secs)} rows/s)`);
      }
    } finally {
      client.release();
    }
    const loadSeconds = (performance.now() - loadStart) / 1000;
    const size = await pool.query<{ size: string }>(
      `SELECT pg_size_pretty(sum(pg_total_relation_size(c.oid))) AS size FROM pg_class c
       JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r'`,
      [schema],
    );
    console.log(`  loaded in ${loadSeconds.toFixed(0)} s; tables and indexes ${size.rows[0]?.size}`);

    if (LAYOUT === 'both') {
      await pool.query(`VACUUM ANALYZE ${s}.events`);
      console.log(`## one table (schema version 2), load average ${loadavg()[0]?.toFixed(2)}`);
      report('one table', await timeQueries((q) => queryEvents(pool, s, q), now));
      const t0 = performance.now();
      store = await openPostgresAuditStore({ url });
      const migrateSeconds = (performance.now() - t0) / 1000;
      console.log(`## converted to week partitions (schema version 3) in ${migrateSeconds.toFixed(1)} s`);
    }
    await pool.query(`VACUUM ANALYZE ${s}.events`);
    const parts = await pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_inherits WHERE inhparent = format('%I.events', $1::text)::regclass`,
      [schema],
    );
    console.log(`## week partitions (${parts.rows[0]?.n} partitions), load average ${loadavg()[0]?.toFixed(2)}`);
    const opened = store as NonNullable<typeof store>;
    report('partitioned', await timeQueries((q) => opened.query(q), now));
    console.log(
      `\nLoad average after: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(', ')}`,
    );
  } finally {
    await store?.close();
    if (process.env.BENCH_KEEP !== '1') await pool.query(`DROP SCHEMA IF EXISTS ${s} CASCADE`);
    else console.log(`kept schema ${schema}`);
    await pool.end();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
