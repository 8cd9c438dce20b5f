// Heap kept per login (issue 36: ≤ 1 KB), on a real embedded Gatehouse in this process: N logins
// through the token service (as POST /v1/auth/token does, without HTTP), garbage collected before
// and after, heap difference over N. Each login's two tokens are live (not yet expired): what a
// login costs every instance for as long as it is kept. Deterministic enough to compare commits
// (--expose-gc; no timing involved). Usage:
//   node --expose-gc --import tsx bench/login-memory.ts        (BENCH_LOGINS, default 20,000)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { loadConfig } from '../src/config/load.js';
import { startGatehouse } from '../src/server.js';
import { intEnv } from './stats.js';

const LOGINS = intEnv('BENCH_LOGINS', 20_000, 100);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

/** Heap used after full collections (a few, so weak and finalized objects are gone too). */
function heapUsed(): number {
  for (let i = 0; i < 4; i++) gc?.();
  return process.memoryUsage().heapUsed;
}

const dir = mkdtempSync(join(tmpdir(), 'gatehouse-login-memory-'));
const apiKey = `bench-memory-${'k'.repeat(32)}`;
const config = loadConfig({
  env: {},
  overrides: {
    data_dir: dir,
    roles: ['auth'],
    auth_addr: '127.0.0.1:0',
    metrics_addr: '127.0.0.1:0',
    bootstrap_api_key: apiKey,
    log_level: 'warn',
    // One key for every login: below the bound, so no login ends another here.
    'tokens.max_logins_per_key': 1_000_000,
  },
});
const gatehouse = await startGatehouse(config, { logger: pino({ level: 'warn' }, pino.destination(2)) });
try {
  const { tokens } = gatehouse.services;
  const login = (i: number) => tokens.issueForApiKey(apiKey, { remoteAddr: '127.0.0.1', requestId: `req-${i}` });
  const run = async (n: number) => {
    let next = 0;
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (next < n) await login(next++);
      }),
    );
  };
  await run(1000); // warm-up: code, caches, the key's structures
  const before = heapUsed();
  await run(LOGINS);
  const after = heapUsed();
  const perLogin = (after - before) / LOGINS;
  console.log(
    `${LOGINS} logins: heap ${(before / 2 ** 20).toFixed(1)} → ${(after / 2 ** 20).toFixed(1)} MiB, ` +
      `${Math.round(perLogin)} bytes per login (target ≤ 1,024)`,
  );
} finally {
  await gatehouse.close();
  rmSync(dir, { recursive: true, force: true });
}
