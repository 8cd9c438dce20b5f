// npm run bench:db — pgbench -S -M prepared -c 8 against the machine's PostgreSQL three ways, in the
// same run and interleaved per round: (1) direct, (2) through pgbouncer 1.18 in session mode (run as
// the `postgres` user: it refuses root), (3) through Gatehouse's PostgreSQL proxy with every
// statement audited (db.query events into the SQLite audit store), (4) through a minimal Node
// forwarder (bench/db-minimal-proxy.ts: bytes copied both ways, nothing parsed) as the ceiling of a
// proxy on Node's sockets here, and (5) through a minimal auditing proxy (bench/db-auditing-proxy.ts:
// the forwarder plus the protocol reading and one stored db.query event per statement), the reference
// doing the unavoidable work that issue 36's target (≥ 0.7) is stated against. Prints the median tps, p50 and p99 latency of each and the ratios,
// and Gatehouse's CPU per transaction (the whole process, writer thread included; and the main
// thread's event-loop utilisation). Settings: BENCH_ROUNDS (3), BENCH_DB_SECONDS (20),
// BENCH_DB_CLIENTS (8; 1 with `direct` among BENCH_DB_WAYS gives the latency each proxy adds per
// transaction, its p50 over direct's in the same round); BENCH_DB_PROFILE=<file.cpuprofile> writes a
// CPU profile of the main thread during the Gatehouse rounds (open it in Chrome DevTools or speedscope).
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { api, startTestServer, userWithRoles } from '../test/helpers/gatehouse.js';
import { READY_PREFIX } from './child-protocol.js';
import { intEnv, median, RoundRatios } from './stats.js';

const ROUNDS = intEnv('BENCH_ROUNDS', 3, 1);
const SECONDS = intEnv('BENCH_DB_SECONDS', 20, 1);
const CLIENTS = intEnv('BENCH_DB_CLIENTS', 8, 1);
const DB = 'gh_bench';

function exec(
  cmd: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      out += d;
    });
    child.on('close', (code) => resolve({ code, out }));
  });
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

/** CPU the main thread has used (µs, user and system), from /proc: the rest of the process is its other threads. */
function mainThreadCpu(): { user: number; system: number } {
  return threadCpu(`/proc/self/task/${process.pid}/stat`);
}

function threadCpu(statFile: string): { user: number; system: number } {
  try {
    const fields = readFileSync(statFile, 'utf8').split(') ')[1]?.split(' ') ?? [];
    const tick = 1e6 / 100; // USER_HZ
    return { user: Number(fields[11]) * tick, system: Number(fields[12]) * tick };
  } catch {
    return { user: Number.NaN, system: Number.NaN };
  }
}

/** One pgbench run: tps and the 99th percentile of per-transaction latency (from its -l log). */
async function pgbench(conninfo: string[], password: string | undefined, dir: string, label: string) {
  const prefix = join(dir, `${label}-${Date.now()}`);
  const r = await exec(
    'pgbench',
    [
      '-S',
      '-M',
      'prepared',
      '-c',
      String(CLIENTS),
      '-j',
      '2',
      '-T',
      String(SECONDS),
      '-n',
      '-l',
      `--log-prefix=${prefix}`,
      ...conninfo,
    ],
    password ? { PGPASSWORD: password } : {},
  );
  const tps = /tps = ([\d.]+) \(without initial connection time\)/.exec(r.out);
  if (r.code !== 0 || !tps) throw new Error(`pgbench ${label} failed:\n${r.out}`);
  const latencies: number[] = [];
  for (const f of readdirSync(dir).filter((n) => join(dir, n).startsWith(prefix))) {
    for (const line of readFileSync(join(dir, f), 'utf8').split('\n')) {
      const us = Number(line.split(' ')[2]);
      if (line && Number.isFinite(us)) latencies.push(us);
    }
  }
  latencies.sort((a, b) => a - b);
  const p99 = (latencies[Math.floor(latencies.length * 0.99)] ?? 0) / 1000;
  const p50 = (latencies[Math.floor(latencies.length * 0.5)] ?? 0) / 1000;
  return { tps: Number(tps[1]), p99, p50 };
}

/** A proxy of bench/ in its own process, and the port it printed on its READY line. */
async function startProxyChild(script: string, args: string[]) {
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, script), ...args], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const line = out.split('\n').find((l) => l.startsWith(READY_PREFIX));
      if (line) resolve((JSON.parse(line.slice(READY_PREFIX.length)) as { port: number }).port);
    });
    child.on('exit', (code) => reject(new Error(`${script} exited (${code})`)));
  });
  return { pid: child.pid, port, kill: (signal?: NodeJS.Signals) => child.kill(signal) };
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'gh-bench-db-'));
  chmodSync(dir, 0o777); // pgbouncer runs as postgres and writes its pid and log here
  await exec('createdb', ['-h', '127.0.0.1', '-U', 'postgres', DB]); // "already exists" is fine
  const init = await exec('pgbench', ['-i', '-q', '-s', '2', '-h', '127.0.0.1', '-U', 'postgres', DB]);
  if (init.code !== 0) throw new Error(`pgbench -i: ${init.out}`);

  const bouncerPort = await freePort();
  // pgbouncer is a comparison, not the reference: without it the run goes on, and says so.
  const hasBouncer = spawnSync('sh', ['-c', 'command -v pgbouncer'], { stdio: 'ignore' }).status === 0;
  if (!hasBouncer) console.log('pgbouncer is not installed: its rows are skipped (apt-get install pgbouncer)');
  writeFileSync(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `${DB} = host=127.0.0.1 port=5432 dbname=${DB} user=postgres`,
      '[pgbouncer]',
      `listen_addr = 127.0.0.1`,
      `listen_port = ${bouncerPort}`,
      'auth_type = any',
      'pool_mode = session',
      'max_client_conn = 200',
      'default_pool_size = 50',
      `unix_socket_dir = ${dir}`,
      `logfile = ${join(dir, 'pgbouncer.log')}`,
    ].join('\n'),
  );
  chmodSync(join(dir, 'pgbouncer.ini'), 0o644);
  const asRoot = process.getuid?.() === 0;
  const bouncer = spawn(
    asRoot ? 'runuser' : 'pgbouncer',
    [...(asRoot ? ['-u', 'postgres', '--', 'pgbouncer'] : []), join(dir, 'pgbouncer.ini')],
    {
      stdio: 'ignore',
    },
  );
  await new Promise((r) => setTimeout(r, 1000));

  const forwarder = await startProxyChild('db-minimal-proxy.ts', ['5432']);
  const forwarderPort = forwarder.port;
  // The honest reference: the forwarder plus the protocol reading and one audited event per statement.
  const auditing = await startProxyChild('db-auditing-proxy.ts', ['5432', join(dir, 'reference-audit.db')]);

  const gh = await startTestServer({
    log_level: 'warn',
    ...(process.env.BENCH_SQLITE_SYNC ? { 'sqlite.synchronous': process.env.BENCH_SQLITE_SYNC } : {}),
  });
  await api(gh.url, 'POST', '/v1/resources', {
    token: gh.adminToken,
    body: { kind: 'database', name: 'bench', address: '127.0.0.1:5432', protocol: 'postgres' },
  });
  await api(gh.url, 'POST', '/v1/roles', {
    token: gh.adminToken,
    body: { name: 'bench', allow: { resources: [{ kinds: ['database'] }], db_users: ['postgres'], db_names: [DB] } },
  });
  const user = await userWithRoles(gh, 'bench', ['bench']);
  const ghPort = gh.gatehouse.dbAddr?.port as number;

  const allWays = {
    direct: { args: ['-h', '127.0.0.1', '-p', '5432', '-U', 'postgres', DB], password: undefined },
    pgbouncer: { args: ['-h', '127.0.0.1', '-p', String(bouncerPort), '-U', 'postgres', DB], password: undefined },
    forwarder: { args: ['-h', '127.0.0.1', '-p', String(forwarderPort), '-U', 'postgres', DB], password: undefined },
    auditing: { args: ['-h', '127.0.0.1', '-p', String(auditing.port), '-U', 'postgres', DB], password: undefined },
    gatehouse: { args: ['-h', '127.0.0.1', '-p', String(ghPort), '-U', 'postgres@bench', DB], password: user.token },
  } as const;
  // BENCH_DB_WAYS=gatehouse: only that one, e.g. while profiling; the ratios need all three.
  const chosen = (process.env.BENCH_DB_WAYS ?? 'direct,pgbouncer,forwarder,auditing,gatehouse')
    .split(',')
    .filter((way) => way !== 'pgbouncer' || hasBouncer);
  const ways = Object.fromEntries(Object.entries(allWays).filter(([n]) => chosen.includes(n)));
  const results: Record<string, Array<{ tps: number; p99: number; p50: number }>> = {
    direct: [],
    pgbouncer: [],
    forwarder: [],
    auditing: [],
    gatehouse: [],
  };
  const profileFile = process.env.BENCH_DB_PROFILE;
  const profiler = profileFile ? new Session() : undefined;
  if (profiler) {
    profiler.connect();
    await profiler.post('Profiler.enable');
  }
  const cpu = { us: 0, mainUs: 0, transactions: 0, elu: [] as number[] };
  // Gatehouse against the references of the same round (BENCH_DB_WAYS must include them): the
  // auditing reference (the unavoidable work, the target's denominator) and the bare forwarder.
  const ratio = new RoundRatios('pgbench, Gatehouse / minimal auditing proxy (tps)', '≥ 0.7');
  const cpuRatio = new RoundRatios('pgbench, minimal auditing proxy / Gatehouse CPU per transaction');
  const fwdRatio = new RoundRatios('pgbench, Gatehouse / bare forwarder (tps; no parsing, no audit)');
  const fwdCpuRatio = new RoundRatios('pgbench, bare forwarder / Gatehouse CPU per transaction');
  const childUs: Record<string, number> = {};
  /** Per round, p50 latency over direct's in the same round (µs): what the proxy adds to a statement. */
  const added: Record<string, number[]> = { forwarder: [], auditing: [], gatehouse: [] };
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, way] of Object.entries(ways)) {
        const measured = name === 'gatehouse';
        if (measured) await profiler?.post('Profiler.start');
        const child = name === 'forwarder' ? forwarder : name === 'auditing' ? auditing : undefined;
        const childStat = `/proc/${child?.pid}/stat`;
        const child0 = threadCpu(childStat);
        const cpu0 = process.cpuUsage();
        const main0 = mainThreadCpu();
        const elu0 = performance.eventLoopUtilization();
        const r = await pgbench([...way.args], way.password, dir, name);
        results[name]?.push(r);
        let extra = '';
        let ghUs = 0;
        if (child) {
          const c1 = threadCpu(childStat);
          const n = r.tps * SECONDS;
          childUs[name] = (c1.user - child0.user + c1.system - child0.system) / n;
          extra = `, ${name} CPU ${((c1.user - child0.user) / n).toFixed(1)} user + ${((c1.system - child0.system) / n).toFixed(1)} sys µs/transaction`;
        }
        if (measured) {
          const used = process.cpuUsage(cpu0);
          const main1 = mainThreadCpu();
          const elu = performance.eventLoopUtilization(elu0).utilization;
          // tps excludes connection time; the CPU does not, which over SECONDS seconds is negligible.
          const n = r.tps * SECONDS;
          const mainUser = (main1.user - main0.user) / n;
          const mainSys = (main1.system - main0.system) / n;
          ghUs = (used.user + used.system) / n;
          cpu.us += used.user + used.system;
          cpu.mainUs += main1.user - main0.user + main1.system - main0.system;
          cpu.transactions += n;
          cpu.elu.push(elu);
          extra =
            `, Gatehouse CPU ${((used.user + used.system) / n).toFixed(1)} µs/transaction` +
            ` (main thread ${mainUser.toFixed(1)} user + ${mainSys.toFixed(1)} sys, busy ${(elu * 100).toFixed(0)}%)`;
        }
        if (measured && profiler) {
          const { profile } = await profiler.post('Profiler.stop');
          if (round === ROUNDS - 1) writeFileSync(profileFile as string, JSON.stringify(profile));
        }
        console.log(
          `round ${round + 1} ${name}: ${r.tps.toFixed(0)} tps, p50 ${r.p50.toFixed(3)} ms, p99 ${r.p99.toFixed(2)} ms${extra}`,
        );
        const direct = results.direct?.[round];
        if (direct && name !== 'direct' && name !== 'pgbouncer')
          added[name]?.push(Math.round((r.p50 - direct.p50) * 1000));
        const audited = results.auditing?.[round];
        if (measured && audited) {
          console.log(ratio.add(r.tps, audited.tps));
          console.log(cpuRatio.add(childUs.auditing as number, ghUs));
        }
        const forwarded = results.forwarder?.[round];
        if (measured && forwarded) {
          console.log(fwdRatio.add(r.tps, forwarded.tps));
          console.log(fwdCpuRatio.add(childUs.forwarder as number, ghUs));
        }
      }
    }
    const events = await api(gh.url, 'GET', '/v1/events?type=db.query&per_page=1', { token: gh.adminToken });
    const tps = (n: string) => median((results[n] ?? []).map((r) => r.tps));
    const p99 = (n: string) => median((results[n] ?? []).map((r) => r.p99));
    console.log(`\npgbench -S -M prepared -c ${CLIENTS} -T ${SECONDS}, median of ${ROUNDS} rounds`);
    const p50 = (n: string) => median((results[n] ?? []).map((r) => r.p50));
    for (const n of Object.keys(ways))
      console.log(
        `${n.padEnd(10)} ${tps(n).toFixed(0).padStart(7)} tps   p50 ${p50(n).toFixed(3)} ms   p99 ${p99(n).toFixed(2)} ms`,
      );
    for (const [n, us] of Object.entries(added))
      if (us.length > 0)
        console.log(
          `${n}: added p50 latency per transaction over direct, median ${median(us)} µs (rounds ${us.join(', ')})${CLIENTS === 1 && n === 'gatehouse' ? '; target ≤ 100 µs at 1 client' : ''}`,
        );
    if (ways.pgbouncer && ways.gatehouse)
      console.log(`gatehouse / pgbouncer: ${(tps('gatehouse') / tps('pgbouncer')).toFixed(2)} (target ≥ 0.8)`);
    if (ways.direct && ways.gatehouse)
      console.log(`gatehouse / direct:    ${(tps('gatehouse') / tps('direct')).toFixed(2)} (target ≥ 0.5)`);
    if (ways.forwarder && ways.pgbouncer && ways.gatehouse)
      console.log(
        `node forwarder / pgbouncer: ${(tps('forwarder') / tps('pgbouncer')).toFixed(2)}; gatehouse / node forwarder: ${(tps('gatehouse') / tps('forwarder')).toFixed(2)}`,
      );
    if (cpu.transactions > 0)
      console.log(
        `Gatehouse CPU per transaction: ${(cpu.us / cpu.transactions).toFixed(1)} µs (process; main thread ${(cpu.mainUs / cpu.transactions).toFixed(1)}, busy ${(median(cpu.elu) * 100).toFixed(0)}%)`,
      );
    for (const r of [ratio, cpuRatio, fwdRatio, fwdCpuRatio]) console.log(r.summary());
    console.log(
      `db.query events written: ${events.json.pagination.total}${events.json.pagination.total === events.json.pagination.total_limit ? '+' : ''}`,
    );
  } finally {
    profiler?.disconnect();
    bouncer.kill();
    forwarder.kill('SIGTERM');
    auditing.kill('SIGTERM');
    await gh.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
