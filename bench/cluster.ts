// The cost of the production topology (npm run bench:cluster), in one run on this machine:
//   single    one embedded process (SQLite state and audit), as `npm start`
//   cluster   haproxy → 2 proxy instances → 3 auth instances (auth_servers) → state on 3 etcd members,
//             PostgreSQL audit, Redis for the shared counters
// Load (autocannon, 50 connections, BENCH_SECONDS each, BENCH_ROUNDS rounds, medians): authenticated
// GET /v1/agents?per_page=20 over 1,000 agents, and POST /v1/auth/token. CPU per request is the CPU
// time of every server process of the topology (Gatehouse, etcd, haproxy; not PostgreSQL or Redis,
// which are the machine's and shared with other work) over the requests served. Then revocation
// propagation: a token revoked through proxy A, polled through proxy B until refused (p50/p99).
// 2 cores cannot show scaling; the point is what the hops cost. Exit code 0 whether or not targets
// are met. Needs etcd and haproxy (as .ci/run installs them), PostgreSQL and Redis on loopback.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { joinTokenWithKey } from '../test/helpers/cluster-join.js';
import { startEtcd } from '../test/helpers/etcd.js';
import { api } from '../test/helpers/gatehouse.js';
import { startHaproxy } from '../test/helpers/haproxy.js';
import { adminSql, POSTGRES_URL } from '../test/helpers/postgres.js';
import { type Running, run, stop } from '../test/helpers/process.js';
import { intEnv, median, RoundRatios } from './stats.js';

const SECONDS = intEnv('BENCH_SECONDS', 10, 1);
const ROUNDS = intEnv('BENCH_ROUNDS', 3, 1);
const TRIALS = intEnv('BENCH_REVOCATIONS', 100, 10);
const KEY = `bench-cluster-bootstrap-${randomBytes(12).toString('hex')}`;
const TICKS = 100; // clock ticks per second in /proc/<pid>/stat (USER_HZ on Linux)

const dir = mkdtempSync(join(tmpdir(), 'gatehouse-bench-cluster-'));
const schema = `gh_bench_cluster_${randomBytes(4).toString('hex')}`;
const sealKey = join(dir, 'seal.key');
writeFileSync(sealKey, randomBytes(32), { mode: 0o600 });

/** CPU seconds used so far by these pids (utime + stime; children that exited are not counted). */
function cpuSeconds(pids: number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // gone
    }
  }
  return ticks / TICKS;
}
const pidsOf = (pattern: string): number[] => {
  try {
    return execFileSync('pgrep', ['-f', pattern], { encoding: 'utf8' }).trim().split('\n').map(Number);
  } catch {
    return [];
  }
};

interface Topology {
  name: string;
  url: string;
  token: string;
  /** The logins load a key of its own: a key keeps 1,000 logins, and the reads' token must not be ended. */
  loginKey?: string;
  pids: () => number[];
  /** The same processes by kind, for the breakdown of CPU per request. */
  groups?: Record<string, () => number[]>;
  /** CPU seconds per second each kind uses with no load (heartbeats, sweeps, timers), measured once. */
  idle?: Record<string, number>;
}

/** What each kind of process uses with no load at all, over `seconds`. */
async function idleRates(t: Topology, seconds: number): Promise<Record<string, number>> {
  const groups = Object.entries(t.groups ?? {}).map(([name, of]) => ({ name, pids: of() }));
  const before = groups.map((g) => cpuSeconds(g.pids));
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  return Object.fromEntries(groups.map((g, i) => [g.name, (cpuSeconds(g.pids) - (before[i] ?? 0)) / seconds]));
}

async function seed(t: Topology): Promise<void> {
  const names = Array.from({ length: 1000 }, (_, i) => `bench-agent-${i}`);
  for (let i = 0; i < names.length; i += 25) {
    await Promise.all(
      names.slice(i, i + 25).map(async (name) => {
        const res = await api(t.url, 'POST', '/v1/agents', { token: t.token, body: { name, roles: [] } });
        if (res.status !== 201) throw new Error(`${t.name}: create agent ${res.status} ${res.text}`);
      }),
    );
  }
}

async function load(
  t: Topology,
  opts: autocannon.Options,
): Promise<{ rps: number; cpuUs: number; byGroup: Record<string, number>; busyByGroup: Record<string, number> }> {
  const pids = t.pids();
  const groups = Object.entries(t.groups ?? {}).map(([name, of]) => ({ name, pids: of() }));
  const before = cpuSeconds(pids);
  const groupsBefore = groups.map((g) => cpuSeconds(g.pids));
  const result = await autocannon({ connections: 50, duration: SECONDS, ...opts });
  const cpu = cpuSeconds(pids) - before;
  const ok = result['2xx'];
  if (result.non2xx > 0 || result.errors > 0)
    console.log(`  (${t.name}: ${result.non2xx} non-2xx, ${result.errors} errors)`);
  const byGroup = Object.fromEntries(
    groups.map((g, i) => [g.name, ((cpuSeconds(g.pids) - (groupsBefore[i] ?? 0)) / Math.max(ok, 1)) * 1e6]),
  );
  // Less what the kind uses unloaded: at tens of logins a second, etcd's heartbeats alone are
  // milliseconds per login, which a faster login does not change.
  const busyByGroup = Object.fromEntries(
    Object.entries(byGroup).map(([g, us]) => [g, us - ((t.idle?.[g] ?? 0) * SECONDS * 1e6) / Math.max(ok, 1)]),
  );
  return { rps: ok / SECONDS, cpuUs: (cpu / Math.max(ok, 1)) * 1e6, byGroup, busyByGroup };
}

async function main(): Promise<void> {
  const processes: Running[] = [];
  const start = async (env: Record<string, string>) => {
    const r = await run(env);
    processes.push(r);
    return r;
  };
  const etcd = await startEtcd(3);
  try {
    // The single process.
    const single = await start({ GATEHOUSE_DATA_DIR: join(dir, 'single'), GATEHOUSE_BOOTSTRAP_API_KEY: KEY });
    // The cluster: 3 auth and 2 proxies over the same stores.
    const shared = {
      GATEHOUSE_REDIS_URL: 'redis://127.0.0.1:6379',
      GATEHOUSE_SEAL_KEY_FILE: sealKey,
    };
    const stores = {
      GATEHOUSE_BACKEND_URL: etcd.url('/bench/'),
      GATEHOUSE_AUDIT_URL: `${POSTGRES_URL}?schema=${schema}`,
      GATEHOUSE_BOOTSTRAP_API_KEY: KEY,
    };
    const auth: Running[] = [];
    for (const i of [0, 1, 2]) {
      auth.push(
        await start({ ...shared, ...stores, GATEHOUSE_ROLES: 'auth', GATEHOUSE_DATA_DIR: join(dir, `auth${i}`) }),
      );
    }
    // Proxies as deployed: no store credentials, /v1 forwarded to the auth tier (BENCH_PROXY_STORES=1:
    // proxies on the stores themselves, serving /v1 in-process, to compare the hop).
    const onStores = process.env.GATEHOUSE_BENCH_PROXY_STORES === '1';
    const authServers = auth.map((a) => new URL(a.authUrl).host).join(',');
    const proxies: Running[] = [];
    // Each proxy joins the auth tier with a join token of its own (docs/deploy.md "Joining a proxy").
    const joinTokenFor = () => joinTokenWithKey((auth[0] as Running).authUrl, KEY);
    for (const i of [0, 1]) {
      proxies.push(
        await start({
          ...shared,
          ...(onStores ? stores : { GATEHOUSE_AUTH_SERVERS: authServers, GATEHOUSE_JOIN_TOKEN: await joinTokenFor() }),
          GATEHOUSE_ROLES: 'proxy',
          GATEHOUSE_DATA_DIR: join(dir, `proxy${i}`),
        }),
      );
    }
    console.log(`proxies: ${onStores ? 'on the stores (serving /v1 themselves)' : 'forwarding /v1 to the auth tier'}`);
    const lb = await startHaproxy(proxies.map((p, i) => ({ name: `p${i}`, port: Number(new URL(p.webUrl).port) })));
    const tokenAt = async (url: string) => {
      const res = await api(url, 'POST', '/v1/auth/token', { body: { api_key: KEY } });
      if (res.status !== 200) throw new Error(`token: ${res.status} ${res.text}`);
      return res.json.access_token as string;
    };
    const gatehousePids = (rs: Running[]) => rs.map((r) => r.child.pid as number);
    const topologies: Topology[] = [
      {
        name: 'single',
        url: single.authUrl,
        token: await tokenAt(single.authUrl),
        pids: () => gatehousePids([single]),
      },
      {
        name: 'cluster',
        url: lb.url,
        token: await tokenAt(lb.url),
        pids: () => [
          ...gatehousePids([...auth, ...proxies]),
          ...pidsOf('gatehouse-etcd-'),
          ...pidsOf('gatehouse-haproxy-'),
        ],
        groups: {
          haproxy: () => pidsOf('gatehouse-haproxy-'),
          proxies: () => gatehousePids(proxies),
          auth: () => gatehousePids(auth),
          etcd: () => pidsOf('gatehouse-etcd-'),
        },
      },
    ];
    for (const t of topologies) {
      await seed(t);
      const key = await api(t.url, 'POST', '/v1/users/admin/api-keys', { token: t.token, body: { name: 'logins' } });
      if (key.status !== 201) throw new Error(`api key: ${key.status} ${key.text}`);
      t.loginKey = key.json.api_key as string;
      if (t.groups) t.idle = await idleRates(t, SECONDS);
    }

    const table: Record<string, Record<string, number[]>> = {};
    const note = (t: string, what: string, v: number) => {
      const row = table[t] ?? {};
      table[t] = row;
      row[what] = [...(row[what] ?? []), v];
    };
    // The reference is the single process, measured in the same round: CPU of every process per request.
    const loginCpuRatio = new RoundRatios('login CPU per login, cluster / single process', '≤ 4');
    const readCpuRatio = new RoundRatios('read CPU per request, cluster / single process', '≤ 2');
    // What the target leaves to Gatehouse: etcd's members alone (their CPU per login less what they
    // use unloaded) against the same single process. Above 4, the target is out of reach whatever the
    // auth and proxy instances cost; the second ratio is what those instances themselves cost.
    const etcdFloor = new RoundRatios('login CPU per login, etcd members alone (less idle) / single process');
    const gatehouseShare = new RoundRatios('login CPU per login, auth + proxy instances (less idle) / single process');
    const last = (t: string, what: string) => table[t]?.[what]?.at(-1) ?? Number.NaN;
    for (let round = 0; round < ROUNDS; round++) {
      for (const t of topologies) {
        const read = await load(t, {
          url: `${t.url}/v1/agents?per_page=20`,
          headers: { authorization: `Bearer ${t.token}` },
        });
        note(t.name, 'read rps', read.rps);
        note(t.name, 'read cpu µs', read.cpuUs);
        for (const [g, us] of Object.entries(read.byGroup)) note(t.name, `  read cpu µs: ${g}`, us);
        const login = await load(t, {
          url: `${t.url}/v1/auth/token`,
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ api_key: t.loginKey }),
        });
        note(t.name, 'login rps', login.rps);
        note(t.name, 'login cpu µs', login.cpuUs);
        for (const [g, us] of Object.entries(login.byGroup)) note(t.name, `  login cpu µs: ${g}`, us);
        for (const [g, us] of Object.entries(login.busyByGroup)) note(t.name, `  login cpu µs less idle: ${g}`, us);
        console.log(
          `round ${round + 1} ${t.name}: read ${read.rps.toFixed(0)}/s at ${read.cpuUs.toFixed(0)} µs, login ${login.rps.toFixed(0)}/s at ${login.cpuUs.toFixed(0)} µs` +
            (Object.keys(login.byGroup).length > 0
              ? ` (${Object.entries(login.byGroup)
                  .map(([g, us]) => `${g} ${us.toFixed(0)}`)
                  .join(', ')}; less each kind's idle CPU: ${Object.entries(login.busyByGroup)
                  .map(([g, us]) => `${g} ${us.toFixed(0)}`)
                  .join(', ')})`
              : ''),
        );
      }
      console.log(readCpuRatio.add(last('cluster', 'read cpu µs'), last('single', 'read cpu µs')));
      console.log(loginCpuRatio.add(last('cluster', 'login cpu µs'), last('single', 'login cpu µs')));
      const busy = (kind: string) => last('cluster', `  login cpu µs less idle: ${kind}`);
      console.log(etcdFloor.add(busy('etcd'), last('single', 'login cpu µs')));
      console.log(gatehouseShare.add(busy('auth') + busy('proxies'), last('single', 'login cpu µs')));
    }

    // Revocation propagation across the two proxies.
    const [pa, pb] = proxies as [Running, Running];
    const delays: number[] = [];
    for (let i = 0; i < TRIALS; i++) {
      const token = await tokenAt(pa.webUrl);
      while ((await api(pb.webUrl, 'GET', '/v1/roles', { token })).status !== 200);
      if ((await api(pa.webUrl, 'DELETE', '/v1/auth/revoke', { token })).status !== 200) throw new Error('revoke');
      const t0 = performance.now();
      while ((await api(pb.webUrl, 'GET', '/v1/roles', { token })).status !== 401);
      delays.push(performance.now() - t0);
    }
    delays.sort((x, y) => x - y);
    const pct = (p: number) => delays[Math.ceil(delays.length * p) - 1] as number;

    const m = (t: string, what: string) => median(table[t]?.[what] ?? [0]);
    console.log(`\nGatehouse cluster benchmark — ${cpus()[0]?.model} × ${cpus().length}, Node ${process.version}`);
    console.log(`${SECONDS} s × ${ROUNDS} rounds, 50 connections, medians\n`);
    console.log('                        single     cluster    cluster/single');
    for (const what of ['read rps', 'read cpu µs', 'login rps', 'login cpu µs']) {
      const s = m('single', what);
      const c = m('cluster', what);
      console.log(
        `${what.padEnd(22)}${s.toFixed(0).padStart(8)}${c.toFixed(0).padStart(12)}${(c / s).toFixed(2).padStart(14)}`,
      );
    }
    for (const what of ['read', 'login']) {
      const prefix = `  ${what} cpu µs: `;
      console.log(
        `  ${what} cpu µs per request by process kind (cluster): ${Object.keys(table.cluster ?? {})
          .filter((k) => k.startsWith(prefix))
          .map((k) => `${k.slice(prefix.length)} ${m('cluster', k).toFixed(0)}`)
          .join(', ')}`,
      );
    }
    const busy = '  login cpu µs less idle: ';
    console.log(
      `  login cpu µs per login by process kind, less what each uses unloaded (cluster): ${Object.keys(
        table.cluster ?? {},
      )
        .filter((k) => k.startsWith(busy))
        .map((k) => `${k.slice(busy.length)} ${m('cluster', k).toFixed(0)}`)
        .join(', ')}; unloaded CPU: ${Object.entries(topologies[1]?.idle ?? {})
        .map(([g, rate]) => `${g} ${(rate * 100).toFixed(1)} %`)
        .join(', ')} of a core`,
    );
    const cpuRatio = m('cluster', 'read cpu µs') / m('single', 'read cpu µs');
    console.log(
      `\nrevocation propagation proxy A → proxy B (${TRIALS} trials): p50 ${pct(0.5).toFixed(1)} ms, p99 ${pct(0.99).toFixed(1)} ms (target p99 < 1000 ms: ${pct(0.99) < 1000 ? 'met' : 'NOT met'})`,
    );
    console.log(
      `read path CPU per request, cluster/single: ${cpuRatio.toFixed(2)} (target ≤ 2: ${cpuRatio <= 2 ? 'met' : 'NOT met'})`,
    );
    console.log(readCpuRatio.summary());
    console.log(loginCpuRatio.summary());
    console.log(etcdFloor.summary());
    console.log(gatehouseShare.summary());
    await lb.close();
  } finally {
    await Promise.allSettled(processes.map((p) => stop(p, 'SIGTERM')));
    await etcd.close();
    await adminSql(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
