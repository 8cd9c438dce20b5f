// Token issue, refresh with rotation and reuse detection, revocation, expiry (throttling:
// login-throttle.test.ts).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openSqliteBackend } from '../src/backend/sqlite.js';
import { ADMIN_KEY, api, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';

let server: TestServer;
before(async () => {
  server = await startTestServer({ 'login_throttle.max_failures': 1000 });
});
after(() => server.stop());

const login = () => api(server.url, 'POST', '/v1/auth/token', { body: { api_key: ADMIN_KEY } });
const events = async (type: string) =>
  (await api(server.url, 'GET', `/v1/events?type=${type}&per_page=100`, { token: server.adminToken })).json.events;

describe('POST /v1/auth/token', () => {
  test('returns the seed token response, prefixed opaque tokens with their issue time, and no-store', async () => {
    const before = Date.now();
    const res = await login();
    const after = Date.now();
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    assert.equal(res.json.token_type, 'Bearer');
    assert.equal(res.json.expires_in, 3600);
    assert.match(res.json.access_token, /^gha_[0-9a-f]{12}[A-Za-z0-9_-]{43}$/);
    assert.match(res.json.refresh_token, /^ghr_[0-9a-f]{12}[A-Za-z0-9_-]{43}$/);
    for (const token of [res.json.access_token, res.json.refresh_token]) {
      const issued = Number.parseInt(token.slice(4, 16), 16);
      assert.ok(issued >= before && issued <= after, `issue time ${issued} within [${before}, ${after}]`);
    }
    assert.notEqual(res.json.access_token.slice(16), res.json.refresh_token.slice(16), 'random parts differ');
    const me = await api(server.url, 'GET', '/v1/users', { token: res.json.access_token });
    assert.equal(me.status, 200);
  });

  test('a wrong key is 401 invalid_credentials and an auth.login.failed event without the key', async () => {
    const res = await api(server.url, 'POST', '/v1/auth/token', {
      body: { api_key: 'ghk_wrong-key-that-is-not-registered-anywhere' },
    });
    assert.equal(res.status, 401);
    assert.equal(res.json.code, 'invalid_credentials');
    assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer realm="gatehouse"/);
    const failed = await events('auth.login.failed');
    assert.ok(failed.length >= 1);
    assert.equal(failed[0].success, false);
    assert.ok(!JSON.stringify(failed).includes('ghk_wrong-key'), 'the presented key never enters the audit trail');
  });

  test('a missing api_key is a 400 naming the field', async () => {
    const res = await api(server.url, 'POST', '/v1/auth/token', { body: {} });
    assert.equal(res.status, 400);
    assert.deepEqual(res.json.errors, [{ path: '/body/api_key', message: 'is required' }]);
  });

  test('successful logins are audited with the API key id', async () => {
    await login();
    const issued = await events('auth.token.issued');
    assert.match(issued[0].data.api_key_id, /^key_/);
    assert.equal(issued[0].actor.name, 'admin');
  });
});

describe('POST /v1/auth/refresh', () => {
  test('rotates: a new pair works, the old refresh token is single-use', async () => {
    const first = (await login()).json;
    const second = await api(server.url, 'POST', '/v1/auth/refresh', { body: { refresh_token: first.refresh_token } });
    assert.equal(second.status, 200);
    assert.notEqual(second.json.access_token, first.access_token);
    assert.notEqual(second.json.refresh_token, first.refresh_token);
    assert.equal((await api(server.url, 'GET', '/v1/roles', { token: second.json.access_token })).status, 200);
  });

  test('reusing a rotated refresh token revokes the whole family and records it', async () => {
    const first = (await login()).json;
    const second = (await api(server.url, 'POST', '/v1/auth/refresh', { body: { refresh_token: first.refresh_token } }))
      .json;
    const reuse = await api(server.url, 'POST', '/v1/auth/refresh', { body: { refresh_token: first.refresh_token } });
    assert.equal(reuse.status, 401);
    assert.equal(reuse.json.code, 'token_revoked');
    for (const token of [first.access_token, second.access_token]) {
      const res = await api(server.url, 'GET', '/v1/roles', { token });
      assert.equal(res.status, 401);
      assert.equal(res.json.code, 'token_revoked');
    }
    const refreshAgain = await api(server.url, 'POST', '/v1/auth/refresh', {
      body: { refresh_token: second.refresh_token },
    });
    assert.equal(refreshAgain.status, 401);
    const reused = await events('auth.refresh.reused');
    assert.equal(reused[0].data.revoked_tokens >= 3, true);
  });

  test('two racing refreshes of one token: exactly one wins', async () => {
    const first = (await login()).json;
    const results = await Promise.all(
      [1, 2, 3, 4].map(() =>
        api(server.url, 'POST', '/v1/auth/refresh', { body: { refresh_token: first.refresh_token } }),
      ),
    );
    assert.equal(results.filter((r) => r.status === 200).length, 1);
    assert.ok(results.every((r) => r.status === 200 || r.status === 401));
  });

  test('an access token is not a refresh token', async () => {
    const first = (await login()).json;
    const res = await api(server.url, 'POST', '/v1/auth/refresh', { body: { refresh_token: first.access_token } });
    assert.equal(res.status, 401);
    assert.equal(res.json.code, 'invalid_token');
  });
});

describe('DELETE /v1/auth/revoke', () => {
  test('revokes the presented token and its refresh token, at once', async () => {
    const pair = (await login()).json;
    const res = await api(server.url, 'DELETE', '/v1/auth/revoke', { token: pair.access_token });
    assert.equal(res.status, 200);
    assert.equal(res.json.revoked, 2);
    const after = await api(server.url, 'GET', '/v1/users', { token: pair.access_token });
    assert.equal(after.status, 401);
    assert.equal(after.json.code, 'token_revoked');
    assert.match(after.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
    const refresh = await api(server.url, 'POST', '/v1/auth/refresh', { body: { refresh_token: pair.refresh_token } });
    assert.equal(refresh.status, 401);
  });

  test("a user cannot revoke someone else's token, an admin can", async () => {
    const victim = await userWithRoles(server, 'revoke-victim', ['auditor']);
    const other = await userWithRoles(server, 'revoke-other', ['auditor']);
    const denied = await api(server.url, 'DELETE', '/v1/auth/revoke', {
      token: other.token,
      body: { token: victim.token },
    });
    assert.equal(denied.status, 404);
    assert.equal((await api(server.url, 'GET', '/v1/events', { token: victim.token })).status, 200);
    const done = await api(server.url, 'DELETE', '/v1/auth/revoke', {
      token: server.adminToken,
      body: { token: victim.token },
    });
    assert.equal(done.status, 200);
    assert.equal((await api(server.url, 'GET', '/v1/events', { token: victim.token })).status, 401);
    assert.equal((await api(server.url, 'GET', '/v1/events', { token: server.adminToken })).status, 200);
    const revoked = await events('auth.token.revoked');
    assert.equal(revoked[0].actor.name, 'admin');
  });
});

describe('expiry and malformed tokens', () => {
  const users = (token: string) => api(server.url, 'GET', '/v1/users', { token });
  /** GET /v1/users with the token an hour and a second later, then the clock put back. */
  async function anHourLater(token: string) {
    server.clockOffset.ms = 3601_000;
    try {
      return await users(token);
    } finally {
      server.clockOffset.ms = 0;
    }
  }

  test('an expired token is 401 token_expired', async () => {
    const pair = (await login()).json;
    const res = await anHourLater(pair.access_token);
    assert.equal(res.status, 401);
    assert.equal(res.json.code, 'token_expired');
    assert.equal((await users(pair.access_token)).status, 200);
  });

  test('a token answered from the resolution memo still expires on time', async () => {
    const pair = (await login()).json;
    // Two uses with no write between: the second is the memo's answer.
    for (let i = 0; i < 2; i++) assert.equal((await users(pair.access_token)).status, 200);
    const res = await anHourLater(pair.access_token);
    assert.equal(res.status, 401);
    assert.equal(res.json.code, 'token_expired');
  });

  for (const [label, header] of [
    ['Basic scheme', 'Basic YWRtaW46YWRtaW4='],
    ['empty bearer', 'Bearer '],
    ['garbage', 'Bearer not-a-token'],
    ['refresh token as bearer', 'Bearer ghr_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'],
    ['unknown access token', 'Bearer gha_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'],
  ]) {
    test(`${label} is 401 with WWW-Authenticate`, async () => {
      const res = await api(server.url, 'GET', '/v1/users', { headers: { authorization: header as string } });
      assert.equal(res.status, 401);
      assert.equal(res.json.code, 'invalid_token');
      assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer realm="gatehouse", error="invalid_token"/);
    });
  }
});

describe('tokens issued before tokens carried their issue time', () => {
  // Such a token (gha_ + 43 random characters) was stored under the hash of the whole token; after an
  // upgrade it must keep working until it expires, and so must its refresh token.
  test('an old-shape access and refresh token still resolve, refresh and revoke', async () => {
    const old = await startTestServer();
    const sha = (v: string) => createHash('sha256').update(v).digest('hex');
    let access: string;
    let refresh: string;
    try {
      const pair = (await api(old.url, 'POST', '/v1/auth/token', { body: { api_key: ADMIN_KEY } })).json;
      access = `gha_${pair.access_token.slice(16)}`;
      refresh = `ghr_${pair.refresh_token.slice(16)}`;
      await old.stop({ keepData: true });
      // Move the two rows to where an older Gatehouse kept them.
      const backend = openSqliteBackend({ path: join(old.dataDir, 'state.db') });
      try {
        for (const [now, then] of [
          [pair.access_token, access],
          [pair.refresh_token, refresh],
        ] as const) {
          const key = `tokens/${now.slice(4, 16)}-${sha(now)}`;
          const item = await backend.get(key);
          assert.ok(item, `stored under ${key}`);
          await backend.atomicWrite(
            [],
            [
              { type: 'delete', key },
              {
                type: 'put',
                key: `tokens/${sha(then)}`,
                value: item.value,
                ...(item.expiresAt ? { expiresAt: item.expiresAt } : {}),
              },
            ],
          );
        }
      } finally {
        await backend.close();
      }
    } catch (error) {
      await old.stop();
      throw error;
    }
    const upgraded = await startTestServer({}, { dataDir: old.dataDir });
    try {
      assert.equal((await api(upgraded.url, 'GET', '/v1/users', { token: access })).status, 200);
      const rotated = await api(upgraded.url, 'POST', '/v1/auth/refresh', { body: { refresh_token: refresh } });
      assert.equal(rotated.status, 200, JSON.stringify(rotated.json));
      assert.match(rotated.json.access_token, /^gha_[0-9a-f]{12}/);
      assert.equal((await api(upgraded.url, 'GET', '/v1/users', { token: rotated.json.access_token })).status, 200);
      // Same family: revoking the old token's login ends the new one too.
      const revoked = await api(upgraded.url, 'DELETE', '/v1/auth/revoke', { token: access });
      assert.equal(revoked.status, 200, JSON.stringify(revoked.json));
      assert.equal((await api(upgraded.url, 'GET', '/v1/users', { token: access })).status, 401);
      assert.equal((await api(upgraded.url, 'GET', '/v1/users', { token: rotated.json.access_token })).status, 401);
    } finally {
      await upgraded.stop();
    }
  });
});
