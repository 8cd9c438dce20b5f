// What a login costs every instance, and for how long (issue 36): the heap a live login keeps
// (≤ 1 KB: its two token records, their keys and their place in the token index), and how long its
// records outlive their expiry (an hour unless revoked, a day once revoked).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { openSqliteBackend } from '../src/backend/sqlite.js';
import { ADMIN_KEY, api, startTestServer } from './helpers/gatehouse.js';

const HOUR = 3_600_000;
const storeKey = (token: string) => `tokens/${token.slice(4, 16)}-${createHash('sha256').update(token).digest('hex')}`;

test('a live login keeps at most 1 KB of heap', async () => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const heap = () => {
    for (let i = 0; i < 4; i++) gc();
    return process.memoryUsage().heapUsed;
  };
  // One key for every login, below its bound: no login ends another.
  const server = await startTestServer({ 'tokens.max_logins_per_key': 1_000_000 });
  try {
    const { tokens } = server.gatehouse.services;
    let last = '';
    const run = async (n: number) => {
      let next = 0;
      await Promise.all(
        Array.from({ length: 32 }, async () => {
          while (next < n) {
            const i = next++;
            last = (await tokens.issueForApiKey(ADMIN_KEY, { remoteAddr: '127.0.0.1', requestId: `req-${i}` }))
              .access_token;
          }
        }),
      );
    };
    await run(1000);
    const before = heap();
    const logins = 10_000;
    await run(logins);
    const perLogin = (heap() - before) / logins;
    // The logins are kept (not measured away): the last one still opens the API.
    assert.equal((await api(server.url, 'GET', '/v1/users', { token: last })).status, 200);
    assert.ok(perLogin <= 1024, `${Math.round(perLogin)} bytes of heap per login (1,605 before issue 36)`);
  } finally {
    await server.stop();
  }
});

test('an expired token nobody revoked is kept an hour past its expiry, a revoked one a day', async () => {
  const server = await startTestServer();
  const login = async () => (await api(server.url, 'POST', '/v1/auth/token', { body: { api_key: ADMIN_KEY } })).json;
  const kept = await login();
  const revoked = await login();
  assert.equal((await api(server.url, 'DELETE', '/v1/auth/revoke', { token: revoked.access_token })).status, 200);
  assert.equal((await api(server.url, 'GET', '/v1/users', { token: revoked.access_token })).status, 401);
  await server.stop({ keepData: true });

  const at = (now: number) => openSqliteBackend({ path: join(server.dataDir, 'state.db'), now: () => now });
  const store = at(Date.now());
  const expiry = JSON.parse((await store.get(storeKey(kept.access_token)))?.value ?? '{}').expires_at as number;
  await store.close();
  assert.ok(expiry > Date.now(), 'the access token was stored with its expiry');
  for (const [when, keptThere, revokedThere] of [
    [expiry + 59 * 60_000, true, true],
    [expiry + HOUR + 60_000, false, true],
    [expiry + 24 * HOUR + 60_000, false, false],
  ] as const) {
    const backend = at(when);
    try {
      assert.equal(
        Boolean(await backend.get(storeKey(kept.access_token))),
        keptThere,
        `kept token at +${when - expiry} ms`,
      );
      assert.equal(
        Boolean(await backend.get(storeKey(revoked.access_token))),
        revokedThere,
        `revoked token at +${when - expiry} ms`,
      );
    } finally {
      await backend.close();
    }
  }
});
