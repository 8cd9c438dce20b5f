// A single sign-on lasts the connector's max_session_ttl, refreshes included: a refresh before that
// bound works (and its new tokens still end at it), one after it is refused, so a person removed from
// a group at the provider is out by then at the latest. Its own server: the tests move its clock
// (clockOffset) past the bound.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, afterEach, before, describe, test } from 'node:test';
import { api, requestsTo, startTestServer, type TestServer } from './helpers/gatehouse.js';
import {
  CookieJar,
  hop,
  providerFields,
  providerForGatehouse,
  signInThrough,
  type TestProvider,
} from './helpers/oidc-provider.js';

const MAX_SESSION_TTL = 300;
let server: TestServer;
let provider: TestProvider;
const { admin } = requestsTo(() => server);
const loginUrl = (query = '') => new URL(`/webapi/sso/short/login${query}`, server.webUrl);
const at = (seconds: number) => {
  server.clockOffset.ms = seconds * 1000;
};

async function consoleSignIn(login: string) {
  const jar = new CookieJar();
  const { next } = await signInThrough(jar, loginUrl(), login, (u) => u.pathname === '/webapi/sso/callback');
  assert.ok(next);
  const answer = await hop(jar, next);
  assert.equal(answer.status, 303, answer.text);
  const call = async (method: string, path: string) => {
    const reply = await hop(jar, new URL(path, next), { method, headers: { 'x-gatehouse-csrf': '1' } });
    return { status: reply.status, json: reply.text ? JSON.parse(reply.text) : undefined };
  };
  return { call, startedAt: Date.now() };
}

async function nativeTokens(login: string) {
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const query = `?redirect_uri=${encodeURIComponent('http://127.0.0.1:49160/cb')}&state=native-state-1&code_challenge=${challenge}&code_challenge_method=S256`;
  const { next, last } = await signInThrough(new CookieJar(), loginUrl(query), login, (u) => u.port === '49160');
  assert.ok(next, `${last.status} ${last.text}`);
  const code = next?.searchParams.get('code') as string;
  const startedAt = Date.now();
  const tokens = await api(server.webUrl, 'POST', '/webapi/sso/exchange', { body: { code, code_verifier: verifier } });
  assert.equal(tokens.status, 200, tokens.text);
  return { tokens: tokens.json, startedAt };
}

const refresh = (refreshToken: string) =>
  api(server.url, 'POST', '/v1/auth/refresh', { body: { refresh_token: refreshToken } });

before(async () => {
  server = await startTestServer();
  await admin('POST', '/v1/roles', { name: 'dev', allow: { rules: [{ resources: ['events'], verbs: ['list'] }] } });
  provider = await providerForGatehouse(server.gatehouse.webUrl, { alice: { groups: ['platform-eng'] } });
  const created = await admin('POST', '/v1/auth/connectors', {
    ...providerFields(provider),
    name: 'short',
    display_name: 'Short IdP',
    scopes: ['openid', 'profile', 'groups'],
    claims_to_roles: [{ claim: 'groups', value: 'platform-*', roles: ['dev'] }],
    max_session_ttl: MAX_SESSION_TTL,
  });
  assert.equal(created.status, 201, created.text);
});
afterEach(() => at(0));
after(async () => {
  await provider?.stop();
  await server?.stop();
});

describe('max_session_ttl bounds an SSO login, refreshes included', () => {
  test('the console: a refresh before not_after works and ends no later; after it, refused and signed out', async () => {
    const { call, startedAt } = await consoleSignIn('alice');
    const notAfter = startedAt + MAX_SESSION_TTL * 1000;
    at(200);
    const early = await call('POST', '/webapi/session/refresh');
    assert.equal(early.status, 200, JSON.stringify(early.json));
    assert.equal(early.json.principal.name, 'alice');
    assert.ok(Date.parse(early.json.expires_at) <= notAfter + 1000, `${early.json.expires_at} is past not_after`);
    assert.equal((await call('GET', '/webapi/session')).status, 200, 'the refreshed session answers');

    at(MAX_SESSION_TTL + 5);
    const late = await call('POST', '/webapi/session/refresh');
    assert.equal(late.status, 401, JSON.stringify(late.json));
    assert.match(late.json.detail, /expired/);
    assert.equal((await call('GET', '/webapi/session')).status, 401, 'and the session is over');
  });

  test('a native client: its refresh token ends at not_after; refreshed before, refused after', async () => {
    const { tokens, startedAt } = await nativeTokens('alice');
    assert.ok(tokens.refresh_expires_in <= MAX_SESSION_TTL, `refresh_expires_in ${tokens.refresh_expires_in}`);
    at(150);
    const early = await refresh(tokens.refresh_token);
    assert.equal(early.status, 200, early.text);
    const left = (startedAt + MAX_SESSION_TTL * 1000 - (Date.now() + 150_000)) / 1000;
    assert.ok(early.json.refresh_expires_in <= left + 2, `${early.json.refresh_expires_in}s, ${left}s left`);
    assert.ok(early.json.expires_in <= left + 2, `access token ${early.json.expires_in}s, ${left}s left`);

    at(MAX_SESSION_TTL + 5);
    const late = await refresh(early.json.refresh_token);
    assert.equal(late.status, 401, late.text);
    assert.match(late.json.detail, /expired/);
    const stale = await api(server.url, 'GET', '/v1/events', { token: early.json.access_token });
    assert.equal(stale.status, 401, 'its access token is over too');
  });
});
