// What a login's two token rows cost the embedded state store, keyed as tokens are (issue time, then
// hash) vs by hash alone as before: 32 concurrent logins over a store already holding
// BENCH_TOKENS (100k) tokens, CPU of every thread of this process per login. Usage:
// npx tsx bench/state-token-rows.ts
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteBackend } from '../src/backend/sqlite.js';
import { generateSecret, generateToken, hashSecret, tokenId } from '../src/lib/secrets.js';

const STORED = Number(process.env.BENCH_TOKENS ?? 100_000);
const LOGINS = Number(process.env.BENCH_LOGINS ?? 20_000);
const value = JSON.stringify({
  principal: { kind: 'user', id: 'user_abcdefghijklmnop' },
  family: 'abcdefghijklmnop',
  issued_at: Date.now(),
  api_key_id: 'key_abcdefghijklmnop',
  kind: 'access',
  expires_at: Date.now() + 3_600_000,
});
const keyOf = {
  'hash only': () => `tokens/${hashSecret(generateSecret('accessToken'))}`,
  'time, hash': () => `tokens/${tokenId(generateToken('accessToken', Date.now()))}`,
};

for (const round of [1, 2]) {
  for (const [mode, key] of Object.entries(keyOf)) {
    const dir = mkdtempSync(join(tmpdir(), 'gatehouse-bench-tokens-'));
    const backend = openSqliteBackend({ path: join(dir, 'state.db') });
    const login = () =>
      backend.atomicWrite(
        [],
        [0, 1].map(() => ({ type: 'put' as const, key: key(), value, expiresAt: Date.now() + 86_400_000 })),
      );
    for (let i = 0; i < STORED / 100; i++) await Promise.all(Array.from({ length: 50 }, login));
    const cpu = process.cpuUsage();
    const started = performance.now();
    let issued = 0;
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (issued < LOGINS) {
          issued++;
          await login();
        }
      }),
    );
    const used = process.cpuUsage(cpu);
    const ms = performance.now() - started;
    console.log(
      `round ${round}  ${mode.padEnd(10)}  ${Math.round((LOGINS / ms) * 1000)} logins/s  ${((used.user + used.system) / LOGINS).toFixed(1)} µs CPU per login`,
    );
    await backend.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
