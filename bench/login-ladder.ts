// Where a login's distance from the minimal durable login goes (issue 36): the reference
// (bench/serve-minimal-login.ts) with Gatehouse's features added one at a time (BENCH_LOGIN_ADD:
// audit-thread, bound, change-feed, pipeline), each rung holding the ones before it, and
// Gatehouse itself, in the same rounds. Each rung's CPU per login (every thread of its process) less
// the rung below it is what that feature costs done as simply as it can be; what is left between the
// top rung and Gatehouse is Gatehouse's own way of doing the same work.
// Usage: npm run bench:logins, with BENCH_SECONDS (5) and BENCH_ROUNDS (5: the six targets take
// turns, and the machine drifts between them). Loopback only; each run stops by itself.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { type GatehouseReady, READY_PREFIX } from './child-protocol.js';
import { intEnv, loadNow, median, processCpuSeconds, RoundRatios } from './stats.js';

const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
const SECONDS = intEnv('BENCH_SECONDS', 5, 1);
const ROUNDS = intEnv('BENCH_ROUNDS', 5, 1);
const CONNECTIONS = 50;
// No savepoints rung: since 5a33e7b the state store runs a batch's jobs straight and pays for a
// savepoint per job only when one fails after it wrote, which no login does.
const RUNGS = ['', 'audit-thread', 'bound', 'change-feed', 'pipeline'];

const children: ChildProcess[] = [];
const dirs: string[] = [];

function start<T>(script: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ proc: ChildProcess; info: T }> {
  const proc = spawn(process.execPath, ['--import', 'tsx', join(BENCH_DIR, script), ...args], {
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  children.push(proc);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${script} was not ready after 120 s`)), 120_000);
    createInterface({ input: proc.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      if (!line.startsWith(READY_PREFIX)) return;
      clearTimeout(timer);
      resolve({ proc, info: JSON.parse(line.slice(READY_PREFIX.length)) as T });
    });
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited before it was ready (code ${code})`));
    });
  });
}

async function post(url: string, body: unknown, token?: string): Promise<Record<string, string>> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`POST ${url}: ${res.status} ${text}`);
  return JSON.parse(text) as Record<string, string>;
}

interface Target {
  label: string;
  url: string;
  proc: ChildProcess;
  cpu: number[];
  rate: number[];
}

async function hit(t: Target, body: string, seconds: number): Promise<{ rate: number; cpuUs: number }> {
  const before = processCpuSeconds(t.proc.pid);
  const result = await autocannon({
    url: `${t.url}/v1/auth/token`,
    method: 'POST',
    connections: CONNECTIONS,
    duration: seconds,
    headers: { 'content-type': 'application/json' },
    body,
  });
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${t.label}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  const used = processCpuSeconds(t.proc.pid) - before;
  return { rate: result.requests.average, cpuUs: (used * 1e6) / result.requests.total };
}

async function main(): Promise<void> {
  console.log('# Logins: the minimal durable login with Gatehouse features added one at a time\n');
  console.log(`- ${cpus()[0]?.model.trim()} × ${cpus().length}; Node ${process.version}; load ${loadNow().toFixed(2)}`);
  console.log(`- ${CONNECTIONS} connections, ${ROUNDS} rounds of ${SECONDS} s per target, interleaved\n`);
  const data = mkdtempSync(join(tmpdir(), 'gatehouse-ladder-'));
  dirs.push(data);
  const bootstrap = `bench-${randomBytes(24).toString('hex')}`;
  const gh = await start<GatehouseReady>('serve-gatehouse.ts', [join(data, 'gatehouse')], {
    BENCH_API_KEY: bootstrap,
    BENCH_AGENTS: '10',
    BENCH_INPROCESS_REFERENCE: '0',
  });
  const admin = await post(`${gh.info.url}/v1/auth/token`, { api_key: bootstrap });
  // A key of its own, as npm run bench does: thousands of logins would end the bootstrap key's.
  const { api_key: loginKey } = await post(
    `${gh.info.url}/v1/users/admin/api-keys`,
    { name: 'bench logins' },
    admin.access_token,
  );
  const body = JSON.stringify({ api_key: loginKey });
  const targets: Target[] = [];
  for (const [i, rung] of RUNGS.entries()) {
    const { proc, info } = await start<{ url: string }>(
      'serve-minimal-login.ts',
      [mkdtempSync(join(data, `rung-${i}-`))],
      {
        BENCH_API_KEY: loginKey,
        BENCH_LOGIN_ADD: RUNGS.slice(1, i + 1).join(','),
      },
    );
    targets.push({
      label: rung === '' ? 'minimal durable login' : `+ ${rung}`,
      url: info.url,
      proc,
      cpu: [],
      rate: [],
    });
  }
  targets.push({ label: 'Gatehouse', url: gh.info.url, proc: gh.proc, cpu: [], rate: [] });

  for (const t of targets) await hit(t, body, 2); // warm-up, not counted
  const reference = targets[0] as Target;
  const gatehouse = targets.at(-1) as Target;
  const rateRatio = new RoundRatios('Gatehouse / minimal durable login (logins/s)', '≥ 0.8');
  const topRatio = new RoundRatios('Gatehouse / the top rung, every feature added (logins/s)');
  const floorRatio = new RoundRatios(
    'the top rung / minimal durable login (logins/s): what the features cost done simply',
  );
  for (let round = 1; round <= ROUNDS; round++) {
    console.log(`Round ${round}/${ROUNDS}`);
    for (const t of targets) {
      const { rate, cpuUs } = await hit(t, body, SECONDS);
      t.rate.push(rate);
      t.cpu.push(cpuUs);
      console.log(
        `  ${t.label.padEnd(22)} ${Math.round(rate).toLocaleString('en').padStart(6)} logins/s  ${cpuUs.toFixed(0).padStart(4)} µs CPU each`,
      );
    }
    console.log(rateRatio.add(gatehouse.rate.at(-1) as number, reference.rate.at(-1) as number));
    const top = (targets.at(-2) as Target).rate.at(-1) as number;
    console.log(topRatio.add(gatehouse.rate.at(-1) as number, top));
    console.log(floorRatio.add(top, reference.rate.at(-1) as number));
  }

  console.log(
    '\n| Target | logins/s (median) | CPU per login, µs (median) | added by this step, µs (median of the rounds) |',
  );
  console.log('|---|---:|---:|---:|');
  targets.forEach((t, i) => {
    const below = targets[i - 1];
    const added = below ? median(t.cpu.map((c, r) => c - (below.cpu[r] as number))) : undefined;
    console.log(
      `| ${t.label} | ${Math.round(median(t.rate)).toLocaleString('en')} | ${median(t.cpu).toFixed(0)} | ${added === undefined ? '' : added.toFixed(0)} |`,
    );
  });
  console.log(`\n- ${rateRatio.summary()}`);
  console.log(`- ${topRatio.summary()}`);
  console.log(`- ${floorRatio.summary()}`);
}

async function cleanup(): Promise<void> {
  for (const proc of children) {
    if (proc.exitCode !== null || proc.signalCode !== null) continue;
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGTERM');
    proc.stdin?.end();
    await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000).unref())]);
  }
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}

for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => void cleanup().finally(() => process.exit(130)));

main()
  .catch((e: unknown) => {
    process.stderr.write(`login-ladder: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 1;
  })
  .finally(() => cleanup());
