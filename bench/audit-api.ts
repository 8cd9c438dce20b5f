// What durable audit events cost the request rate (npx tsx bench/audit-api.ts): POST /v1/agents (a
// state write, then its agent.created event, each durable before the answer) against two Gatehouses
// started alike on fresh data dirs, one with the audit store on PostgreSQL, one with a store that
// keeps nothing (bench/noop-audit-open.ts). Rounds alternate between them, BENCH_ROUNDS (3) of
// BENCH_SECONDS (10) each after a warm-up, BENCH_CONNECTIONS (50) connections; medians.
// Target (issue 13): PostgreSQL at most 15 % fewer requests/s than the no-op store.
// Knobs: BENCH_SECONDS, BENCH_ROUNDS, BENCH_WARMUP_SECONDS, BENCH_CONNECTIONS,
// GATEHOUSE_BENCH_POSTGRES_URL (else GATEHOUSE_TEST_POSTGRES_URL, else
// postgres://postgres@127.0.0.1:5432/test); the audit table goes in a fresh schema dropped afterwards.
// The exit code is 0 whether or not the target is met.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
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

function spawnGatehouse(mode: 'postgres' | 'noop', auditUrl?: string): Promise<GatehouseAuditReady> {
  const dataDir = mkdtempSync(join(tmpdir(), `gatehouse-bench-audit-${mode}-`));
  const proc = spawn(process.execPath, ['--import', 'tsx', join(BENCH_DIR, 'serve-gatehouse-audit.ts'), dataDir], {
    cwd: resolve(BENCH_DIR, '..'),
    env: {
      ...process.env,
      BENCH_API_KEY: API_KEY,
      BENCH_AUDIT: mode,
      ...(auditUrl ? { BENCH_AUDIT_URL: auditUrl } : {}),
    },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  children.push(proc);
  return new Promise((resolvePromise, reject) => {
    const lines = createInterface({ input: proc.stdout as NodeJS.ReadableStream });
    lines.on('line', (line) => {
      if (line.startsWith(READY_PREFIX)) resolvePromise(JSON.parse(line.slice(READY_PREFIX.length)));
      else process.stderr.write(`[${mode}] ${line}\n`);
    });
    proc.on('exit', (code) => reject(new Error(`the ${mode} Gatehouse exited before it was ready (${code})`)));
  });
}

let created = 0;

/** POST /v1/agents with a new name each time, for `seconds`; requests per second. */
async function createAgents(target: GatehouseAuditReady, seconds: number) {
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
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 };
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
    `- ${CONNECTIONS} connections, ${ROUNDS} × ${SECONDS} s per store, alternating; state store: embedded SQLite (FULL) in both\n`,
  );
  try {
    const targets = {
      noop: await spawnGatehouse('noop'),
      postgres: await spawnGatehouse('postgres', auditUrl),
    };
    for (const t of Object.values(targets)) if (WARMUP_SECONDS > 0) await createAgents(t, WARMUP_SECONDS);
    const rounds: Record<keyof typeof targets, Array<{ rps: number; p50: number; p99: number }>> = {
      noop: [],
      postgres: [],
    };
    for (let round = 1; round <= ROUNDS; round++) {
      for (const mode of ['noop', 'postgres'] as const) {
        const r = await createAgents(targets[mode], SECONDS);
        rounds[mode].push(r);
        console.log(
          `  round ${round} ${mode.padEnd(8)} ${Math.round(r.rps).toLocaleString('en-US')} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms (load ${loadavg()[0]?.toFixed(2)})`,
        );
      }
    }
    const rps = (mode: 'noop' | 'postgres') => median(rounds[mode].map((r) => r.rps));
    const ratio = rps('postgres') / rps('noop');
    console.log('\n| audit store | req/s (median) | rounds |');
    console.log('| --- | ---: | ---: |');
    for (const mode of ['noop', 'postgres'] as const) {
      console.log(
        `| ${mode} | ${Math.round(rps(mode)).toLocaleString('en-US')} | ${rounds[mode].map((r) => Math.round(r.rps).toLocaleString('en-US')).join(', ')} |`,
      );
    }
    const fewer = (1 - ratio) * 100;
    console.log(
      `\nPostgreSQL: ${fewer.toFixed(1)} % fewer requests/s than no-op (target < ${Math.round((1 - RATIO_TARGET) * 100)} %: ${ratio >= RATIO_TARGET ? 'met' : 'NOT met'}).`,
    );
    console.log(`Load average after the run: ${loadavg()[0]?.toFixed(2)} (1 min).`);
  } finally {
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
