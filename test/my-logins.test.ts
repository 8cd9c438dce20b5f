// A person's own logins (GET/DELETE /v1/users/me/logins): where, when and how each began; ending one
// revokes its access and refresh tokens while her other logins go on; "sign out everywhere" ends all
// of hers and nobody else's; another person's login cannot be ended (nor seen) from her account.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { api, requestsTo, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';

let gh: TestServer;
const { admin, as } = requestsTo(() => gh);
before(async () => {
  gh = await startTestServer();
});
after(() => gh.stop());

interface LoginRow {
  id: string;
  via: string;
  address?: string;
  api_key_id?: string;
  console: boolean;
  current: boolean;
  started_at: string;
  last_refreshed_at: string;
}

const login = async (apiKey: string) => {
  const r = await api(gh.url, 'POST', '/v1/auth/token', { body: { api_key: apiKey } });
  assert.equal(r.status, 200, r.text);
  return { token: r.json.access_token as string, refresh: r.json.refresh_token as string };
};
const logins = async (token: string): Promise<LoginRow[]> => {
  const r = await as(token, 'GET', '/v1/users/me/logins');
  assert.equal(r.status, 200, r.text);
  return r.json.logins;
};
const whoami = (token: string) => as(token, 'GET', '/v1/auth/whoami');
const refresh = (refreshToken: string) =>
  api(gh.url, 'POST', '/v1/auth/refresh', { body: { refresh_token: refreshToken } });

describe('your logins', () => {
  test('each login is listed with how and where it began, the current one marked; only your own', async () => {
    const alice = await userWithRoles(gh, 'login-alice', []);
    const bob = await userWithRoles(gh, 'login-bob', []);
    const second = await login(alice.apiKey);
    const seen = await logins(alice.token);
    assert.equal(seen.length, 2, JSON.stringify(seen));
    for (const l of seen) {
      assert.equal(l.via, 'api_key');
      assert.equal(l.address, '127.0.0.1');
      assert.equal(l.console, false);
      assert.match(l.api_key_id ?? '', /^key_/, 'the API key it was made with');
      assert.ok(Date.parse(l.started_at) <= Date.parse(l.last_refreshed_at));
    }
    assert.equal(seen.filter((l) => l.current).length, 1);
    // From the second login, the other one is current.
    const fromSecond = await logins(second.token);
    assert.notEqual(fromSecond.find((l) => l.current)?.id, seen.find((l) => l.current)?.id);
    // Bob sees only his own.
    const bobs = await logins(bob.token);
    assert.equal(bobs.length, 1);
    assert.ok(!bobs.some((l) => seen.some((s) => s.id === l.id)));
    // A refresh keeps the login (same id, later last_refreshed_at): it is one login, not two.
    const before = seen.find((l) => !l.current) as LoginRow;
    await new Promise((r) => setTimeout(r, 5));
    const rotated = await refresh(second.refresh);
    assert.equal(rotated.status, 200);
    const afterRefresh = await logins(alice.token);
    assert.equal(afterRefresh.length, 2);
    const same = afterRefresh.find((l) => l.id === before.id) as LoginRow;
    assert.ok(same, 'the refreshed login keeps its id');
    assert.equal(same.started_at, before.started_at);
    assert.ok(same.last_refreshed_at > before.last_refreshed_at);
  });

  test('ending one login refuses its access and refresh tokens; her other login goes on', async () => {
    const alice = await userWithRoles(gh, 'end-alice', []);
    const other = await login(alice.apiKey);
    const mine = await logins(alice.token);
    const target = mine.find((l) => !l.current) as LoginRow;
    // Before: both work (the positive control for the refusal below).
    assert.equal((await whoami(other.token)).status, 200);
    const ended = await as(alice.token, 'DELETE', `/v1/users/me/logins/${target.id}`);
    assert.equal(ended.status, 204, ended.text);
    const refused = await whoami(other.token);
    assert.equal(refused.status, 401);
    assert.equal(refused.json.code, 'token_revoked');
    assert.equal((await refresh(other.refresh)).status, 401, 'the refresh token ended with it');
    // Her own login survives, and lists one login now.
    assert.equal((await whoami(alice.token)).status, 200);
    assert.deepEqual(
      (await logins(alice.token)).map((l) => l.id),
      mine.filter((l) => l.current).map((l) => l.id),
    );
    const events = await admin('GET', '/v1/audit/events?type=auth.token.revoked&per_page=20');
    const event = events.json.events.find((e: { data?: { family?: string } }) => e.data?.family === target.id);
    assert.ok(event, 'the ending is audited');
    assert.equal(event.actor.name, 'end-alice');
    assert.equal(event.data.scope, 'login');
  });

  test("another person's login cannot be ended from your account, and goes on", async () => {
    const alice = await userWithRoles(gh, 'other-alice', []);
    const bob = await userWithRoles(gh, 'other-bob', []);
    const bobLogin = (await logins(bob.token))[0] as LoginRow;
    const tried = await as(alice.token, 'DELETE', `/v1/users/me/logins/${bobLogin.id}`);
    assert.equal(tried.status, 404);
    assert.equal((await whoami(bob.token)).status, 200);
    // Positive control: bob ends it himself.
    assert.equal((await as(bob.token, 'DELETE', `/v1/users/me/logins/${bobLogin.id}`)).status, 204);
    assert.equal((await whoami(bob.token)).status, 401);
  });

  test("signing out everywhere ends every one of her logins and nobody else's", async () => {
    const alice = await userWithRoles(gh, 'all-alice', []);
    const bob = await userWithRoles(gh, 'all-bob', []);
    const second = await login(alice.apiKey);
    const out = await as(second.token, 'DELETE', '/v1/users/me/logins');
    assert.equal(out.status, 204, out.text);
    for (const token of [alice.token, second.token]) assert.equal((await whoami(token)).status, 401);
    for (const r of [alice.refresh, second.refresh]) assert.equal((await refresh(r)).status, 401);
    assert.equal((await whoami(bob.token)).status, 200, "bob's login goes on");
    // Her API key still signs her in afresh: signing out ends logins, not the key.
    const again = await login(alice.apiKey);
    assert.equal((await logins(again.token)).length, 1);
    const events = await admin('GET', '/v1/audit/events?type=auth.token.revoked&per_page=20');
    const event = events.json.events.find(
      (e: { actor?: { name?: string }; data?: { scope?: string } }) =>
        e.actor?.name === 'all-alice' && e.data?.scope === 'all',
    );
    assert.ok(event, 'signing out everywhere is audited');
    assert.equal(event.data.logins, 2);
  });

  test('an agent has no logins of its own here; an unknown id is a 400 or 404, never a 500', async () => {
    const agent = await admin('POST', '/v1/agents', { name: 'logins-bot', roles: ['auditor'] });
    assert.equal(agent.status, 201, agent.text);
    const creds = await admin('POST', `/v1/agents/${agent.json.id}/credentials`, { ttl: 600 });
    assert.equal(creds.status, 201, creds.text);
    assert.equal((await as(creds.json.access_token, 'GET', '/v1/auth/whoami')).status, 200);
    assert.equal((await as(creds.json.access_token, 'GET', '/v1/users/me/logins')).status, 403);
    assert.equal((await admin('DELETE', '/v1/users/me/logins/not-a-login')).status, 400);
    assert.equal((await admin('DELETE', '/v1/users/me/logins/AAAAAAAAAAAAAAAA')).status, 404);
  });
});
