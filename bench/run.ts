// The Gatehouse benchmark (npm run bench).
//
//  1. Read path: a bare Fastify server returning a precomputed copy of Gatehouse's
//     GET /v1/agents?per_page=20 body vs Gatehouse itself (admin bearer token, 1,000 stored agents).
//     Between them, bare Fastify with the minimal pipeline (serve-bare.ts with
//     BENCH_BARE_MINIMAL_TOKEN): what any implementation of the work every request needs costs.
//     The same minimal pipeline also runs inside the Gatehouse process, once it is set up
//     (serve-gatehouse.ts, BENCH_INPROCESS_REFERENCE), on a port of its own: the same code measured
//     in both processes splits the distance into the process's share and Gatehouse's steps.
//  2. Logins: POST /v1/auth/token with a valid API key (successes are not throttled), against the
//     minimal durable login (serve-minimal-login.ts: hash, look up, two token rows and the audit
//     event in one SQLite transaction, durable before the answer) in the same rounds.
// Each round prints Gatehouse's ratio to its minimal reference measured in that round, with the
// load average; the summary gives the median and range of those ratios.
//
// Each server runs in its own child process; autocannon drives them from this one. Runs take turns
// (bare, minimal, Gatehouse) for BENCH_ROUNDS rounds (3) of BENCH_SECONDS (10) with 50 connections, after a
// short warm-up; the table reports medians. The exit code is 0 whether or not the targets are met.
// Knobs: BENCH_SECONDS, BENCH_ROUNDS, BENCH_WARMUP_SECONDS, BENCH_SQLITE_SYNCHRONOUS (FULL | NORMAL).
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, platform, release, tmpdir, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { type BareReady, type GatehouseReady, READY_PREFIX } from './child-protocol.js';
import { intEnv, median, RoundRatios } from './stats.js';

const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(BENCH_DIR, '..');

const SECONDS = intEnv('BENCH_SECONDS', 10, 1);
const ROUNDS = intEnv('BENCH_ROUNDS', 3, 1);
const WARMUP_SECONDS = intEnv('BENCH_WARMUP_SECONDS', Math.min(3, SECONDS), 0);
const CONNECTIONS = 50;
const AGENTS = 1000;
const PER_PAGE = 20;
const LIST_PATH = `/v1/agents?per_page=${PER_PAGE}`;
// A CPU profile of Gatehouse would also sample the in-process reference's requests: left out then.
const WITH_IN_PROCESS = !process.env.BENCH_CPU_PROFILE;

// ---------------------------------------------------------------------------------------------
// Child processes

interface Child<T> {
  proc: ChildProcess;
  info: T;
}

const children: ChildProcess[] = [];

function spawnServer<T>(script: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<Child<T>> {
  const proc = spawn(process.execPath, ['--import', 'tsx', join(BENCH_DIR, script), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  children.push(proc);
  return new Promise((resolvePromise, reject) => {
    let ready = false;
    const timer = setTimeout(() => {
      if (!ready) reject(new Error(`${script} was not ready after ${timeoutMs} ms`));
    }, timeoutMs);
    const lines = createInterface({ input: proc.stdout as NodeJS.ReadableStream });
    lines.on('line', (line) => {
      if (!ready && line.startsWith(READY_PREFIX)) {
        ready = true;
        clearTimeout(timer);
        resolvePromise({ proc, info: JSON.parse(line.slice(READY_PREFIX.length)) as T });
      } else {
        process.stderr.write(`[${script}] ${line}\n`);
      }
    });
    proc.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (!ready) reject(new Error(`${script} exited before it was ready (code ${code}, signal ${signal})`));
    });
    proc.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
  });
}

async function stopChild(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  proc.kill('SIGTERM');
  proc.stdin?.end();
  const timedOut = await Promise.race([
    exited.then(() => false),
    new Promise<boolean>((r) => setTimeout(() => r(true), 10_000).unref()),
  ]);
  if (timedOut) {
    proc.kill('SIGKILL');
    await exited;
  }
}

const tmpDirs: string[] = [];
let interrupted = false;
let cleaning: Promise<void> | undefined;

/** Stops every child and removes the temporary directories; safe to call more than once. */
function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    await Promise.all(children.map(stopChild));
    for (const dir of tmpDirs) rmSync(dir, { recursive: true, force: true });
  })();
  return cleaning;
}

function onSignal(): void {
  if (interrupted) return;
  interrupted = true;
  console.error('\ninterrupted; stopping the servers');
  void cleanup().finally(() => process.exit(130));
}
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

// ---------------------------------------------------------------------------------------------
// CPU accounting (Linux /proc), to see which side of the load saturates its core

let clockTicks = 100;
try {
  clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
} catch {
  // keep the usual 100
}

/** CPU seconds a process has used so far, or undefined where /proc is not available. */
function cpuSecondsOf(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the ")" that ends the command name; utime and stime are fields 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / clockTicks;
  } catch {
    return undefined;
  }
}

/** Busy CPU seconds of the whole machine (all cores) so far, or undefined without /proc. */
function machineBusySeconds(): number | undefined {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
    // cpu  user nice system idle iowait irq softirq steal …
    const [user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
    return ((user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0)) / clockTicks;
  } catch {
    return undefined;
  }
}

/** Resident memory of a process in MiB, or undefined without /proc. */
function rssMiB(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const m = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// Load

interface Sample {
  rps: number;
  p50: number;
  p99: number;
  total: number;
  non2xx: number;
  errors: number;
  serverCpu?: number;
  /** Server CPU time per completed request, in microseconds: robust to other load on the machine. */
  cpuUsPerReq?: number;
  loadCpu: number;
  /** CPU used by everything else on the machine during the run: noise. */
  otherCpu?: number;
  serverRss?: number;
}

interface Target {
  label: string;
  url: string;
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  server: ChildProcess;
}

async function hit(target: Target, seconds: number): Promise<Sample> {
  const serverBefore = cpuSecondsOf(target.server.pid);
  const machineBefore = machineBusySeconds();
  const loadBefore = process.cpuUsage();
  const started = process.hrtime.bigint();
  const result = await autocannon({
    url: target.url,
    connections: CONNECTIONS,
    duration: seconds,
    method: target.method,
    ...(target.headers ? { headers: target.headers } : {}),
    ...(target.body !== undefined ? { body: target.body } : {}),
  });
  const wall = Number(process.hrtime.bigint() - started) / 1e9;
  const serverAfter = cpuSecondsOf(target.server.pid);
  const machineAfter = machineBusySeconds();
  const load = process.cpuUsage(loadBefore);
  const sample: Sample = {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    total: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    loadCpu: (load.user + load.system) / 1e6 / wall,
  };
  if (serverBefore !== undefined && serverAfter !== undefined) {
    sample.serverCpu = (serverAfter - serverBefore) / wall;
    if (result.requests.total > 0) sample.cpuUsPerReq = ((serverAfter - serverBefore) * 1e6) / result.requests.total;
    if (machineBefore !== undefined && machineAfter !== undefined) {
      sample.otherCpu = Math.max(0, (machineAfter - machineBefore) / wall - sample.serverCpu - sample.loadCpu);
    }
  }
  const rss = rssMiB(target.server.pid);
  if (rss !== undefined) sample.serverRss = rss;
  return sample;
}

// ---------------------------------------------------------------------------------------------
// Formatting

const int = (n: number) => Math.round(n).toLocaleString('en-US');
const ms = (n: number) => `${n.toFixed(n < 10 ? 1 : 0)} ms`;
const pct = (n: number | undefined) => (n === undefined ? 'n/a' : `${Math.round(n * 100)}%`);
const mib = (n: number | undefined) => (n === undefined ? 'n/a' : `${Math.round(n)} MiB`);

function describe(label: string, s: Sample): string {
  const problems = s.non2xx + s.errors > 0 ? `  non-2xx ${s.non2xx}, errors ${s.errors}` : '';
  return (
    `  ${label.padEnd(26)} ${int(s.rps).padStart(8)} req/s   p50 ${ms(s.p50).padStart(8)}   p99 ${ms(s.p99).padStart(8)}` +
    `   CPU: server ${pct(s.serverCpu).padStart(4)} (${Math.round(s.cpuUsPerReq ?? 0)} µs/req), autocannon ${pct(s.loadCpu).padStart(4)}, other ${pct(s.otherCpu).padStart(4)}` +
    `${problems}`
  );
}

function table(header: string[], rows: string[][], align: Array<'l' | 'r'>): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => (align[i] === 'r' ? c.padStart(widths[i] as number) : c.padEnd(widths[i] as number))).join(' | ')} |`;
  const rule = `| ${widths.map((w, i) => (align[i] === 'r' ? `${'-'.repeat(w - 1)}:` : '-'.repeat(w))).join(' | ')} |`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const cpu = cpus();
  console.log('# Gatehouse benchmark\n');
  console.log(`- CPU: ${cpu[0]?.model.trim() ?? 'unknown'} × ${cpu.length} cores`);
  console.log(`- Memory: ${(totalmem() / 2 ** 30).toFixed(1)} GiB; OS: ${platform()} ${release()}`);
  console.log(`- Node ${process.version}; autocannon ${readPackageVersion('autocannon')}`);
  console.log(
    `- Gatehouse: log_level warn, sqlite.synchronous ${process.env.BENCH_SQLITE_SYNCHRONOUS ?? 'FULL (the default)'}`,
  );
  const [load1, load5] = loadavg();
  console.log(`- Load average before the run: ${load1?.toFixed(2)} (1 min), ${load5?.toFixed(2)} (5 min)`);
  console.log(
    `- Load: ${CONNECTIONS} connections, ${SECONDS} s per run, ${ROUNDS} rounds (bare, minimal pipeline and Gatehouse in turn), ` +
      `${WARMUP_SECONDS} s warm-up per target; servers in child processes, autocannon in this one\n`,
  );

  const tmp = mkdtempSync(join(tmpdir(), 'gatehouse-bench-'));
  tmpDirs.push(tmp);
  const apiKey = `bench-${randomBytes(24).toString('hex')}`;

  try {
    process.stdout.write(`Starting Gatehouse and storing ${AGENTS} agents… `);
    const gh = await spawnServer<GatehouseReady>(
      'serve-gatehouse.ts',
      [join(tmp, 'gatehouse-data')],
      { BENCH_API_KEY: apiKey, BENCH_AGENTS: String(AGENTS), BENCH_INPROCESS_REFERENCE: WITH_IN_PROCESS ? '1' : '0' },
      180_000,
    );
    console.log(`ready at ${gh.info.url} after ${(gh.info.setupMs / 1000).toFixed(1)} s`);

    const tokenRes = await fetch(`${gh.info.url}/v1/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: apiKey }),
    });
    if (tokenRes.status !== 200) throw new Error(`POST /v1/auth/token: ${tokenRes.status} ${await tokenRes.text()}`);
    const { access_token: adminToken } = (await tokenRes.json()) as { access_token: string };
    const authHeaders = { authorization: `Bearer ${adminToken}` };
    // The logins load a key of its own: a key holds tokens.max_logins_per_key logins (1,000), and
    // thousands of logins with the bootstrap key would end the login the reads use.
    const loginKeyRes = await fetch(`${gh.info.url}/v1/users/admin/api-keys`, {
      method: 'POST',
      headers: { ...authHeaders, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'bench logins' }),
    });
    if (loginKeyRes.status !== 201) throw new Error(`POST api-keys: ${loginKeyRes.status} ${await loginKeyRes.text()}`);
    const { api_key: loginKey } = (await loginKeyRes.json()) as { api_key: string };

    const listRes = await fetch(gh.info.url + LIST_PATH, { headers: authHeaders });
    const listBody = await listRes.text();
    if (listRes.status !== 200) throw new Error(`GET ${LIST_PATH}: ${listRes.status} ${listBody}`);
    const parsed = JSON.parse(listBody) as { agents: unknown[]; pagination: { total: number } };
    if (parsed.agents.length !== PER_PAGE || parsed.pagination.total !== AGENTS) {
      throw new Error(
        `GET ${LIST_PATH} returned ${parsed.agents.length} agents of ${parsed.pagination.total}; expected ${PER_PAGE} of ${AGENTS}`,
      );
    }
    const bodyFile = join(tmp, 'agents-page.json');
    writeFileSync(bodyFile, listBody);

    process.stdout.write('Starting the bare Fastify server… ');
    const bare = await spawnServer<BareReady>('serve-bare.ts', [bodyFile], {}, 60_000);
    const bareBody = await (await fetch(bare.info.url + LIST_PATH)).text();
    if (bareBody !== listBody) throw new Error('the bare server does not return the Gatehouse body byte for byte');
    console.log(`ready at ${bare.info.url}; both return the same ${Buffer.byteLength(listBody)}-byte body`);
    process.stdout.write('Starting bare Fastify with the minimal pipeline (request id, token, permission, metric)… ');
    const minimal = await spawnServer<BareReady>(
      'serve-bare.ts',
      [bodyFile],
      { BENCH_BARE_MINIMAL_TOKEN: adminToken },
      60_000,
    );
    const minimalRes = await fetch(minimal.info.url + LIST_PATH, { headers: authHeaders });
    if ((await minimalRes.text()) !== listBody || !minimalRes.headers.get('x-request-id')) {
      throw new Error('the minimal pipeline does not return the Gatehouse body with a request id');
    }
    console.log(`ready at ${minimal.info.url}`);
    const inProcess = gh.info.reference;
    if (WITH_IN_PROCESS && !inProcess) throw new Error('serve-gatehouse.ts did not start the in-process reference');
    // Its CPU is the Gatehouse process's: the same reference code, in the process Gatehouse runs in.
    const inProcessTarget: Target | undefined = inProcess && {
      label: "minimal pipeline in Gatehouse's process GET",
      url: inProcess.url + LIST_PATH,
      method: 'GET',
      headers: { authorization: `Bearer ${inProcess.token}` },
      server: gh.proc,
    };
    if (inProcessTarget) {
      const res = await fetch(inProcessTarget.url, { headers: inProcessTarget.headers });
      if ((await res.text()) !== listBody) {
        throw new Error("the minimal pipeline in Gatehouse's process does not return the Gatehouse body");
      }
      console.log(`The same minimal pipeline inside Gatehouse's process: ${inProcess?.url}`);
    } else console.log("BENCH_CPU_PROFILE: the minimal pipeline inside Gatehouse's process is left out");
    process.stdout.write(
      'Starting the minimal durable login (hash, lookup, token rows and event in one transaction)… ',
    );
    const minimalLogin = await spawnServer<BareReady>(
      'serve-minimal-login.ts',
      [tmp],
      { BENCH_API_KEY: loginKey },
      60_000,
    );
    console.log(`ready at ${minimalLogin.info.url}\n`);

    const bareTarget: Target = { label: 'bare GET', url: bare.info.url + LIST_PATH, method: 'GET', server: bare.proc };
    const authedList = (label: string, url: string, server: ChildProcess): Target => ({
      label,
      url: url + LIST_PATH,
      method: 'GET',
      headers: authHeaders,
      server,
    });
    const minimalTarget = authedList('minimal pipeline GET', minimal.info.url, minimal.proc);
    const ghTarget = authedList('Gatehouse GET', gh.info.url, gh.proc);
    const tokenTarget: Target = {
      label: 'Gatehouse POST token',
      url: `${gh.info.url}/v1/auth/token`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: loginKey }),
      server: gh.proc,
    };
    const minimalLoginTarget: Target = {
      ...tokenTarget,
      label: 'minimal login POST token',
      url: `${minimalLogin.info.url}/v1/auth/token`,
      server: minimalLogin.proc,
    };

    if (WARMUP_SECONDS > 0) {
      console.log('Warm-up (not counted)');
      for (const t of [bareTarget, minimalTarget, inProcessTarget, ghTarget, minimalLoginTarget, tokenTarget])
        if (t) console.log(describe(t.label, await hit(t, WARMUP_SECONDS)));
      console.log('');
    }

    const bareRuns: Sample[] = [];
    const ghRuns: Sample[] = [];
    const minimalRuns: Sample[] = [];
    const inProcessRuns: Sample[] = [];
    const tokenRuns: Sample[] = [];
    const minimalLoginRuns: Sample[] = [];
    const readRatio = new RoundRatios('read path, Gatehouse / minimal pipeline (req/s)', '≥ 0.9');
    const readCpuRatio = new RoundRatios('read path, minimal pipeline / Gatehouse CPU per request');
    const processCpuRatio = new RoundRatios(
      "read path, minimal pipeline alone / the same in Gatehouse's process, CPU per request",
    );
    const inProcessRatio = new RoundRatios("read path, Gatehouse / minimal pipeline in Gatehouse's process (req/s)");
    const inProcessCpuRatio = new RoundRatios(
      "read path, minimal pipeline in Gatehouse's process / Gatehouse CPU per request",
    );
    const loginRatio = new RoundRatios('logins, Gatehouse / minimal durable login (req/s)', '≥ 0.8');
    const loginCpuRatio = new RoundRatios('logins, minimal durable login / Gatehouse CPU per login');
    for (let round = 1; round <= ROUNDS && !interrupted; round++) {
      console.log(`Read path, round ${round}/${ROUNDS}`);
      for (const [t, runs] of [
        [bareTarget, bareRuns],
        [minimalTarget, minimalRuns],
        [inProcessTarget, inProcessRuns],
        [ghTarget, ghRuns],
      ] as const) {
        if (!t) continue;
        const s = await hit(t, SECONDS);
        runs.push(s);
        console.log(describe(t.label, s));
      }
      const [m, g] = [minimalRuns.at(-1), ghRuns.at(-1)] as [Sample, Sample];
      console.log(readRatio.add(g.rps, m.rps));
      if (m.cpuUsPerReq && g.cpuUsPerReq) console.log(readCpuRatio.add(m.cpuUsPerReq, g.cpuUsPerReq));
      const p = inProcessRuns.at(-1);
      if (p) {
        console.log(inProcessRatio.add(g.rps, p.rps));
        if (m.cpuUsPerReq && p.cpuUsPerReq) console.log(processCpuRatio.add(m.cpuUsPerReq, p.cpuUsPerReq));
        if (p.cpuUsPerReq && g.cpuUsPerReq) console.log(inProcessCpuRatio.add(p.cpuUsPerReq, g.cpuUsPerReq));
      }
    }
    // Logins last: each one writes two tokens and an audit event, which the read runs should not see.
    for (let round = 1; round <= ROUNDS && !interrupted; round++) {
      console.log(`Logins, round ${round}/${ROUNDS}`);
      const m = await hit(minimalLoginTarget, SECONDS);
      minimalLoginRuns.push(m);
      console.log(describe(minimalLoginTarget.label, m));
      const s = await hit(tokenTarget, SECONDS);
      tokenRuns.push(s);
      console.log(describe(tokenTarget.label, s));
      console.log(loginRatio.add(s.rps, m.rps));
      if (m.cpuUsPerReq && s.cpuUsPerReq) console.log(loginCpuRatio.add(m.cpuUsPerReq, s.cpuUsPerReq));
    }
    if (interrupted) return;

    const bareRps = median(bareRuns.map((s) => s.rps));
    const ghRps = median(ghRuns.map((s) => s.rps));
    const minimalRps = median(minimalRuns.map((s) => s.rps));
    const bareP99 = median(bareRuns.map((s) => s.p99));
    const ghP99 = median(ghRuns.map((s) => s.p99));
    const tokenRps = median(tokenRuns.map((s) => s.rps));
    const tokenP99 = median(tokenRuns.map((s) => s.p99));
    const ratio = ghRps / bareRps;
    const cpuOf = (runs: Sample[]) => {
      const xs = runs.map((s) => s.cpuUsPerReq).filter((x): x is number => x !== undefined);
      return xs.length === runs.length ? median(xs) : undefined;
    };
    const bareCpu = cpuOf(bareRuns);
    const ghCpu = cpuOf(ghRuns);
    const minimalCpu = cpuOf(minimalRuns);
    const tokenCpu = cpuOf(tokenRuns);
    const us = (n: number | undefined) => (n === undefined ? 'n/a' : `${Math.round(n)} µs`);
    const perCore = (n: number | undefined) => (n === undefined ? 'n/a' : int(1e6 / n));

    console.log(`\n## Results (median of ${ROUNDS} × ${SECONDS} s, ${CONNECTIONS} connections)\n`);
    console.log(
      table(
        ['Scenario', 'Metric', 'Bare Fastify', 'Gatehouse', 'Gatehouse / bare', 'Target', 'Result'],
        [
          [
            `GET ${LIST_PATH} (${AGENTS} agents)`,
            'req/s',
            int(bareRps),
            int(ghRps),
            ratio.toFixed(2),
            'see the ratios to the minimal pipeline',
            '',
          ],
          [
            `GET ${LIST_PATH} (${AGENTS} agents)`,
            'p99 latency',
            ms(bareP99),
            ms(ghP99),
            (ghP99 / bareP99).toFixed(2),
            '',
            '',
          ],
          [
            `GET ${LIST_PATH} (${AGENTS} agents)`,
            'server CPU per request',
            us(bareCpu),
            us(ghCpu),
            bareCpu && ghCpu ? (ghCpu / bareCpu).toFixed(2) : 'n/a',
            '',
            '',
          ],
          [
            `GET ${LIST_PATH} (${AGENTS} agents)`,
            'req/s per busy server core (1e6 / CPU per request)',
            perCore(bareCpu),
            perCore(ghCpu),
            bareCpu && ghCpu ? (bareCpu / ghCpu).toFixed(2) : 'n/a',
            '',
            '',
          ],
          [
            'POST /v1/auth/token (valid API key)',
            'req/s',
            '',
            int(tokenRps),
            '',
            'see the ratios to the minimal login',
            '',
          ],
          ['POST /v1/auth/token (valid API key)', 'p99 latency', '', ms(tokenP99), '', '', ''],
          ['POST /v1/auth/token (valid API key)', 'server CPU per request', '', us(tokenCpu), '', '', ''],
        ],
        ['l', 'l', 'r', 'r', 'r', 'l', 'l'],
      ),
    );

    console.log(
      `\nThe minimal pipeline (bare Fastify plus request id, token lookup, permission and metric, nothing else): ` +
        `${int(minimalRps)} req/s, ${us(minimalCpu)} per request; minimal / bare ${(minimalRps / bareRps).toFixed(2)}, ` +
        `Gatehouse / minimal ${(ghRps / minimalRps).toFixed(2)}` +
        (minimalCpu && bareCpu && ghCpu
          ? ` (CPU per request: minimal ${(bareCpu / minimalCpu).toFixed(2)} of bare's rate, Gatehouse ${(minimalCpu / ghCpu).toFixed(2)} of minimal's).`
          : '.'),
    );

    // Rounds run the three back to back: a ratio within a round shares the machine's moment, which
    // on a noisy VM says more than a ratio of medians taken at different moments.
    const perRound = (num: Sample[], den: Sample[]) => num.map((s, i) => s.rps / (den[i]?.rps ?? Number.NaN));
    const spread = (xs: number[]) =>
      `median ${median(xs).toFixed(2)} (${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)})`;
    console.log(
      `Round by round: minimal / bare ${spread(perRound(minimalRuns, bareRuns))}, ` +
        `Gatehouse / minimal ${spread(perRound(ghRuns, minimalRuns))}, Gatehouse / bare ${spread(perRound(ghRuns, bareRuns))}.`,
    );

    console.log('\nRatios to the minimal reference, round by round (a ratio within a round shares its load):');
    const inProcessRatios = inProcessRuns.length > 0 ? [processCpuRatio, inProcessRatio, inProcessCpuRatio] : [];
    for (const r of [readRatio, readCpuRatio, ...inProcessRatios, loginRatio, loginCpuRatio])
      console.log(`- ${r.summary()}`);
    console.log(
      `- minimal durable login: ${int(median(minimalLoginRuns.map((s) => s.rps)))} logins/s, ${us(cpuOf(minimalLoginRuns))} of CPU each`,
    );

    console.log('\n### Every run\n');
    const rows: string[][] = [];
    for (let i = 0; i < ROUNDS; i++) {
      for (const [name, runs] of [
        ['bare GET', bareRuns],
        ['minimal pipeline GET', minimalRuns],
        ["minimal pipeline in Gatehouse's process GET", inProcessRuns],
        ['Gatehouse GET', ghRuns],
        ['minimal login POST token', minimalLoginRuns],
        ['Gatehouse POST /v1/auth/token', tokenRuns],
      ] as const) {
        const s = runs[i];
        if (!s) continue;
        rows.push([
          String(i + 1),
          name,
          int(s.rps),
          ms(s.p50),
          ms(s.p99),
          pct(s.serverCpu),
          s.cpuUsPerReq === undefined ? 'n/a' : `${Math.round(s.cpuUsPerReq)} µs`,
          pct(s.loadCpu),
          pct(s.otherCpu),
          mib(s.serverRss),
          String(s.non2xx),
          String(s.errors),
        ]);
      }
    }
    console.log(
      table(
        [
          'Round',
          'Run',
          'req/s',
          'p50',
          'p99',
          'Server CPU',
          'CPU/req',
          'autocannon CPU',
          'Other CPU',
          'Server RSS',
          'non-2xx',
          'errors',
        ],
        rows,
        ['r', 'l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
      ),
    );
    const bad = [...bareRuns, ...minimalRuns, ...ghRuns, ...minimalLoginRuns, ...tokenRuns].reduce(
      (n, s) => n + s.non2xx + s.errors,
      0,
    );
    const noisy = Math.max(
      ...[...bareRuns, ...minimalRuns, ...ghRuns, ...minimalLoginRuns, ...tokenRuns].map((s) => s.otherCpu ?? 0),
    );
    console.log(
      `\nCPU is the share of one core used during the run (100% = one full core of ${cpu.length}); ` +
        'CPU/req is server CPU time per completed request (less sensitive to other load than req/s); ' +
        '"Other CPU" is what the rest of the machine used meanwhile; Server RSS is measured after the run. ' +
        (bad > 0
          ? `**${bad} responses were non-2xx or errors: the numbers above are not clean.** `
          : 'All responses were 2xx. ') +
        (noisy > 0.15
          ? `**Other processes used up to ${pct(noisy)} of a core during some runs: those runs are noisy.**`
          : 'The machine was otherwise quiet.'),
    );
    console.log(`Load average after the run: ${loadavg()[0]?.toFixed(2)} (1 min).`);
  } finally {
    await cleanup();
  }
}

function readPackageVersion(name: string): string {
  try {
    return (JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string })
      .version;
  } catch {
    return 'unknown';
  }
}

main().then(
  () => cleanup().finally(() => process.exit(interrupted ? 130 : 0)),
  (e: unknown) => {
    // After Ctrl-C the servers going away is expected, not a failure worth a stack trace.
    if (!interrupted) console.error(`\nbench failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    return cleanup().finally(() => process.exit(interrupted ? 130 : 1));
  },
);
