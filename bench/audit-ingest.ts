// The audit store benchmark (npx tsx bench/audit-ingest.ts): the stores themselves, no HTTP.
//
//  1. Durable ingest: 50 concurrent producers, each appending one event at a time and waiting for
//     it to be durable (SQLite synchronous=FULL by default; PostgreSQL synchronous_commit as the
//     server has it), for BENCH_SECONDS (10) per round, BENCH_ROUNDS (3) rounds; events/s, median.
//  2. Query latency over BENCH_QUERY_EVENTS (1,000,000) events, loaded first in large batches:
//     query({ types: ['auth.*'], actor: X, limit: 50, countUpTo: 10000 }) for actors X among the
//     busiest ten, one query at a time; p50 and p99. Also a page deep in the same listing, reached by cursor.
//
// Targets (from the issue): ≥ 50,000 events/s on PostgreSQL with group commit; query p99 < 50 ms;
// and (issue 36) ≥ 0.8 × a bare COPY of the same rows into the same schema, measured in the same
// rounds (bench/audit-copy-reference.ts), printed round by round with the ratio.
// A producer waits for each append to be durable before the next, so with one event per append the
// rate cannot exceed PRODUCERS / (commit latency), and a commit costs at least one WAL flush: with
// fdatasync at 2.5 ms (pg_test_fsync on this VM) that is 20,000 events/s whatever the store does.
// Knobs: BENCH_PRODUCER_BATCH (1: events per append), BENCH_SECONDS, BENCH_ROUNDS, BENCH_QUERY_EVENTS, BENCH_QUERIES (500), BENCH_SQLITE_SYNCHRONOUS
// (FULL | NORMAL), GATEHOUSE_BENCH_POSTGRES_URL (else GATEHOUSE_TEST_POSTGRES_URL, else
// postgres://postgres@127.0.0.1:5432/test); BENCH_STORES=sqlite,postgres to run one of them;
// BENCH_PARTS=ingest,query likewise.
// PostgreSQL runs in a fresh schema that is dropped afterwards. The exit code is 0 whether or not
// the targets are met.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, platform, release, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import pg from 'pg';
import { openPostgresAuditStore } from '../src/audit/postgres.js';
import { openSqliteAuditStore } from '../src/audit/sqlite.js';
import type { AuditEvent, AuditQuery, AuditStore } from '../src/audit/types.js';
import { openCopyReference } from './audit-copy-reference.js';
import { ACTORS, actorId, TYPES } from './event-mix.js';
import { intEnv, median, RoundRatios } from './stats.js';

const SECONDS = intEnv('BENCH_SECONDS', 10, 1);
const ROUNDS = intEnv('BENCH_ROUNDS', 3, 1);
const QUERY_EVENTS = intEnv('BENCH_QUERY_EVENTS', 1_000_000, 1000);
const QUERIES = intEnv('BENCH_QUERIES', 500, 10);
const PRODUCERS = 50;
// Events per append: 1 is a request writing its event; larger is a producer that gathers events
// first, as the database proxy does with db.query events (one append per 5 ms).
const PRODUCER_BATCH = intEnv('BENCH_PRODUCER_BATCH', 1, 1);
const LOAD_BATCH = 10_000;
const SYNCHRONOUS = (process.env.BENCH_SQLITE_SYNCHRONOUS ?? 'FULL') as 'FULL' | 'NORMAL';
if (SYNCHRONOUS !== 'FULL' && SYNCHRONOUS !== 'NORMAL')
  throw new Error('BENCH_SQLITE_SYNCHRONOUS must be FULL or NORMAL');
const PG_URL =
  process.env.GATEHOUSE_BENCH_POSTGRES_URL ??
  process.env.GATEHOUSE_TEST_POSTGRES_URL ??
  'postgres://postgres@127.0.0.1:5432/test';
const STORES = (process.env.BENCH_STORES ?? 'sqlite,postgres').split(',').map((s) => s.trim());
const PARTS = (process.env.BENCH_PARTS ?? 'ingest,query').split(',').map((s) => s.trim());
const INGEST_TARGET = 50_000;
const P99_TARGET_MS = 50;

// ---- events ------------------------------------------------------------------------------------

function cumulative(weights: number[]): number[] {
  const total = weights.reduce((a, b) => a + b, 0);
  let acc = 0;
  return weights.map((w) => {
    acc += w / total;
    return acc;
  });
}
const typeCdf = cumulative(TYPES.map(([, w]) => w));
const actorCdf = cumulative(Array.from({ length: ACTORS }, (_, i) => 1 / (i + 1)));
const pickIndex = (cdf: number[], r: number) => {
  let lo = 0;
  let hi = cdf.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((cdf[mid] as number) < r) lo = mid + 1;
    else hi = mid;
  }
  return lo;
};

let seq = 0;
const runId = randomBytes(4).toString('hex');
function makeEvent(timeMs = Date.now()): AuditEvent {
  const n = seq++;
  const type = (TYPES[pickIndex(typeCdf, Math.random())] as [string, number])[0];
  const a = pickIndex(actorCdf, Math.random());
  const event: AuditEvent = {
    id: `evt_${runId}${n.toString(36).padStart(10, '0')}`,
    type,
    code: 'GH1000I',
    time: new Date(timeMs).toISOString(),
    actor: { kind: a % 5 === 4 ? 'agent' : 'user', id: actorId(a), name: `principal-${a}` },
    success: Math.random() < 0.95,
    remote_addr: `10.0.${n % 250}.${(n >> 8) % 250}`,
    request_id: `req_${n.toString(36)}`,
  };
  if (type.startsWith('session') || type.startsWith('recording'))
    event.session_id = `sess_${Math.floor(Math.random() * 50_000)}`;
  if (!type.startsWith('auth')) event.target = { kind: 'server', id: `srv_${Math.floor(Math.random() * 500)}` };
  if (type === 'auth.token.issued') event.data = { token_prefix: 'gha_', expires_in: 3600, scopes: ['api'] };
  return event;
}

// ---- stores ------------------------------------------------------------------------------------

interface Opened {
  store: AuditStore;
  /** Brings planner statistics up to date the way the running system would (PostgreSQL: autovacuum). */
  analyze(): Promise<string | undefined>;
  drop(): Promise<void>;
}

async function openStore(kind: string): Promise<Opened> {
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'gatehouse-audit-bench-'));
    const store = openSqliteAuditStore({ path: join(dir, 'audit.db'), synchronous: SYNCHRONOUS });
    return {
      store,
      analyze: async () => undefined, // the SQLite store runs no ANALYZE; its plans must not depend on one
      async drop() {
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const schema = `gh_audit_bench_${randomBytes(4).toString('hex')}`;
  const url = `${PG_URL}${PG_URL.includes('?') ? '&' : '?'}schema=${schema}`;
  const store = await openPostgresAuditStore({ url });
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  return {
    store,
    async analyze() {
      await admin(`VACUUM ANALYZE "${schema}".events`);
      return 'VACUUM ANALYZE after loading, as autovacuum does after a bulk insert';
    },
    async drop() {
      await store.close();
      await admin(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    },
  };
}

// ---- measurements ------------------------------------------------------------------------------

const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] as number;
};
const int = (n: number) => Math.round(n).toLocaleString('en-US');
const ms = (n: number) => `${n.toFixed(n < 10 ? 2 : 1)} ms`;

async function ingest(
  store: Pick<AuditStore, 'append'>,
  seconds: number,
): Promise<{ rate: number; failed: number; cpuUsPerEvent: number }> {
  let done = 0;
  let failed = 0;
  const deadline = performance.now() + seconds * 1000;
  const start = performance.now();
  const cpu = process.cpuUsage();
  await Promise.all(
    Array.from({ length: PRODUCERS }, async () => {
      while (performance.now() < deadline) {
        try {
          await store.append(Array.from({ length: PRODUCER_BATCH }, () => makeEvent()));
          done += PRODUCER_BATCH;
        } catch {
          failed++;
        }
      }
    }),
  );
  const used = process.cpuUsage(cpu);
  return {
    rate: done / ((performance.now() - start) / 1000),
    failed,
    cpuUsPerEvent: done > 0 ? (used.user + used.system) / done : Number.NaN,
  };
}

async function load(store: AuditStore, count: number): Promise<number> {
  const start = performance.now();
  // Times spread over the last 30 days, ascending in write order.
  const first = Date.now() - 30 * 86_400_000;
  const step = (30 * 86_400_000) / count;
  let next = 0;
  let lastReport = start;
  // Two batches in flight: one being written, one being built and queued.
  let inFlight: Promise<void> | undefined;
  while (next < count) {
    const size = Math.min(LOAD_BATCH, count - next);
    const batch = Array.from({ length: size }, (_, i) => makeEvent(first + (next + i) * step));
    next += size;
    const write = store.append(batch);
    if (inFlight) await inFlight;
    inFlight = write;
    if (performance.now() - lastReport > 5000) {
      lastReport = performance.now();
      process.stdout.write(`    loaded ${int(next)} of ${int(count)}\n`);
    }
  }
  await inFlight;
  return (performance.now() - start) / 1000;
}

interface QueryResult {
  p50: number;
  p99: number;
  deepP50: number;
  deepP99: number;
  meanTotal: number;
  meanEvents: number;
}

async function queryLatency(store: AuditStore): Promise<QueryResult> {
  const busiest = Array.from({ length: 10 }, (_, i) => actorId(i));
  const q = (i: number): AuditQuery => ({
    types: ['auth.*'],
    actor: busiest[i % busiest.length] as string,
    limit: 50,
    countUpTo: 10_000,
  });
  for (let i = 0; i < 30; i++) await store.query(q(i)); // warm-up
  const times: number[] = [];
  let totals = 0;
  let returned = 0;
  for (let i = 0; i < QUERIES; i++) {
    const t0 = performance.now();
    const page = await store.query(q(i));
    times.push(performance.now() - t0);
    totals += page.total ?? 0;
    returned += page.events.length;
  }
  // Page 100 of the same listings, by cursor (the cursor found first, not timed).
  const deep: number[] = [];
  for (let i = 0; i < Math.min(QUERIES, 100); i++) {
    const base = q(i);
    let cursor: string | undefined;
    for (let p = 0; p < 99; p++) {
      const page = await store.query({ ...base, countUpTo: undefined, ...(cursor ? { cursor } : {}) });
      cursor = page.nextCursor;
      if (!cursor) break;
    }
    if (!cursor) continue;
    const t0 = performance.now();
    await store.query({ ...base, cursor });
    deep.push(performance.now() - t0);
  }
  return {
    p50: percentile(times, 50),
    p99: percentile(times, 99),
    deepP50: deep.length ? percentile(deep, 50) : Number.NaN,
    deepP99: deep.length ? percentile(deep, 99) : Number.NaN,
    meanTotal: totals / QUERIES,
    meanEvents: returned / QUERIES,
  };
}

function table(header: string[], rows: string[][], align: Array<'l' | 'r'>): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => (align[i] === 'r' ? c.padStart(widths[i] as number) : c.padEnd(widths[i] as number))).join(' | ')} |`;
  const rule = `| ${widths.map((w, i) => (align[i] === 'r' ? `${'-'.repeat(w - 1)}:` : '-'.repeat(w))).join(' | ')} |`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}

// ---- main --------------------------------------------------------------------------------------

async function postgresVersion(): Promise<string> {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3000 });
  await client.connect();
  try {
    const r = await client.query<{ v: string; sc: string }>(
      "SELECT current_setting('server_version') AS v, current_setting('synchronous_commit') AS sc",
    );
    return `PostgreSQL ${r.rows[0]?.v} (synchronous_commit=${r.rows[0]?.sc})`;
  } finally {
    await client.end();
  }
}

/**
 * PostgreSQL ingest against its ceiling (issue 36): round by round, a bare COPY of the same rows into
 * a schema Gatehouse's store made (bench/audit-copy-reference.ts), then Gatehouse's store, in
 * alternating order; the ratio of each round, and this process's CPU per event for both.
 */
async function postgresIngestAgainstCopy(ingestRows: string[][]): Promise<void> {
  console.log('## postgres: ingest, Gatehouse against a bare COPY of the same rows');
  const opened = await openStore('postgres');
  const refSchema = `gh_audit_bench_ref_${randomBytes(4).toString('hex')}`;
  const made = await openPostgresAuditStore({ url: PG_URL, schema: refSchema });
  await made.close();
  const reference = await openCopyReference(PG_URL, refSchema);
  const ratios = new RoundRatios('Gatehouse / bare COPY', '≥ 0.8');
  const rates: number[] = [];
  const refRates: number[] = [];
  try {
    await ingest(reference, Math.min(2, SECONDS)); // warm-up, both
    await ingest(opened.store, Math.min(2, SECONDS));
    for (let round = 1; round <= ROUNDS; round++) {
      const order = round % 2 === 1 ? (['ref', 'gh'] as const) : (['gh', 'ref'] as const);
      const got: Record<string, Awaited<ReturnType<typeof ingest>>> = {};
      for (const who of order) got[who] = await ingest(who === 'ref' ? reference : opened.store, SECONDS);
      const gh = got.gh as Awaited<ReturnType<typeof ingest>>;
      const ref = got.ref as Awaited<ReturnType<typeof ingest>>;
      rates.push(gh.rate);
      refRates.push(ref.rate);
      console.log(
        `${ratios.add(gh.rate, ref.rate)}: bare COPY ${int(ref.rate)}, Gatehouse ${int(gh.rate)} events/s` +
          `${gh.failed + ref.failed ? `, ${gh.failed + ref.failed} failed appends` : ''}; this process's CPU per event ` +
          `${ref.cpuUsPerEvent.toFixed(1)} vs ${gh.cpuUsPerEvent.toFixed(1)} µs`,
      );
    }
  } finally {
    await reference.close();
    await opened.drop();
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${refSchema}" CASCADE`).finally(() => client.end());
  }
  console.log(`  ${ratios.summary()}`);
  ingestRows.push([
    'postgres',
    int(median(rates)),
    rates.map(int).join(', '),
    `bare COPY ${int(median(refRates))}; ratio ${ratios.median.toFixed(2)} (≥ 0.8: ${ratios.median >= 0.8 ? 'met' : 'NOT met'}); ≥ ${int(INGEST_TARGET)}: ${median(rates) >= INGEST_TARGET ? 'met' : 'NOT met'}`,
  ]);
}

async function ingestPart(kind: string, ingestRows: string[][]): Promise<void> {
  if (kind === 'postgres') return postgresIngestAgainstCopy(ingestRows);
  console.log(`## ${kind}: ingest`);
  const opened = await openStore(kind);
  const rates: number[] = [];
  try {
    await ingest(opened.store, Math.min(2, SECONDS)); // warm-up
    for (let round = 1; round <= ROUNDS; round++) {
      const r = await ingest(opened.store, SECONDS);
      rates.push(r.rate);
      console.log(`  round ${round}: ${int(r.rate)} events/s${r.failed ? `, ${r.failed} failed appends` : ''}`);
    }
  } finally {
    await opened.drop();
  }
  const med = median(rates);
  ingestRows.push([
    kind,
    int(med),
    rates.map(int).join(', '),
    kind === 'postgres' ? `≥ ${int(INGEST_TARGET)}: ${med >= INGEST_TARGET ? 'met' : 'NOT met'}` : '–',
  ]);
}

async function queryPart(kind: string, queryRows: string[][]): Promise<void> {
  console.log(`## ${kind}: query latency over ${int(QUERY_EVENTS)} events`);
  const q = await openStore(kind);
  try {
    const seconds = await load(q.store, QUERY_EVENTS);
    console.log(
      `  loaded ${int(QUERY_EVENTS)} events in ${seconds.toFixed(1)} s (${int(QUERY_EVENTS / seconds)} events/s)`,
    );
    const note = await q.analyze();
    if (note) console.log(`  ${note}`);
    const r = await queryLatency(q.store);
    console.log(
      `  p50 ${ms(r.p50)}, p99 ${ms(r.p99)}; mean total ${int(r.meanTotal)}, mean page ${r.meanEvents.toFixed(1)} events; page 100 by cursor p50 ${ms(r.deepP50)}, p99 ${ms(r.deepP99)}`,
    );
    queryRows.push([
      kind,
      `${seconds.toFixed(1)} s`,
      ms(r.p50),
      ms(r.p99),
      `${ms(r.deepP50)} / ${ms(r.deepP99)}`,
      `< ${P99_TARGET_MS} ms: ${r.p99 < P99_TARGET_MS ? 'met' : 'NOT met'}`,
    ]);
  } finally {
    await q.drop();
  }
}

async function main(): Promise<void> {
  const cpu = cpus();
  console.log('# Gatehouse audit store benchmark\n');
  console.log(`- CPU: ${cpu[0]?.model.trim() ?? 'unknown'} × ${cpu.length} cores`);
  console.log(`- Memory: ${(totalmem() / 2 ** 30).toFixed(1)} GiB; OS: ${platform()} ${release()}`);
  const sqliteVersion = (new Database(':memory:').prepare('SELECT sqlite_version() AS v').get() as { v: string }).v;
  console.log(`- Node ${process.version}; SQLite ${sqliteVersion} (synchronous=${SYNCHRONOUS}, WAL)`);
  let stores = STORES;
  if (stores.includes('postgres')) {
    try {
      console.log(`- ${await postgresVersion()}, same machine`);
    } catch (error) {
      console.log(`- PostgreSQL unreachable (${(error as Error).message}); skipping it`);
      stores = stores.filter((s) => s !== 'postgres');
    }
  }
  console.log(`- Load average before the run: ${loadavg()[0]?.toFixed(2)} (1 min)`);
  console.log(
    `- Ingest: ${PRODUCERS} producers × ${PRODUCER_BATCH === 1 ? 'one event' : `${PRODUCER_BATCH} events`} at a time, ${ROUNDS} × ${SECONDS} s; query: ${int(QUERY_EVENTS)} events, ${QUERIES} queries\n`,
  );

  const ingestRows: string[][] = [];
  const queryRows: string[][] = [];
  for (const kind of stores) {
    if (PARTS.includes('ingest')) await ingestPart(kind, ingestRows);
    if (PARTS.includes('query')) await queryPart(kind, queryRows);
    console.log('');
  }

  console.log(`## Results\n`);
  console.log(`Durable ingest, ${PRODUCERS} producers (median of ${ROUNDS} × ${SECONDS} s)\n`);
  console.log(table(['store', 'events/s', 'rounds', 'target'], ingestRows, ['l', 'r', 'r', 'l']));
  console.log(
    `\nquery({ types: ['auth.*'], actor: <one of the 10 busiest>, limit: 50, countUpTo: 10000 }) over ${int(QUERY_EVENTS)} events\n`,
  );
  console.log(
    table(
      ['store', `load ${int(QUERY_EVENTS)}`, 'p50', 'p99', 'page 100 by cursor p50 / p99', 'target (p99)'],
      queryRows,
      ['l', 'r', 'r', 'r', 'r', 'l'],
    ),
  );
  console.log(`\nLoad average after the run: ${loadavg()[0]?.toFixed(2)} (1 min).`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
