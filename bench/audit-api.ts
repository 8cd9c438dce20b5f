// What durable audit events cost the request rate (npx tsx bench/audit-api.ts): POST /v1/agents (a
// state write, then its agent.created event, each durable before the answer) against two Gatehouses
// started alike on fresh data dirs, one with the audit store on PostgreSQL, one with a store that
// keeps nothing (bench/noop-audit-open.ts). Rounds alternate between them, BENCH_ROUNDS (3) of
// BENCH_SECONDS (10) each after a warm-up, BENCH_CONNECTIONS (50) connections; medians.
// Target (issue 13): PostgreSQL at most 15 % fewer requests/s than the no-op store.
// BENCH_PIN_POSTGRES=1 (a local PostgreSQL, run as root): PostgreSQL's processes on the last core, this
// bench, autocannon and both Gatehouses on the others, as when the audit database has a host of its
// own; without it, on a 2-core machine PostgreSQL's CPU per request is taken from Gatehouse's (affinity
// restored to all cores at the end).
// Knobs: BENCH_SECONDS, BENCH_ROUNDS, BENCH_WARMUP_SECONDS, BENCH_CONNECTIONS, BENCH_SERVER_NODE_ARGS
// (node options for both Gatehouses, e.g. --cpu-prof --cpu-prof-dir=/tmp/prof),
// GATEHOUSE_BENCH_POSTGRES_URL (else GATEHOUSE_TEST_POSTGRES_URL, else
// postgres://postgres@127.0.0.1:5432/test); the audit table goes in a fresh schema dropped afterwards.
// The exit code is 0 whether or not the target is met.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { type GatehouseAuditReady, READY_PREFIX } from './child-protocol.js';
import { intEnv, median } from './stats.js';

const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
const SECONDS = intEnv('BENCH_SECONDS', 10, 1);
const ROUNDS = intEnv('BENCH_ROUNDS', 3, 1);
const WARMUP_SECONDS = intEnv('BENCH_WARMUP_SECONDS', Math.min(3, SECONDS), 0);
const CONNECTIONS = intEnv('BENCH_CONNECTIONS', 50, 1);
const PG_URL =
  process.env.GATEHOUSE_BENCH_POSTGRES_URL ??
  process.env.GATEHOUSE_TEST_POSTGRES_URL ??
  'postgres://postgres@127.0.0.1:5432/test';
const RATIO_TARGET = 0.85;
const API_KEY = `bench-audit-${randomBytes(16).toString('hex')}`;

const children: ChildProcess[] = [];

/** CPU seconds (user + system) of a process, 0 once it is gone; Linux /proc. */
function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

const PIN_POSTGRES = process.env.BENCH_PIN_POSTGRES === '1';

function postgresPids(): number[] {
  return readdirSync('/proc')
    .filter((pid) => /^\d+$/.test(pid))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres';
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** CPU seconds of every PostgreSQL server process so far (other clients' work included). */
function postgresCpuSeconds(): number {
  return postgresPids().reduce((total, pid) => total + cpuSeconds(pid), 0);
}

/** Sets the CPU affinity of pids and their threads (taskset); new PostgreSQL backends inherit the postmaster's. */
function pin(pids: number[], cpuList: string): void {
  for (const pid of pids) execFileSync('taskset', ['-a', '-p', '-c', cpuList, String(pid)], { stdio: 'ignore' });
}

type Target = GatehouseAuditReady & { pid: number; mode: 'postgres' | 'noop' };

function spawnGatehouse(mode: 'postgres' | 'noop', auditUrl?: string): Promise<Target> {
  const dataDir = mkdtempSync(join(tmpdir(), `gatehouse-bench-audit-${mode}-`));
  const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const proc = spawn(
    process.execPath,
    [...nodeArgs, '--import', 'tsx', join(BENCH_DIR, 'serve-gatehouse-audit.ts'), dataDir],
    {
      cwd: resolve(BENCH_DIR, '..'),
      env: {
        ...process.env,
        BENCH_API_KEY: API_KEY,
        BENCH_AUDIT: mode,
        ...(auditUrl ? { BENCH_AUDIT_URL: auditUrl } : {}),
      },
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  children.push(proc);
  return new Promise((resolvePromise, reject) => {
    const lines = createInterface({ input: proc.stdout as NodeJS.ReadableStream });
    lines.on('line', (line) => {
      if (line.startsWith(READY_PREFIX)) {
        resolvePromise({
          ...(JSON.parse(line.slice(READY_PREFIX.length)) as GatehouseAuditReady),
          pid: proc.pid as number,
          mode,
        });
      } else process.stderr.write(`[${mode}] ${line}\n`);
    });
    proc.on('exit', (code) => reject(new Error(`the ${mode} Gatehouse exited before it was ready (${code})`)));
  });
}

let created = 0;

/** POST /v1/agents with a new name each time, for `seconds`; requests per second. */
/** Transactions committed in the bench's database so far (every client's; stats lag by up to a second). */
async function commits(): Promise<number> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>(
      'SELECT xact_commit AS n FROM pg_stat_database WHERE datname = current_database()',
    );
    return Number(rows[0]?.n ?? 0);
  } finally {
    await client.end();
  }
}

async function createAgents(target: Target, seconds: number) {
  const cpu0 = cpuSeconds(target.pid);
  const pg0 = postgresCpuSeconds();
  const commits0 = await commits();
  const result = await autocannon({
    url: target.url,
    connections: CONNECTIONS,
    duration: seconds,
    requests: [
      {
        method: 'POST',
        path: '/v1/agents',
        headers: { authorization: `Bearer ${target.token}`, 'content-type': 'application/json' },
        setupRequest: (req) => ({ ...req, body: JSON.stringify({ name: `bench-${(created++).toString(36)}` }) }),
      },
    ],
  });
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`POST /v1/agents: ${result.non2xx} non-2xx answers and ${result.errors} errors`);
  }
  // After the stats of the round's last commits are flushed (pgstat: at most every second).
  await new Promise((r) => setTimeout(r, 1100));
  const eventsPerCommit = result.requests.total / Math.max(1, (await commits()) - commits0 - 1);
  const perRequest = (seconds: number) => Math.round((seconds * 1e6) / Math.max(1, result.requests.total));
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    cpuUs: perRequest(cpuSeconds(target.pid) - cpu0),
    pgCpuUs: perRequest(postgresCpuSeconds() - pg0),
    eventsPerCommit,
  };
}

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

async function main(): Promise<void> {
  const schema = `gh_audit_api_bench_${randomBytes(4).toString('hex')}`;
  const auditUrl = `${PG_URL}${PG_URL.includes('?') ? '&' : '?'}schema=${schema}`;
  console.log('# What durable audit events cost POST /v1/agents\n');
  console.log(`- ${cpus().length} cores; Node ${process.version}; load average before: ${loadavg()[0]?.toFixed(2)}`);
  console.log(
    `- ${CONNECTIONS} connections, ${ROUNDS} × ${SECONDS} s per store, alternating; state store: embedded SQLite (FULL) in both`,
  );
  const n = cpus().length;
  const all = `0-${n - 1}`;
  try {
    if (PIN_POSTGRES) {
      if (n < 2) throw new Error('BENCH_PIN_POSTGRES needs 2 cores or more');
      pin(postgresPids(), String(n - 1));
      pin([process.pid], n === 2 ? '0' : `0-${n - 2}`);
      console.log(`- pinned: PostgreSQL on core ${n - 1}, this bench and the Gatehouses on the others`);
    } else
      console.log(
        `- PostgreSQL shares all ${n} cores with the Gatehouses and autocannon (BENCH_PIN_POSTGRES=1 separates them)`,
      );
    console.log('');

    const targets = {
      noop: await spawnGatehouse('noop'),
      postgres: await spawnGatehouse('postgres', auditUrl),
    };
    for (const t of Object.values(targets)) if (WARMUP_SECONDS > 0) await createAgents(t, WARMUP_SECONDS);
    const rounds: Record<keyof typeof targets, Array<Awaited<ReturnType<typeof createAgents>>>> = {
      noop: [],
      postgres: [],
    };
    for (let round = 1; round <= ROUNDS; round++) {
      for (const mode of ['noop', 'postgres'] as const) {
        const r = await createAgents(targets[mode], SECONDS);
        rounds[mode].push(r);
        console.log(
          `  round ${round} ${mode.padEnd(8)} ${Math.round(r.rps).toLocaleString('en-US')} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms; CPU per request: Gatehouse ${r.cpuUs} µs, PostgreSQL ${r.pgCpuUs} µs${mode === 'postgres' ? `; ${r.eventsPerCommit.toFixed(1)} requests per commit` : ''} (load ${loadavg()[0]?.toFixed(2)})`,
        );
      }
    }
    const rps = (mode: 'noop' | 'postgres') => median(rounds[mode].map((r) => r.rps));
    const ratio = rps('postgres') / rps('noop');
    console.log('\n| audit store | req/s (median) | rounds | Gatehouse CPU/req | PostgreSQL CPU/req |');
    console.log('| --- | ---: | ---: | ---: | ---: |');
    for (const mode of ['noop', 'postgres'] as const) {
      console.log(
        `| ${mode} | ${Math.round(rps(mode)).toLocaleString('en-US')} | ${rounds[mode].map((r) => Math.round(r.rps).toLocaleString('en-US')).join(', ')} | ${median(rounds[mode].map((r) => r.cpuUs))} µs | ${median(rounds[mode].map((r) => r.pgCpuUs))} µs |`,
      );
    }
    const fewer = (1 - ratio) * 100;
    // Each round's two stores ran back to back, under the same load from outside.
    const perRound = rounds.postgres.map((r, i) => 1 - r.rps / (rounds.noop[i] as { rps: number }).rps);
    console.log(
      `\nPostgreSQL: ${fewer.toFixed(1)} % fewer requests/s than no-op (target < ${Math.round((1 - RATIO_TARGET) * 100)} %: ${ratio >= RATIO_TARGET ? 'met' : 'NOT met'}); round by round ${perRound.map((f) => `${(f * 100).toFixed(1)} %`).join(', ')}, median ${(median(perRound) * 100).toFixed(1)} %.`,
    );
    console.log(`Load average after the run: ${loadavg()[0]?.toFixed(2)} (1 min).`);
  } finally {
    if (PIN_POSTGRES) pin([...postgresPids(), process.pid], all);
    await Promise.all(
      children.map(
        (proc) =>
          new Promise<void>((r) => {
            if (proc.exitCode !== null) return r();
            proc.once('exit', () => r());
            proc.kill('SIGTERM');
          }),
      ),
    );
    await admin(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch((e: unknown) => {
      console.error(`could not drop schema ${schema}: ${(e as Error).message}`);
    });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
