// The agent benchmark: `npx tsx bench/agents.ts`.
//
//  1. Credential issuance per second: POST /v1/agents/{id}/credentials with type=token, then
//     type=jwt (EdDSA via jose), 50 connections from autocannon, BENCH_ROUNDS rounds (3) of
//     BENCH_SECONDS (5) each after a warm-up; the table reports the median round. Every issuance
//     is a durable write (credential record + secret) and a durable audit event.
//  2. Kill-switch latency: from sending PATCH /v1/agents/{id} {status: suspended} to the first 401
//     on a token the agent holds, which a client keeps presenting back-to-back meanwhile;
//     BENCH_TRIALS trials (100), p50 and p99.
//
// Gatehouse runs in a child process (this same file, argument `serve`) on a fresh data dir, so the
// load generator does not share its event loop. Targets (issue 5): ≥ 2,000 JWT/s; revocation
// p99 < 100 ms. The exit code is 0 whether or not they are met. Knobs: BENCH_SECONDS, BENCH_ROUNDS,
// BENCH_TRIALS, BENCH_CONNECTIONS (50), BENCH_SQLITE_SYNCHRONOUS (FULL | NORMAL). Each issuance
// waits for two group commits in turn (the credential, then its audit event), so with a fixed number
// of connections the rate is bound by commit latency more than by CPU (signing runs on the libuv
// pool, concurrently with the credential's write).
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pino from 'pino';
import { loadConfig } from '../src/config/load.js';
import { startGatehouse } from '../src/server.js';
import { exitOnParentGone, READY_PREFIX } from './child-protocol.js';
import { median } from './stats.js';

const API_KEY = 'bench-agents-bootstrap-key-0123456789-abcdefghij';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const TRIALS = Number(process.env.BENCH_TRIALS ?? 100);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);

interface Ready {
  url: string;
  token: string;
  /** Issued credentials by the ten thousand. */
  agentId: string;
  /** Suspended and reactivated, holding one token at a time (as an agent usually does). */
  killAgentId: string;
}

async function call(url: string, method: string, token: string | undefined, body?: unknown) {
  const res = await fetch(url, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

// ---------------------------------------------------------------------------------------------
// Child: a real Gatehouse with one agent whose limits do not get in the way

async function serve(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-bench-agents-'));
  const config = loadConfig({
    env: {},
    overrides: {
      data_dir: dataDir,
      auth_addr: '127.0.0.1:0',
      web_addr: '127.0.0.1:0',
      db_addr: '127.0.0.1:0',
      metrics_enabled: false,
      bootstrap_api_key: API_KEY,
      log_level: 'warn',
      ...(process.env.BENCH_SQLITE_SYNCHRONOUS ? { 'sqlite.synchronous': process.env.BENCH_SQLITE_SYNCHRONOUS } : {}),
    },
  });
  const gatehouse = await startGatehouse(config, { logger: pino({ level: 'warn' }, pino.destination(2)) });
  exitOnParentGone(async () => {
    await gatehouse.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const url = gatehouse.authUrl as string;
  const token = (await call(`${url}/v1/auth/token`, 'POST', undefined, { api_key: API_KEY })).json
    .access_token as string;
  const agent = await call(`${url}/v1/agents`, 'POST', token, {
    name: 'bench-bot',
    roles: ['auditor'],
    rate_limit: { requests_per_minute: 1_000_000, credentials_per_minute: 1_000_000 },
  });
  const killAgent = await call(`${url}/v1/agents`, 'POST', token, { name: 'bench-kill', roles: ['auditor'] });
  const ready: Ready = { url, token, agentId: agent.json.id as string, killAgentId: killAgent.json.id as string };
  process.stdout.write(`${READY_PREFIX}${JSON.stringify(ready)}\n`);
}

// ---------------------------------------------------------------------------------------------
// Parent: load, trials, table

function spawnServer(): Promise<{ proc: ChildProcess; ready: Ready }> {
  const proc = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), 'serve'], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: proc.stdout as NodeJS.ReadableStream });
    lines.on('line', (line) => {
      if (line.startsWith(READY_PREFIX)) resolve({ proc, ready: JSON.parse(line.slice(READY_PREFIX.length)) });
      else process.stderr.write(`[server] ${line}\n`);
    });
    proc.on('exit', (code) => reject(new Error(`server exited early (${code})`)));
  });
}

const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] as number;
};

async function issuance(ready: Ready, body: Record<string, unknown>, seconds: number) {
  const result = await autocannon({
    url: `${ready.url}/v1/agents/${ready.agentId}/credentials`,
    method: 'POST',
    connections: CONNECTIONS,
    duration: seconds,
    headers: { authorization: `Bearer ${ready.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`issuance: ${result.non2xx} non-2xx answers and ${result.errors} errors`);
  }
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 };
}

/** Milliseconds from sending the suspension to the first 401 on a held token. */
async function killLatency(ready: Ready): Promise<number> {
  const agentUrl = `${ready.url}/v1/agents/${ready.killAgentId}`;
  const issued = await call(`${agentUrl}/credentials`, 'POST', ready.token, {});
  const held = issued.json.access_token as string;
  let sentAt = 0;
  let refusedAt = 0;
  let stop = false;
  const presenter = (async () => {
    while (!stop) {
      const res = await fetch(`${ready.url}/v1/events?per_page=1`, { headers: { authorization: `Bearer ${held}` } });
      await res.arrayBuffer();
      if (res.status === 401) {
        refusedAt = performance.now();
        return;
      }
      if (res.status !== 200) throw new Error(`held token answered ${res.status}`);
    }
  })();
  await new Promise((r) => setTimeout(r, 5));
  sentAt = performance.now();
  const patch = await call(agentUrl, 'PATCH', ready.token, { status: 'suspended' });
  if (patch.status !== 200) throw new Error(`suspend: ${patch.status}`);
  await Promise.race([presenter, new Promise((r) => setTimeout(r, 5000))]);
  stop = true;
  if (refusedAt === 0) throw new Error('the held token was not refused within 5 s');
  const back = await call(agentUrl, 'PATCH', ready.token, { status: 'active' });
  if (back.status !== 200) throw new Error(`reactivate: ${back.status}`);
  return refusedAt - sentAt;
}

async function main(): Promise<void> {
  const { proc, ready } = await spawnServer();
  try {
    const rows: string[][] = [];
    for (const [label, body, target] of [
      ['issue type=token (req/s)', { type: 'token', ttl: 300 }, undefined],
      ['issue type=jwt (req/s)', { type: 'jwt', audience: 'bench', ttl: 300 }, 2000],
    ] as const) {
      await issuance(ready, body, Math.min(2, SECONDS)); // warm-up
      const rounds = [];
      for (let i = 0; i < ROUNDS; i++) rounds.push(await issuance(ready, body, SECONDS));
      const rps = median(rounds.map((r) => r.rps));
      rows.push([
        label,
        rps.toFixed(0),
        `p50 ${median(rounds.map((r) => r.p50))} ms, p99 ${median(rounds.map((r) => r.p99))} ms`,
        rounds.map((r) => r.rps.toFixed(0)).join(' / '),
        target === undefined ? '—' : `≥ ${target}: ${rps >= target ? 'met' : 'NOT met'}`,
      ]);
    }
    const latencies: number[] = [];
    for (let i = 0; i < TRIALS; i++) latencies.push(await killLatency(ready));
    const p99 = percentile(latencies, 99);
    rows.push([
      `suspend → first 401 (ms, ${TRIALS} trials)`,
      median(latencies).toFixed(1),
      `p99 ${p99.toFixed(1)} ms, max ${Math.max(...latencies).toFixed(1)} ms`,
      '—',
      `p99 < 100: ${p99 < 100 ? 'met' : 'NOT met'}`,
    ]);

    const header = ['measure', 'median', 'latency', 'rounds', 'target'];
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
    const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] as number)).join(' | ')} |`;
    process.stdout.write(
      [
        `gatehouse agent benchmark — ${cpus().length} CPUs, node ${process.version}, ${CONNECTIONS} connections, ${ROUNDS}×${SECONDS} s`,
        line(header),
        `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`,
        ...rows.map(line),
        '',
      ].join('\n'),
    );
  } finally {
    proc.stdin?.end();
    proc.kill('SIGTERM');
  }
}

if (process.argv[2] === 'serve') {
  serve().catch((e: unknown) => {
    process.stderr.write(`bench serve: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  });
} else {
  main().catch((e: unknown) => {
    process.stderr.write(`bench: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  });
}
