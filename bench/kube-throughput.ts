// npm run bench:kube — the Kubernetes proxy's cost, measured in one run against the fake API server
// (test/helpers/fake-kube-apiserver.ts; no real one can run here): (1) GET /api/v1/namespaces/
// default/pods, autocannon with 16 keep-alive connections for 5 s, straight to the fake vs through
// Gatehouse (token check, RBAC, impersonation, kube.request event), and through a minimal forwarder
// (bench/kube-minimal-proxy.ts: TLS in, TLS out, nothing else), through the same forwarder doing the
// unavoidable work (its auditing mode: token lookup, a cached decision, one stored event a request;
// the reference the ≥ 0.7 target is stated against) and haproxy doing the same
// (bench/kube-haproxy.ts) as the ceilings of a TLS-terminating proxy on Node and of one in C; (2) 64 MiB through real
// `kubectl exec -i … cat` straight vs through Gatehouse (recorded). The fake, Gatehouse and the load
// generator are three processes (one event loop each, as in a deployment). Medians of 3 rounds.
// Knobs: BENCH_KUBE_CONNECTIONS (autocannon's, 16), BENCH_KUBE_ROUNDS (3), BENCH_KUBE_GET_ONLY (skip
// exec), BENCH_KUBE_PROFILE=<file> (a CPU profile of Gatehouse per round: its CPU figures then
// include the profiler's cost, so compare them only with other profiled runs).
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { kubectlBinary } from '../test/helpers/fake-kube-apiserver-kubectl.js';
import { api, startTestServer, userWithRoles } from '../test/helpers/gatehouse.js';
import { startBenchChild } from './child-protocol.js';
import { type HaproxyForwarder, startHaproxyForwarder } from './kube-haproxy.js';
import { processCpuSeconds, RoundRatios } from './stats.js';

// BENCH_KUBE_ROUNDS: rounds of the GET comparison (3 unless set); more rounds on a noisy machine.
const rounds = Number(process.env.BENCH_KUBE_ROUNDS ?? 3);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

interface ChildReady {
  proc: ChildProcess;
  url: string;
  caPem: string;
}

const startChild = <T>(script: string, args: string[] = []): Promise<ChildReady & T> =>
  startBenchChild<Omit<ChildReady, 'proc'> & T>(join(import.meta.dirname, script), args);

/** autocannon in its own process; the CAs it must trust come through NODE_EXTRA_CA_CERTS. */
function requestsPerSecond(url: string, headers: Record<string, string>, caFile: string): Promise<number> {
  const args = [
    '-c',
    process.env.BENCH_KUBE_CONNECTIONS ?? '16',
    '-d',
    '5',
    '-j',
    ...Object.entries(headers).flatMap(([k, v]) => ['-H', `${k}=${v}`]),
    url,
  ];
  return new Promise((resolve, reject) => {
    execFile(
      join('node_modules', '.bin', 'autocannon'),
      args,
      { env: { ...process.env, NODE_EXTRA_CA_CERTS: caFile }, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout) => {
        if (err) return reject(err);
        const r = JSON.parse(stdout) as {
          requests: { average: number };
          latency: { p50: number };
          non2xx: number;
          errors: number;
        };
        if (process.env.BENCH_KUBE_CONNECTIONS) console.log(`  ${url}: p50 latency ${r.latency.p50} ms`);
        if (r.non2xx > 0 || r.errors > 0) return reject(new Error(`${r.non2xx} non-2xx, ${r.errors} errors`));
        resolve(r.requests.average);
      },
    );
  });
}

function execMiBps(kubeconfig: string, home: string, mib: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(kubectlBinary(33), ['exec', '-i', 'web-1', '--', 'cat'], {
      env: { PATH: process.env.PATH ?? '', HOME: home, KUBECONFIG: kubeconfig },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let got = 0;
    child.stdout.on('data', (d: Buffer) => {
      got += d.length;
    });
    const chunk = Buffer.alloc(1024 * 1024, 'x');
    let sent = 0;
    const pump = () => {
      while (sent < mib) {
        sent++;
        if (!child.stdin.write(chunk)) return void child.stdin.once('drain', pump);
      }
      child.stdin.end();
    };
    pump();
    child.on('close', (code) => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      if (code !== 0 || got !== mib * 1024 * 1024) reject(new Error(`exec: code ${code}, ${got} bytes back`));
      else resolve(mib / seconds);
    });
  });
}

const fake = await startChild<{ token: string }>('kube-fake-server.ts');
let minimal: ChildReady | undefined;
let auditing: ChildReady | undefined;
let haproxy: HaproxyForwarder | undefined;
const gh = await startTestServer({ 'recordings.session_max_bytes': 256 * 1024 * 1024 });
try {
  const cluster = await api(gh.url, 'POST', '/v1/resources', {
    token: gh.adminToken,
    body: { kind: 'kube_cluster', name: 'bench', address: fake.url, kube: { ca_pem: fake.caPem, token: fake.token } },
  });
  await api(gh.url, 'POST', '/v1/roles', {
    token: gh.adminToken,
    body: {
      name: 'kube-bench',
      allow: {
        rules: [{ resources: ['resources'], verbs: ['read'] }],
        resources: [{ kinds: ['kube_cluster'] }],
        kube_groups: ['bench'],
      },
    },
  });
  const user = await userWithRoles(gh, 'bencher', ['kube-bench']);
  const kc = await api(gh.url, 'GET', `/v1/resources/${cluster.json.id}/kubeconfig`, { token: user.token });
  const proxyToken = /token: (\S+)/.exec(kc.text)?.[1] as string;
  const proxyCa = Buffer.from(/certificate-authority-data: (\S+)/.exec(kc.text)?.[1] as string, 'base64').toString();
  const proxyServer = /server: (\S+)/.exec(kc.text)?.[1] as string;
  const path = '/api/v1/namespaces/default/pods';

  const fakeCaFile = join(gh.dataDir, 'fake-ca.pem');
  writeFileSync(fakeCaFile, fake.caPem);
  const minimalDir = join(gh.dataDir, 'minimal-proxy');
  mkdirSync(minimalDir);
  minimal = await startChild('kube-minimal-proxy.ts', [fake.url, fakeCaFile, fake.token, minimalDir]);
  // The same forwarder doing the unavoidable work: token lookup, a cached decision, one stored event a request.
  const auditingDir = join(gh.dataDir, 'auditing-proxy');
  mkdirSync(auditingDir);
  const referenceToken = 'gh-bench-reference-token';
  auditing = await startChild('kube-minimal-proxy.ts', [
    fake.url,
    fakeCaFile,
    fake.token,
    auditingDir,
    join(auditingDir, 'audit.db'),
    referenceToken,
  ]);
  const haproxyDir = join(gh.dataDir, 'haproxy');
  mkdirSync(haproxyDir);
  haproxy = await startHaproxyForwarder(fake.url, fakeCaFile, fake.token, haproxyDir);
  if (!haproxy) console.log('haproxy is not installed: no native forwarder in this run (apt-get install haproxy)');
  const caFile = join(gh.dataDir, 'bench-cas.pem');
  writeFileSync(caFile, `${fake.caPem}\n${proxyCa}\n${minimal.caPem}\n${auditing.caPem}\n${haproxy?.caPem ?? ''}\n`);
  const direct: number[] = [];
  const viaMinimal: number[] = [];
  const viaHaproxy: number[] = [];
  const proxied: number[] = [];
  const viaAuditing: number[] = [];
  const ratio = new RoundRatios('GET pods, Gatehouse / minimal auditing proxy (req/s)', '≥ 0.7 (goal 0.8)');
  const cpuRatio = new RoundRatios('GET pods, minimal auditing proxy / Gatehouse CPU per request');
  const fwdRatio = new RoundRatios('GET pods, Gatehouse / bare forwarder (req/s; no token, decision or audit)');
  const fwdCpuRatio = new RoundRatios('GET pods, bare forwarder / Gatehouse CPU per request');
  for (let round = 0; round < rounds; round++) {
    // Straight to the fake with what the proxy would send: its token and the impersonation.
    const asUser = { 'impersonate-user': 'bencher', 'impersonate-group': 'bench' };
    direct.push(await requestsPerSecond(fake.url + path, { authorization: `Bearer ${fake.token}`, ...asUser }, caFile));
    const minimalCpu0 = processCpuSeconds(minimal.proc.pid);
    viaMinimal.push(await requestsPerSecond(minimal.url + path, {}, caFile));
    // CPU per request over 5 s of load (µs): the forwarder's process, and Gatehouse's (this one).
    const minimalCpuUs = ((processCpuSeconds(minimal.proc.pid) - minimalCpu0) * 1e6) / ((viaMinimal.at(-1) ?? 1) * 5);
    const auditingCpu0 = processCpuSeconds(auditing.proc.pid);
    viaAuditing.push(
      await requestsPerSecond(auditing.url + path, { authorization: `Bearer ${referenceToken}` }, caFile),
    );
    const auditingCpuUs =
      ((processCpuSeconds(auditing.proc.pid) - auditingCpu0) * 1e6) / ((viaAuditing.at(-1) ?? 1) * 5);
    if (haproxy) viaHaproxy.push(await requestsPerSecond(haproxy.url + path, {}, caFile));
    // BENCH_KUBE_PROFILE=<file>: a CPU profile of Gatehouse (this process) while it serves the load.
    const profiler = process.env.BENCH_KUBE_PROFILE ? new Session() : undefined;
    profiler?.connect();
    await profiler?.post('Profiler.enable');
    await profiler?.post('Profiler.start');
    const ghCpu0 = process.cpuUsage();
    proxied.push(await requestsPerSecond(proxyServer + path, { authorization: `Bearer ${proxyToken}` }, caFile));
    const ghCpu = process.cpuUsage(ghCpu0);
    const ghCpuUs = (ghCpu.user + ghCpu.system) / ((proxied.at(-1) ?? 1) * 5);
    console.log(
      `round ${round + 1}: direct ${direct.at(-1)?.toFixed(0)}, minimal forwarder ${viaMinimal.at(-1)?.toFixed(0)} (${minimalCpuUs.toFixed(0)} µs CPU/req), ` +
        `minimal auditing proxy ${viaAuditing.at(-1)?.toFixed(0)} (${auditingCpuUs.toFixed(0)} µs CPU/req), ` +
        `Gatehouse ${proxied.at(-1)?.toFixed(0)} req/s (${ghCpuUs.toFixed(0)} µs CPU/req)`,
    );
    console.log(ratio.add(proxied.at(-1) ?? 0, viaAuditing.at(-1) ?? 1));
    console.log(cpuRatio.add(auditingCpuUs, ghCpuUs));
    console.log(fwdRatio.add(proxied.at(-1) ?? 0, viaMinimal.at(-1) ?? 1));
    console.log(fwdCpuRatio.add(minimalCpuUs, ghCpuUs));
    if (profiler) {
      const { profile } = await profiler.post('Profiler.stop');
      writeFileSync(`${process.env.BENCH_KUBE_PROFILE}.${round}.cpuprofile`, JSON.stringify(profile));
    }
  }
  console.log(
    `GET pods direct:  median ${median(direct).toFixed(0)} req/s  (${direct.map((x) => x.toFixed(0)).join(', ')})`,
  );
  console.log(
    `GET pods via a minimal forwarder: median ${median(viaMinimal).toFixed(0)} req/s  (${viaMinimal.map((x) => x.toFixed(0)).join(', ')})`,
  );
  if (haproxy) {
    console.log(
      `GET pods via haproxy (${haproxy.threads} thread${haproxy.threads === 1 ? '' : 's'}): median ${median(viaHaproxy).toFixed(0)} req/s  (${viaHaproxy.map((x) => x.toFixed(0)).join(', ')})`,
    );
  }
  console.log(
    `GET pods proxied: median ${median(proxied).toFixed(0)} req/s  (${proxied.map((x) => x.toFixed(0)).join(', ')})`,
  );
  for (const r of [ratio, cpuRatio, fwdRatio, fwdCpuRatio]) console.log(r.summary());
  console.log(`ratio proxied/direct: ${(median(proxied) / median(direct)).toFixed(2)}`);
  console.log(
    `ratio minimal forwarder/direct: ${(median(viaMinimal) / median(direct)).toFixed(2)}; Gatehouse/minimal forwarder: ${(median(proxied) / median(viaMinimal)).toFixed(2)}`,
  );
  if (haproxy) {
    console.log(
      `ratio haproxy/direct: ${(median(viaHaproxy) / median(direct)).toFixed(2)}; Gatehouse/haproxy: ${(median(proxied) / median(viaHaproxy)).toFixed(2)}`,
    );
  }

  if (process.env.BENCH_KUBE_GET_ONLY) {
    await gh.stop();
    fake.proc.kill('SIGTERM');
    minimal.proc.kill('SIGTERM');
    auditing.proc.kill('SIGTERM');
    haproxy?.stop();
    process.exit(0);
  }
  // kubectl straight to the fake: a kubeconfig with the fake's own CA and token (and impersonation off).
  const home = gh.dataDir;
  const directConfig = join(home, 'direct.kubeconfig');
  writeFileSync(
    directConfig,
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        {
          name: 'f',
          cluster: { server: fake.url, 'certificate-authority-data': Buffer.from(fake.caPem).toString('base64') },
        },
      ],
      users: [{ name: 'f', user: { token: fake.token, as: 'bencher', 'as-groups': ['bench'] } }],
      contexts: [{ name: 'f', context: { cluster: 'f', user: 'f', namespace: 'default' } }],
      'current-context': 'f',
    }),
  );
  const proxyConfig = join(home, 'proxy.kubeconfig');
  writeFileSync(proxyConfig, kc.text);
  const mib = 64;
  const execDirect: number[] = [];
  const execProxied: number[] = [];
  for (let round = 0; round < 3; round++) {
    execDirect.push(await execMiBps(directConfig, home, mib));
    execProxied.push(await execMiBps(proxyConfig, home, mib));
  }
  console.log(`exec -i cat ${mib} MiB direct:  median ${median(execDirect).toFixed(1)} MiB/s`);
  console.log(`exec -i cat ${mib} MiB proxied (recorded): median ${median(execProxied).toFixed(1)} MiB/s`);
  console.log(`ratio proxied/direct: ${(median(execProxied) / median(execDirect)).toFixed(2)} (target 0.8)`);
} finally {
  await gh.stop();
  fake.proc.kill('SIGTERM');
  minimal?.proc.kill('SIGTERM');
  auditing?.proc.kill('SIGTERM');
  haproxy?.stop();
}
