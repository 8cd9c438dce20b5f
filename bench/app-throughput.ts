// npm run bench:app — the app door's cost, measured in one run: GET / of a small page, autocannon
// (keep-alive) at 1 and 16 connections, (a) straight to the app, (b) through a minimal Node
// forwarder (bench/app-minimal-proxy.ts: hop-by-hop headers dropped, keep-alive to the app, nothing
// else) and (c) through Gatehouse's app door (bearer token through the principal pipeline, the
// access checker and app_rules, the identity JWT, header filtering, an app.request event for every
// request). Plain HTTP on every side (the same unavoidable work). The app, the forwarder, Gatehouse
// and the load generator are four processes. Each round measures all three back to back, so the
// ratio Gatehouse / forwarder shares its moment; medians over BENCH_ROUNDS rounds (default 3) of
// BENCH_SECONDS (default 4) each. Added latency: p50 and p99 through the door minus straight to the app.
// BENCH_APP_PROFILE=<file>: a CPU profile of Gatehouse (this process) during its last 16-connection
// round, for Chrome DevTools or speedscope.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { request } from 'undici';
import { api, startTestServer, userWithRoles } from '../test/helpers/gatehouse.js';
import { READY_PREFIX } from './child-protocol.js';
import { intEnv, loadNow, median, processCpuSeconds, RoundRatios } from './stats.js';

const ROUNDS = intEnv('BENCH_ROUNDS', 3, 1);
const SECONDS = intEnv('BENCH_SECONDS', 4, 1);

function child(script: string, args: string[] = []): Promise<{ proc: ChildProcess; url: string }> {
  const proc = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, script), ...args], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    proc.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const line = out.split('\n').find((l) => l.startsWith(READY_PREFIX));
      if (line) resolve({ proc, url: JSON.parse(line.slice(READY_PREFIX.length)).url });
    });
    proc.on('exit', (code) => reject(new Error(`${script} exited (${code})`)));
  });
}

interface Load {
  rps: number;
  total: number;
  p50: number;
  p99: number;
}

/** autocannon in its own process: requests per second and latency percentiles (ms). */
function load(url: string, connections: number, headers: Record<string, string>): Promise<Load> {
  const args = ['-c', String(connections), '-d', String(SECONDS), '-j'];
  for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}=${v}`);
  return new Promise((resolve, reject) => {
    execFile(join('node_modules', '.bin', 'autocannon'), [...args, url], { maxBuffer: 16 << 20 }, (err, stdout) => {
      if (err) return reject(err);
      const r = JSON.parse(stdout) as {
        requests: { average: number; total: number };
        latency: { p50: number; p99: number };
        non2xx: number;
        errors: number;
      };
      if (r.non2xx > 0 || r.errors > 0) return reject(new Error(`${url}: ${r.non2xx} non-2xx, ${r.errors} errors`));
      resolve({ rps: r.requests.average, total: r.requests.total, p50: r.latency.p50, p99: r.latency.p99 });
    });
  });
}

const upstream = await child('app-upstream-server.ts');
const minimal = await child('app-minimal-proxy.ts', [upstream.url]);
const gh = await startTestServer({ log_level: 'silent' });
try {
  const created = await api(gh.url, 'POST', '/v1/resources', {
    token: gh.adminToken,
    body: { kind: 'app', name: 'bench', uri: upstream.url },
  });
  if (created.status !== 201) throw new Error(created.text);
  await api(gh.url, 'POST', '/v1/roles', {
    token: gh.adminToken,
    body: { name: 'app-bench', allow: { resources: [{ kinds: ['app'] }] } },
  });
  const user = await userWithRoles(gh, 'bencher', ['app-bench']);
  const host = new URL(created.json.public_url).host;
  const door = { host, authorization: `Bearer ${user.token}` };
  const check = await request(`${gh.webUrl}/`, { headers: door });
  if (check.statusCode !== 200) throw new Error(`through the door: ${check.statusCode} ${await check.body.text()}`);
  await check.body.dump();

  for (const connections of [1, 16]) {
    console.log(`GET / at ${connections} connection${connections === 1 ? '' : 's'}, ${ROUNDS} rounds of ${SECONDS} s`);
    const ratio = new RoundRatios(`c=${connections} Gatehouse / minimal forwarder (req/s)`, '≥ 0.8');
    // CPU per request of each proxy's whole process (from /proc): steadier than a rate when the
    // machine is shared, since time spent waiting for a core is not counted.
    const cpu = new RoundRatios(`c=${connections} CPU per request, minimal forwarder / Gatehouse`);
    const cpuPerRequest = async (pid: number | undefined, run: () => Promise<Load>) => {
      const before = processCpuSeconds(pid);
      const got = await run();
      return { got, us: ((processCpuSeconds(pid) - before) * 1e6) / Math.max(1, got.total) };
    };
    const rows = { direct: [] as Load[], minimal: [] as Load[], gatehouse: [] as Load[] };
    for (let round = 0; round < ROUNDS; round++) {
      rows.direct.push(await load(`${upstream.url}/`, connections, {}));
      const viaMinimal = await cpuPerRequest(minimal.proc.pid, () => load(`${minimal.url}/`, connections, {}));
      // Gatehouse runs in this process (idle otherwise while autocannon, a child, drives the load).
      const profiled =
        process.env.BENCH_APP_PROFILE &&
        connections === intEnv('BENCH_APP_PROFILE_CONNECTIONS', 16, 1) &&
        round === ROUNDS - 1;
      const profiler = profiled ? new Session() : undefined;
      profiler?.connect();
      await profiler?.post('Profiler.enable');
      await profiler?.post('Profiler.start');
      const viaGatehouse = await cpuPerRequest(process.pid, () => load(`${gh.webUrl}/`, connections, door));
      if (profiler) {
        const { profile } = await profiler.post('Profiler.stop');
        writeFileSync(process.env.BENCH_APP_PROFILE as string, JSON.stringify(profile));
        profiler.disconnect();
      }
      rows.minimal.push(viaMinimal.got);
      rows.gatehouse.push(viaGatehouse.got);
      const [d, m, g] = [rows.direct, rows.minimal, rows.gatehouse].map((r) => r.at(-1) as Load) as [Load, Load, Load];
      console.log(
        `  round ${round + 1}: direct ${d.rps.toFixed(0)}, minimal ${m.rps.toFixed(0)}, Gatehouse ${g.rps.toFixed(0)} req/s; ` +
          `p50/p99 ms direct ${d.p50}/${d.p99}, minimal ${m.p50}/${m.p99}, Gatehouse ${g.p50}/${g.p99}`,
      );
      console.log(ratio.add(g.rps, m.rps));
      console.log(
        `${cpu.add(viaMinimal.us, viaGatehouse.us)}  (${viaMinimal.us.toFixed(0)} vs ${viaGatehouse.us.toFixed(0)} µs)`,
      );
    }
    const med = (rs: Load[], k: keyof Load) => median(rs.map((r) => r[k]));
    for (const [name, rs] of Object.entries(rows))
      console.log(
        `  ${name}: median ${med(rs, 'rps').toFixed(0)} req/s, p50 ${med(rs, 'p50')} ms, p99 ${med(rs, 'p99')} ms`,
      );
    console.log(
      `  added latency through Gatehouse (vs direct): p50 ${(med(rows.gatehouse, 'p50') - med(rows.direct, 'p50')).toFixed(1)} ms, ` +
        `p99 ${(med(rows.gatehouse, 'p99') - med(rows.direct, 'p99')).toFixed(1)} ms; minimal forwarder: p50 ` +
        `${(med(rows.minimal, 'p50') - med(rows.direct, 'p50')).toFixed(1)} ms, p99 ${(med(rows.minimal, 'p99') - med(rows.direct, 'p99')).toFixed(1)} ms`,
    );
    console.log(ratio.summary());
    console.log(cpu.summary());
  }
  const events = await api(gh.url, 'GET', '/v1/events?type=app.request&per_page=1', { token: gh.adminToken });
  console.log(
    `every request audited: app.request events present: ${events.json.events.length > 0}; load ${loadNow().toFixed(1)}`,
  );
} finally {
  await gh.stop();
  upstream.proc.kill('SIGTERM');
  minimal.proc.kill('SIGTERM');
}
