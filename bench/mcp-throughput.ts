// npm run bench:mcp — what the MCP gateway adds to a tools/call, in one run: (1) latency at one
// client, calls one after another straight to an SDK v2 MCP server and through Gatehouse (token,
// access checker, tool and argument policy, mcp.tool.call event), same round; (2) throughput at 16
// keep-alive clients (autocannon, its own process) through Gatehouse and through a minimal Node
// forwarder (bench/mcp-children.ts) to the same server. The server, the forwarder and the load
// generator are processes of their own. Medians of BENCH_ROUNDS rounds (default 3), load beside each.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { request } from 'undici';
import { startTestServer, userWithRoles } from '../test/helpers/gatehouse.js';
import { startBenchChild } from './child-protocol.js';
import { intEnv, median, processCpuSeconds, RoundRatios } from './stats.js';

/** A child of bench/mcp-children.ts, once it printed its READY line (the bench child protocol). */
const child = (args: string[]) => startBenchChild<{ url: string }>(join(import.meta.dirname, 'mcp-children.ts'), args);

const CALL = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'echo', arguments: { text: 'hi' } },
});
const BASE_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-11-25',
};

/** Sequential calls at one client; per-call milliseconds. */
async function latencies(url: string, headers: Record<string, string>, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = process.hrtime.bigint();
    const res = await request(url, { method: 'POST', headers: { ...BASE_HEADERS, ...headers }, body: CALL });
    const text = await res.body.text();
    if (res.statusCode !== 200 || !text.includes('echo: hi'))
      throw new Error(`call failed: ${res.statusCode} ${text.slice(0, 200)}`);
    out.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return out;
}

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))] as number;

/** Calls per second, and CPU µs per call of the process `pid` (its whole process, from /proc) meanwhile. */
function autocannon(
  url: string,
  headers: Record<string, string>,
  pid: number | undefined,
): Promise<{ rate: number; cpuUs: number }> {
  const cpu0 = processCpuSeconds(pid);
  const args = ['-c', '16', '-d', '5', '-j', '-m', 'POST', '-b', CALL];
  for (const [k, v] of Object.entries({ ...BASE_HEADERS, ...headers })) args.push('-H', `${k}=${v}`);
  return new Promise((resolve, reject) =>
    execFile(join('node_modules', '.bin', 'autocannon'), [...args, url], { maxBuffer: 16 << 20 }, (err, stdout) => {
      if (err) return reject(err);
      const r = JSON.parse(stdout) as { requests: { average: number; total: number }; non2xx: number; errors: number };
      if (r.non2xx || r.errors) return reject(new Error(`autocannon: ${r.non2xx} non-2xx, ${r.errors} errors`));
      const cpuUs = ((processCpuSeconds(pid) - cpu0) * 1e6) / Math.max(1, r.requests.total);
      resolve({ rate: r.requests.average, cpuUs });
    }),
  );
}

async function main(): Promise<void> {
  const rounds = intEnv('BENCH_ROUNDS', 3, 1);
  const calls = intEnv('BENCH_MCP_CALLS', 500, 10);
  const upstream = await child(['upstream']);
  const forwarder = await child(['forwarder', upstream.url]);
  const gh = await startTestServer();
  try {
    const admin = (path: string, body: unknown) =>
      request(`${gh.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${gh.adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).then(async (r) => ({ status: r.statusCode, json: (await r.body.json()) as { mcp_url: string } }));
    const app = await admin('/v1/resources', { kind: 'app', name: 'bench-mcp', uri: upstream.url, protocol: 'mcp' });
    await admin('/v1/roles', { name: 'bench-mcp', allow: { resources: [{ kinds: ['app'] }], mcp_tools: ['*'] } });
    const user = await userWithRoles(gh, 'bench', ['bench-mcp']);
    const port = new URL(gh.webUrl).port;
    // The app host by its Host header, on the listener's loopback address (no DNS for *.localhost).
    const viaGatehouse = `http://127.0.0.1:${port}${new URL(app.json.mcp_url).pathname}`;
    const ghHeaders = { host: `bench-mcp.localhost:${port}`, authorization: `Bearer ${user.token}` };
    await latencies(viaGatehouse, ghHeaders, 50); // warm-up: sessions, pools, JIT
    await latencies(upstream.url, {}, 50);
    const throughput = new RoundRatios('throughput at 16 clients, Gatehouse / minimal forwarder', '≥ 0.8');
    // Steadier than a rate on a shared machine: time spent waiting for a core is not counted.
    const cpu = new RoundRatios('CPU per call at 16 clients, minimal forwarder / Gatehouse');
    const p50s: number[] = [];
    const p99s: number[] = [];
    for (let r = 0; r < rounds; r++) {
      const direct = await latencies(upstream.url, {}, calls);
      const through = await latencies(viaGatehouse, ghHeaders, calls);
      p50s.push(pct(through, 50) - pct(direct, 50));
      p99s.push(pct(through, 99) - pct(direct, 99));
      console.log(
        `  round ${r + 1}: 1 client p50 ${pct(direct, 50).toFixed(2)} → ${pct(through, 50).toFixed(2)} ms, p99 ${pct(direct, 99).toFixed(2)} → ${pct(through, 99).toFixed(2)} ms`,
      );
      const reference = await autocannon(forwarder.url, {}, forwarder.proc.pid);
      // Gatehouse runs in this process (otherwise idle while autocannon, a child, drives the load).
      const gatehouse = await autocannon(viaGatehouse, ghHeaders, process.pid);
      console.log(
        `${throughput.add(gatehouse.rate, reference.rate)}  (${gatehouse.rate.toFixed(0)} vs ${reference.rate.toFixed(0)} calls/s)`,
      );
      console.log(
        `${cpu.add(reference.cpuUs, gatehouse.cpuUs)}  (${reference.cpuUs.toFixed(0)} vs ${gatehouse.cpuUs.toFixed(0)} µs)`,
      );
    }
    console.log(
      `added latency at 1 client: p50 ${median(p50s).toFixed(2)} ms (target < 1), p99 ${median(p99s).toFixed(2)} ms (target < 5)`,
    );
    console.log(throughput.summary());
    console.log(cpu.summary());
  } finally {
    await gh.stop();
    upstream.proc.stdin?.end();
    forwarder.proc.stdin?.end();
  }
}

void main().catch((err) => {
  console.error(err);
  process.exit(1);
});
