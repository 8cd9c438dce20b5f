// npm run bench:db — pgbench -S -M prepared -c 8 against the machine's PostgreSQL three ways, in the
// same run and interleaved per round: (1) direct, (2) through pgbouncer 1.18 in session mode (run as
// the `postgres` user: it refuses root), (3) through Gatehouse's PostgreSQL proxy with every
// statement audited (db.query events into the SQLite audit store). Prints the median tps and p99
// latency of each and the ratios. Settings: BENCH_ROUNDS (3), BENCH_DB_SECONDS (20), BENCH_DB_CLIENTS (8).
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { api, startTestServer, userWithRoles } from '../test/helpers/gatehouse.js';
import { intEnv, median } from './stats.js';

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
  return { tps: Number(tps[1]), p99 };
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'gh-bench-db-'));
  chmodSync(dir, 0o777); // pgbouncer runs as postgres and writes its pid and log here
  await exec('createdb', ['-h', '127.0.0.1', '-U', 'postgres', DB]); // "already exists" is fine
  const init = await exec('pgbench', ['-i', '-q', '-s', '2', '-h', '127.0.0.1', '-U', 'postgres', DB]);
  if (init.code !== 0) throw new Error(`pgbench -i: ${init.out}`);

  const bouncerPort = await freePort();
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

  const ways = {
    direct: { args: ['-h', '127.0.0.1', '-p', '5432', '-U', 'postgres', DB], password: undefined },
    pgbouncer: { args: ['-h', '127.0.0.1', '-p', String(bouncerPort), '-U', 'postgres', DB], password: undefined },
    gatehouse: { args: ['-h', '127.0.0.1', '-p', String(ghPort), '-U', 'postgres@bench', DB], password: user.token },
  } as const;
  const results: Record<string, Array<{ tps: number; p99: number }>> = { direct: [], pgbouncer: [], gatehouse: [] };
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, way] of Object.entries(ways)) {
        const r = await pgbench([...way.args], way.password, dir, name);
        results[name]?.push(r);
        console.log(`round ${round + 1} ${name}: ${r.tps.toFixed(0)} tps, p99 ${r.p99.toFixed(2)} ms`);
      }
    }
    const events = await api(gh.url, 'GET', '/v1/events?type=db.query&per_page=1', { token: gh.adminToken });
    const tps = (n: string) => median((results[n] ?? []).map((r) => r.tps));
    const p99 = (n: string) => median((results[n] ?? []).map((r) => r.p99));
    console.log(`\npgbench -S -M prepared -c ${CLIENTS} -T ${SECONDS}, median of ${ROUNDS} rounds`);
    for (const n of Object.keys(ways))
      console.log(`${n.padEnd(10)} ${tps(n).toFixed(0).padStart(7)} tps   p99 ${p99(n).toFixed(2)} ms`);
    console.log(`gatehouse / pgbouncer: ${(tps('gatehouse') / tps('pgbouncer')).toFixed(2)} (target ≥ 0.8)`);
    console.log(`gatehouse / direct:    ${(tps('gatehouse') / tps('direct')).toFixed(2)} (target ≥ 0.5)`);
    console.log(
      `db.query events written: ${events.json.pagination.total}${events.json.pagination.total === events.json.pagination.total_limit ? '+' : ''}`,
    );
  } finally {
    bouncer.kill();
    await gh.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
