// A Gatehouse for bench/audit-api.ts on a fresh data dir, with the audit store that BENCH_AUDIT names:
// `postgres` (BENCH_AUDIT_URL, a postgres:// URL with its own ?schema=) or `noop` (events kept
// nowhere; bench/noop-audit-hooks.mjs swaps the store opener). Announces its URL and an admin token.
// Usage: BENCH_API_KEY=<key> BENCH_AUDIT=postgres|noop node --import tsx bench/serve-gatehouse-audit.ts <data-dir>

import { existsSync, rmSync } from 'node:fs';
import { register } from 'node:module';
import { join } from 'node:path';
import pino from 'pino';
import { announceReady, exitOnParentGone, isStopping } from './child-protocol.js';

async function main(): Promise<void> {
  const dataDir = process.argv[2];
  const apiKey = process.env.BENCH_API_KEY;
  const mode = process.env.BENCH_AUDIT;
  if (!dataDir || !apiKey || (mode !== 'postgres' && mode !== 'noop')) {
    throw new Error('usage: BENCH_API_KEY=<key> BENCH_AUDIT=postgres|noop serve-gatehouse-audit.ts <data-dir>');
  }
  if (mode === 'postgres' && !process.env.BENCH_AUDIT_URL)
    throw new Error('BENCH_AUDIT=postgres needs BENCH_AUDIT_URL');
  // Before Gatehouse's modules load: the hook decides which store opener they import.
  if (mode === 'noop') register('./noop-audit-hooks.mjs', import.meta.url);
  const { loadConfig } = await import('../src/config/load.js');
  const { startGatehouse } = await import('../src/server.js');

  const config = loadConfig({
    env: {},
    overrides: {
      data_dir: dataDir,
      auth_addr: '127.0.0.1:0',
      web_addr: '127.0.0.1:0',
      ssh_addr: '127.0.0.1:0',
      kube_addr: '127.0.0.1:0',
      db_addr: '127.0.0.1:0',
      metrics_enabled: false,
      bootstrap_api_key: apiKey,
      log_level: 'warn',
      ...(mode === 'postgres' ? { audit_url: process.env.BENCH_AUDIT_URL } : {}),
    },
  });
  const gatehouse = await startGatehouse(config, { logger: pino({ level: config.log_level }, pino.destination(2)) });
  exitOnParentGone(async () => {
    await gatehouse.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  // The hook must have taken: a Gatehouse that fell back to the default store writes audit.db.
  if (mode === 'noop' && existsSync(join(dataDir, 'audit.db'))) {
    throw new Error('the no-op audit store was not swapped in (bench/noop-audit-hooks.mjs)');
  }
  const url = gatehouse.authUrl as string;
  const res = await fetch(`${url}/v1/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ api_key: apiKey }),
  });
  if (!res.ok) throw new Error(`POST /v1/auth/token: ${res.status} ${await res.text()}`);
  const { access_token: token } = (await res.json()) as { access_token: string };
  announceReady({ url, token });
}

main().catch((e: unknown) => {
  if (isStopping()) return;
  process.stderr.write(`serve-gatehouse-audit: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
