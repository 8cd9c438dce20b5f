// Starts a real Gatehouse on a free loopback port over a fresh data dir, stores N agents through
// the API, and announces its URL. Usage: node --import tsx bench/serve-gatehouse.ts <data-dir>
// with BENCH_API_KEY (the bootstrap admin API key, 32+ chars) and optionally BENCH_AGENTS (1000) and
// BENCH_SQLITE_SYNCHRONOUS (FULL, the default, or NORMAL: to see what the fsyncs cost), and
// BENCH_CPU_PROFILE=<file> for a CPU profile of the serving (setup excluded), and
// BENCH_INPROCESS_REFERENCE=1 to serve, once set up, the minimal pipeline (bench/minimal-pipeline.ts)
// on a port of its own in this same process, with Gatehouse's page and the setup's token: the same
// reference code, paying whatever this process makes every request cost (npm run bench leaves it out
// under BENCH_CPU_PROFILE: its requests would be in Gatehouse's profile).
import { rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import pino from 'pino';
import { loadConfig } from '../src/config/load.js';
import { startGatehouse } from '../src/server.js';
import { announceReady, exitOnParentGone, isStopping } from './child-protocol.js';
import { serveList } from './minimal-pipeline.js';

async function call(url: string, init: RequestInit): Promise<unknown> {
  const res = await fetch(url, init);
  const text = await res.text();
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${url}: ${res.status} ${text}`);
  return JSON.parse(text) as unknown;
}

let stopProfile: (() => Promise<void>) | undefined;
let stopReference: (() => Promise<void>) | undefined;

async function main(): Promise<void> {
  const dataDir = process.argv[2];
  const apiKey = process.env.BENCH_API_KEY;
  const agentCount = Number(process.env.BENCH_AGENTS ?? 1000);
  if (!dataDir || !apiKey) throw new Error('usage: BENCH_API_KEY=<key> serve-gatehouse.ts <data-dir>');

  const started = Date.now();
  const config = loadConfig({
    env: {},
    overrides: {
      data_dir: dataDir,
      auth_addr: '127.0.0.1:0',
      web_addr: '127.0.0.1:0',
      ssh_addr: '127.0.0.1:0',
      kube_addr: '127.0.0.1:0',
      db_addr: '127.0.0.1:0',
      metrics_addr: '127.0.0.1:0',
      bootstrap_api_key: apiKey,
      log_level: 'warn',
      ...(process.env.BENCH_SQLITE_SYNCHRONOUS ? { 'sqlite.synchronous': process.env.BENCH_SQLITE_SYNCHRONOUS } : {}),
      ...(process.env.BENCH_MAX_LOGINS_PER_KEY
        ? { 'tokens.max_logins_per_key': Number(process.env.BENCH_MAX_LOGINS_PER_KEY) }
        : {}),
    },
  });
  // Same level as configured, but on stderr: stdout carries the ready line.
  const gatehouse = await startGatehouse(config, { logger: pino({ level: config.log_level }, pino.destination(2)) });
  exitOnParentGone(async () => {
    await stopProfile?.();
    await stopReference?.();
    await gatehouse.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const url = gatehouse.authUrl as string;

  const { access_token: token } = (await call(`${url}/v1/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ api_key: apiKey }),
  })) as { access_token: string };

  // A few creations in flight at once; each waits for its own durable write.
  const width = Math.max(4, String(agentCount).length);
  let next = 0;
  const worker = async () => {
    while (next < agentCount) {
      const i = next++;
      await call(`${url}/v1/agents`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ name: `agent-${String(i + 1).padStart(width, '0')}` }),
      });
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));

  // BENCH_CPU_PROFILE=<file>: a CPU profile of this process from here (setup done) until it stops.
  const profileFile = process.env.BENCH_CPU_PROFILE;
  if (profileFile) {
    const profiler = new Session();
    profiler.connect();
    await profiler.post('Profiler.enable');
    await profiler.post('Profiler.start');
    stopProfile = async () => {
      const { profile } = await profiler.post('Profiler.stop');
      writeFileSync(profileFile, JSON.stringify(profile));
    };
  }
  let reference: { url: string; token: string } | undefined;
  if (process.env.BENCH_INPROCESS_REFERENCE === '1') {
    const page = await fetch(`${url}/v1/agents?per_page=20`, { headers: { authorization: `Bearer ${token}` } });
    if (page.status !== 200) throw new Error(`GET /v1/agents: ${page.status}`);
    const served = await serveList(await page.text(), token);
    stopReference = () => served.app.close();
    reference = { url: served.url, token };
  }
  announceReady({ url, agents: agentCount, setupMs: Date.now() - started, ...(reference ? { reference } : {}) });
}

main().catch((e: unknown) => {
  if (isStopping()) return; // shutting down mid-setup: the shutdown handler exits
  process.stderr.write(`serve-gatehouse: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
