// Single sign-on through a real OpenID Provider on loopback (oidc-provider): a person signs in with
// the roles their groups map to, at every sign-in anew; a person mapped to no role is refused and no
// user with rights exists; tampering with state, a callback carried to another browser, a replayed
// callback and a disabled connector are refused; a native client gets a one-time code at its loopback
// redirect and exchanges it, with its PKCE verifier, for tokens.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { api, requestsTo, startTestServer, type TestServer } from './helpers/gatehouse.js';
import {
  CookieJar,
  hop,
  providerFields,
  providerForGatehouse,
  signInThrough,
  type TestProvider,
} from './helpers/oidc-provider.js';
import { softAuthenticator } from './helpers/webauthn-authenticator.js';

let server: TestServer;
let provider: TestProvider;
let connectorId: string;
const { admin } = requestsTo(() => server);

const callback = (url: URL) => url.pathname === '/webapi/sso/callback';
const loginUrl = (name = 'test-idp', query = '') => new URL(`/webapi/sso/${name}/login${query}`, server.webUrl);
const SESSION_COOKIE = '__Host-gatehouse_session';

/** Signs in as `login` up to the provider's redirect back to Gatehouse, then delivers it. */
async function signIn(login: string, jar = new CookieJar(), start = loginUrl()) {
  const { next } = await signInThrough(jar, start, login, callback);
  assert.ok(next, 'the provider sent the browser back to the callback');
  return { jar, callbackUrl: next, answer: await hop(jar, next) };
}

async function session(jar: CookieJar, at: URL) {
  const reply = await hop(jar, new URL('/webapi/session', at), { headers: { 'x-gatehouse-csrf': '1' } });
  return { status: reply.status, json: reply.text ? JSON.parse(reply.text) : undefined };
}

const events = async (type: string) => (await admin('GET', `/v1/events?type=${type}`)).json.events;

before(async () => {
  server = await startTestServer();
  await admin('POST', '/v1/roles', {
    name: 'dev',
    allow: { resources: [{ kinds: ['server'], labels: { env: 'dev' } }], logins: ['{{traits.logins}}'] },
  });
  await admin('POST', '/v1/roles', {
    name: 'secure',
    allow: { rules: [{ resources: ['events'], verbs: ['list'] }] },
    options: { require_mfa: true },
  });
  await admin('POST', '/v1/roles', {
    name: 'team-blue',
    allow: { rules: [{ resources: ['events'], verbs: ['list'] }] },
  });
  const redirectUri = new URL('/webapi/sso/callback', server.gatehouse.webUrl?.replace('127.0.0.1', 'localhost'));
  provider = await providerForGatehouse(server.gatehouse.webUrl, {
    alice: { groups: ['platform-eng', 'team-blue'], claims: { unix_username: 'alice' } },
    bob: { groups: ['sales'] },
    erin: { groups: ['secure-ops'] },
  });
  const created = await admin('POST', '/v1/auth/connectors', {
    ...providerFields(provider),
    name: 'test-idp',
    display_name: 'Test IdP',
    scopes: ['openid', 'profile', 'groups', 'unix'],
    claims_to_roles: [
      { claim: 'groups', value: 'platform-*', roles: ['dev'] },
      { claim: 'groups', value: 'team-*', roles: ['{{value}}'] },
      { claim: 'groups', value: 'secure-*', roles: ['secure'] },
    ],
    traits_from_claims: { logins: 'unix_username' },
  });
  assert.equal(created.status, 201, created.text);
  assert.equal(created.json.redirect_uri, redirectUri.href);
  connectorId = created.json.id;
});
after(async () => {
  await provider?.stop();
  await server?.stop();
});

describe('single sign-on through an OpenID Provider', () => {
  test('a person signs in with the roles their groups map to, and lands in the console', async () => {
    const { jar, callbackUrl, answer } = await signIn('alice');
    assert.equal(answer.status, 303, answer.text);
    assert.equal(answer.headers.get('location'), `${callbackUrl.origin}/`);
    assert.ok(jar.get(callbackUrl, SESSION_COOKIE), 'the session cookie is set');
    const me = await session(jar, callbackUrl);
    assert.equal(me.status, 200);
    assert.equal(me.json.principal.name, 'alice');
    assert.deepEqual(me.json.roles, ['dev', 'team-blue']);
    assert.deepEqual(me.json.permissions.events, ['list']);

    const user = (await admin('GET', '/v1/users/alice')).json;
    assert.equal(user.auth, 'test-idp');
    assert.deepEqual(user.traits, { logins: ['alice'] });
    const [login] = await events('auth.sso.login');
    assert.deepEqual(login.data, {
      connector: 'test-idp',
      subject: 'alice',
      roles: ['dev', 'team-blue'],
      created: true,
    });
    assert.doesNotMatch(JSON.stringify(login.data), /code|token/i);
  });

  test('roles are computed at every sign-in: a group removed at the provider is gone at the next one', async () => {
    provider.accounts.set('carol', { groups: ['platform-x', 'team-blue'] });
    const first = await signIn('carol');
    assert.deepEqual((await session(first.jar, first.callbackUrl)).json.roles, ['dev', 'team-blue']);
    provider.accounts.set('carol', { groups: ['platform-x'] });
    const second = await signIn('carol');
    assert.deepEqual((await session(second.jar, second.callbackUrl)).json.roles, ['dev']);
    assert.deepEqual((await admin('GET', '/v1/users/carol')).json.roles, ['dev']);
  });

  test('nobody edits an SSO user’s roles by hand (409 with why); traits stay editable (positive control)', async () => {
    await signIn('alice');
    const refused = await admin('PATCH', '/v1/users/alice', { roles: ['dev', 'editor'] });
    assert.equal(refused.status, 409);
    assert.match(refused.json.detail, /signs in through connector test-idp.*claims_to_roles/);
    const traits = await admin('PATCH', '/v1/users/alice', { traits: { logins: ['alice'], db_users: ['alice'] } });
    assert.equal(traits.status, 200, traits.text);
  });

  test('a person mapped to no role is refused with a page that says so, and no user exists', async () => {
    const { jar, callbackUrl, answer } = await signIn('bob');
    assert.equal(answer.status, 403);
    assert.match(answer.headers.get('content-type') ?? '', /text\/html/);
    assert.match(answer.text, /no role of Gatehouse is mapped to them/);
    assert.equal(jar.get(callbackUrl, SESSION_COOKIE), undefined);
    assert.equal((await admin('GET', '/v1/users/bob')).status, 404);
    const failed = (await events('auth.sso.failed')).find(
      (e: { data: { reason: string } }) => e.data.reason === 'no_role',
    );
    assert.equal(failed.data.connector, 'test-idp');
  });

  test('a user who loses every group keeps no role, and is refused', async () => {
    provider.accounts.set('dave', { groups: ['platform-a'] });
    await signIn('dave');
    assert.deepEqual((await admin('GET', '/v1/users/dave')).json.roles, ['dev']);
    provider.accounts.set('dave', { groups: [] });
    const { answer } = await signIn('dave');
    assert.equal(answer.status, 403);
    assert.deepEqual((await admin('GET', '/v1/users/dave')).json.roles, []);
  });

  test('a tampered state, a callback in another browser and a replayed callback are refused', async () => {
    const jar = new CookieJar();
    const { next } = await signInThrough(jar, loginUrl(), 'alice', callback);
    assert.ok(next);
    const tampered = new URL(next);
    tampered.searchParams.set('state', `${next.searchParams.get('state')}x`);
    const bad = await hop(jar, tampered);
    assert.equal(bad.status, 400);
    assert.match(bad.text, /unknown or has expired/);

    const elsewhere = await hop(new CookieJar(), next);
    assert.equal(elsewhere.status, 400);
    assert.match(elsewhere.text, /started in another browser/);

    // Positive control: the untampered callback in the browser that started it signs in, once.
    const good = await hop(jar, next);
    assert.equal(good.status, 303, good.text);
    const replay = await hop(jar, next);
    assert.equal(replay.status, 400);
    const reasons = (await events('auth.sso.failed')).map((e: { data: { reason: string } }) => e.data.reason);
    assert.ok(reasons.filter((r: string) => r === 'state_mismatch').length >= 3, reasons.join());
  });

  test('a forged authorization code is refused as a bad token', async () => {
    const jar = new CookieJar();
    const { next } = await signInThrough(jar, loginUrl(), 'alice', callback);
    assert.ok(next);
    next.searchParams.set('code', 'forged-code-0123456789');
    const answer = await hop(jar, next);
    assert.equal(answer.status, 403);
    assert.match(answer.text, /did not pass verification/);
    const failed = (await events('auth.sso.failed')).find(
      (e: { data: { reason: string } }) => e.data.reason === 'bad_token',
    );
    assert.ok(failed);
    assert.doesNotMatch(JSON.stringify(failed), /forged-code/);
  });

  test('a disabled connector refuses sign-in, and is not offered on the sign-in page', async () => {
    const listed = await api(server.webUrl, 'GET', '/webapi/sso/connectors');
    assert.deepEqual(listed.json, { connectors: [{ name: 'test-idp', display_name: 'Test IdP' }] });
    const current = (await admin('GET', `/v1/auth/connectors/${connectorId}`)).json;
    const { id: _i, redirect_uri: _r, created_at: _c, updated_at: _u, ...input } = current;
    assert.equal((await admin('PUT', `/v1/auth/connectors/${connectorId}`, { ...input, enabled: false })).status, 200);
    try {
      assert.deepEqual((await api(server.webUrl, 'GET', '/webapi/sso/connectors')).json, { connectors: [] });
      const jar = new CookieJar();
      let start = await hop(jar, loginUrl());
      if (start.status === 302 && start.headers.get('location')?.includes('/webapi/sso/'))
        start = await hop(jar, new URL(start.headers.get('location') as string));
      assert.equal(start.status, 403);
      assert.match(start.text, /turned off/);
    } finally {
      await admin('PUT', `/v1/auth/connectors/${connectorId}`, { ...input, enabled: true });
    }
  });

  test('a native client gets a one-time code at its loopback redirect and exchanges it with its verifier', async () => {
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const redirect = 'http://127.0.0.1:49152/callback';
    const query = `?redirect_uri=${encodeURIComponent(redirect)}&state=cli-state-123&code_challenge=${challenge}&code_challenge_method=S256`;
    const jar = new CookieJar();
    const { next } = await signInThrough(jar, loginUrl('test-idp', query), 'alice', (u) => u.port === '49152');
    assert.ok(next, 'the browser was sent to the native client');
    assert.equal(next.searchParams.get('state'), 'cli-state-123');
    const code = next.searchParams.get('code') as string;

    const wrong = await api(server.webUrl, 'POST', '/webapi/sso/exchange', {
      body: { code, code_verifier: randomBytes(32).toString('base64url') },
    });
    assert.equal(wrong.status, 401);
    // The wrong verifier used the code up: a stolen code is worth one guess.
    const again = await api(server.webUrl, 'POST', '/webapi/sso/exchange', { body: { code, code_verifier: verifier } });
    assert.equal(again.status, 401);

    const second = await signInThrough(
      new CookieJar(),
      loginUrl('test-idp', query),
      'alice',
      (u) => u.port === '49152',
    );
    const code2 = second.next?.searchParams.get('code') as string;
    const tokens = await api(server.webUrl, 'POST', '/webapi/sso/exchange', {
      body: { code: code2, code_verifier: verifier },
    });
    assert.equal(tokens.status, 200, tokens.text);
    // Replayed with the right verifier after it was redeemed: refused (one use).
    const replay = await api(server.webUrl, 'POST', '/webapi/sso/exchange', {
      body: { code: code2, code_verifier: verifier },
    });
    assert.equal(replay.status, 401, replay.text);
    const me = await api(server.url, 'GET', '/v1/users/alice', { token: tokens.json.access_token });
    assert.equal(me.status, 403, 'alice is no user admin: the token acts as alice');
    assert.equal((await api(server.url, 'GET', '/v1/events', { token: tokens.json.access_token })).status, 200);
  });

  test('a native redirect_uri that is not 127.0.0.1 is refused (no open redirect)', async () => {
    for (const target of ['http://evil.example/cb', 'https://127.0.0.1:5000/cb', 'http://localhost.evil.example:80/']) {
      const q = `?redirect_uri=${encodeURIComponent(target)}&code_challenge=${'a'.repeat(43)}&code_challenge_method=S256&public=1`;
      const answer = await hop(new CookieJar(), loginUrl('test-idp', q));
      assert.equal(answer.status, 400, target);
      assert.match(answer.text, /127\.0\.0\.1/);
    }
  });

  test('a person whose roles require a security key gets the key step after the provider, and no tokens for a native client', async () => {
    const { jar, callbackUrl, answer } = await signIn('erin');
    assert.equal(answer.status, 303, answer.text);
    assert.equal(answer.headers.get('location'), `${callbackUrl.origin}/login?second_factor=1`);
    // Half signed in: the console's session is refused until the key is given.
    const pending = await session(jar, callbackUrl);
    assert.equal(pending.status, 401, JSON.stringify(pending.json));
    assert.equal(pending.json.code, 'mfa_required');
    const post = (path: string, body?: unknown) =>
      hop(jar, new URL(path, callbackUrl), {
        method: 'POST',
        headers: { 'x-gatehouse-csrf': '1', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    const step = await post('/webapi/mfa/sign-in/options');
    assert.equal(step.status, 200, step.text);
    const options = JSON.parse(step.text);
    assert.equal(options.mode, 'register');
    const key = softAuthenticator(server.gatehouse.services.webPublicUrl());
    const done = await post('/webapi/mfa/sign-in', { response: key.create(options.options), name: 'erin key' });
    assert.equal(done.status, 200, done.text);
    const me = await session(jar, callbackUrl);
    assert.equal(me.status, 200);
    assert.equal(me.json.principal.name, 'erin');
    assert.deepEqual(me.json.roles, ['secure']);

    // A native client has no second step: its code is refused, with why; alice's (positive control) is not.
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const query = `?redirect_uri=${encodeURIComponent('http://127.0.0.1:49153/cb')}&state=cli-state-456&code_challenge=${challenge}&code_challenge_method=S256`;
    const codeFor = async (login: string) => {
      const { next } = await signInThrough(
        new CookieJar(),
        loginUrl('test-idp', query),
        login,
        (u) => u.port === '49153',
      );
      return next?.searchParams.get('code') as string;
    };
    const refused = await api(server.webUrl, 'POST', '/webapi/sso/exchange', {
      body: { code: await codeFor('erin'), code_verifier: verifier },
    });
    assert.equal(refused.status, 403, refused.text);
    assert.equal(refused.json.detail, 'this login requires a security key: sign in through the console');
    assert.equal(refused.json.access_token, undefined);
    const allowed = await api(server.webUrl, 'POST', '/webapi/sso/exchange', {
      body: { code: await codeFor('alice'), code_verifier: verifier },
    });
    assert.equal(allowed.status, 200, allowed.text);
  });
});
