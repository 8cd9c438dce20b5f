// Turning a single sign-on connector off, or deleting it, ends the logins it made at once: the
// console's session, a native client's tokens and their refresh, a login still waiting for its
// security key. What it did not make goes on: an API key an administrator gave the same person, and
// another connector's logins (positive controls). Turned back on, the connector signs people in again.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { rolesWithOptions } from './helpers/console-browser.js';
import { api, type Reply, requestsTo, startTestServer, type TestServer } from './helpers/gatehouse.js';
import { CookieJar, hop, signInThrough, startOidcProvider, type TestProvider } from './helpers/oidc-provider.js';

let server: TestServer;
let provider: TestProvider;
const { admin } = requestsTo(() => server);
const CONNECTOR = {
  kind: 'oidc',
  display_name: 'Test IdP',
  scopes: ['openid', 'profile', 'groups'],
  claims_to_roles: [
    { claim: 'groups', value: 'readers', roles: ['reader'] },
    { claim: 'groups', value: 'secure', roles: ['secure-reader'] },
  ],
};

const loginUrl = (name: string, query = '') => new URL(`/webapi/sso/${name}/login${query}`, server.webUrl);
const isCallback = (url: URL) => url.pathname === '/webapi/sso/callback';

/** A console sign-in through the connector: the jar holds the session cookies. */
async function consoleSignIn(connector: string, login: string) {
  const jar = new CookieJar();
  const { next } = await signInThrough(jar, loginUrl(connector), login, isCallback);
  assert.ok(next);
  const answer = await hop(jar, next);
  assert.equal(answer.status, 303, answer.text);
  return { jar, at: next };
}

const consoleSession = (s: { jar: CookieJar; at: URL }) =>
  hop(s.jar, new URL('/webapi/session', s.at), { headers: { 'x-gatehouse-csrf': '1' } });

/** A native client's sign-in (RFC 8252): a code at its loopback redirect, exchanged for tokens. */
async function nativeSignIn(connector: string, login: string) {
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const query = `?redirect_uri=${encodeURIComponent('http://127.0.0.1:49160/cb')}&code_challenge=${challenge}&code_challenge_method=S256`;
  const { next } = await signInThrough(new CookieJar(), loginUrl(connector, query), login, (u) => u.port === '49160');
  const code = next?.searchParams.get('code') as string;
  const pair = await api(server.webUrl, 'POST', '/webapi/sso/exchange', { body: { code, code_verifier: verifier } });
  assert.equal(pair.status, 200, pair.text);
  return pair.json as { access_token: string; refresh_token: string };
}

const events = (token: string) => api(server.url, 'GET', '/v1/events?per_page=1', { token });
const refresh = (refresh_token: string) => api(server.url, 'POST', '/v1/auth/refresh', { body: { refresh_token } });

async function connectorInput(name: string) {
  const current = (await admin('GET', `/v1/auth/connectors/${name}`)).json;
  const { id: _i, redirect_uri: _r, created_at: _c, updated_at: _u, ...input } = current;
  return input;
}

const setEnabled = async (name: string, enabled: boolean): Promise<Reply> =>
  admin('PUT', `/v1/auth/connectors/${name}`, { ...(await connectorInput(name)), enabled });

before(async () => {
  server = await startTestServer();
  await rolesWithOptions(admin, { reader: {}, 'secure-reader': { require_mfa: true } });
  const redirectUri = new URL('/webapi/sso/callback', server.gatehouse.webUrl?.replace('127.0.0.1', 'localhost'));
  provider = await startOidcProvider({
    redirectUris: [redirectUri.href],
    accounts: { ann: { groups: ['readers'] }, ben: { groups: ['readers'] }, sec: { groups: ['secure'] } },
  });
  for (const name of ['idp-one', 'idp-two']) {
    const created = await admin('POST', '/v1/auth/connectors', {
      ...CONNECTOR,
      name,
      issuer: provider.issuer,
      client_id: provider.clientId,
      client_secret: provider.clientSecret,
    });
    assert.equal(created.status, 201, created.text);
  }
});
after(async () => {
  await provider?.stop();
  await server?.stop();
});

test('turning a connector off ends its logins; an API key of the same person and another connector’s logins go on', async () => {
  const web = await consoleSignIn('idp-one', 'ann');
  assert.equal((await consoleSession(web)).status, 200);
  const native = await nativeSignIn('idp-one', 'ann');
  assert.equal((await events(native.access_token)).status, 200);
  const pending = await consoleSignIn('idp-one', 'sec');
  assert.equal(JSON.parse((await consoleSession(pending)).text).code, 'mfa_required');
  // Controls: ann's API key (given by an administrator) and ben's login through the other connector.
  const ann = (await admin('GET', '/v1/users/ann')).json;
  const key = await admin('POST', `/v1/users/${ann.id}/api-keys`, { name: 'break-glass' });
  assert.equal(key.status, 201, key.text);
  const keyed = (await api(server.url, 'POST', '/v1/auth/token', { body: { api_key: key.json.api_key } })).json;
  const other = await consoleSignIn('idp-two', 'ben');

  const off = await setEnabled('idp-one', false);
  assert.equal(off.status, 200, off.text);

  const ended = await consoleSession(web);
  assert.equal(ended.status, 401);
  assert.equal(JSON.parse(ended.text).code, 'token_revoked');
  assert.equal((await events(native.access_token)).status, 401);
  const refused = await refresh(native.refresh_token);
  assert.equal(refused.status, 401, refused.text);
  assert.equal(refused.json.access_token, undefined);
  const stillPending = await hop(pending.jar, new URL('/webapi/mfa/sign-in/options', pending.at), {
    method: 'POST',
    headers: { 'x-gatehouse-csrf': '1' },
  });
  assert.equal(stillPending.status, 401, 'the login waiting for its key is ended too');

  assert.equal((await events(keyed.access_token)).status, 200, 'an API key is not the connector’s login');
  assert.equal((await consoleSession(other)).status, 200, 'another connector’s login goes on');

  const updated = (await admin('GET', '/v1/events?type=auth.connector.updated')).json.events[0];
  assert.equal(updated.target.name, 'idp-one');
  assert.ok(updated.data.revoked_tokens >= 4, JSON.stringify(updated.data));

  // Back on: a new sign-in works (the revocation was of those logins, not of the person).
  assert.equal((await setEnabled('idp-one', true)).status, 200);
  assert.equal((await consoleSession(await consoleSignIn('idp-one', 'ann'))).status, 200);
});

test('a change that keeps the connector on ends nothing (control)', async () => {
  const web = await consoleSignIn('idp-one', 'ann');
  const renamed = await admin('PUT', '/v1/auth/connectors/idp-one', {
    ...(await connectorInput('idp-one')),
    display_name: 'Test IdP (renamed)',
  });
  assert.equal(renamed.status, 200, renamed.text);
  assert.equal((await consoleSession(web)).status, 200);
});

test('deleting a connector ends its logins', async () => {
  const web = await consoleSignIn('idp-two', 'ben');
  const native = await nativeSignIn('idp-two', 'ben');
  assert.equal((await consoleSession(web)).status, 200);
  const deleted = await admin('DELETE', '/v1/auth/connectors/idp-two');
  assert.equal(deleted.status, 204, deleted.text);
  assert.equal((await consoleSession(web)).status, 401);
  assert.equal((await events(native.access_token)).status, 401);
  assert.equal((await refresh(native.refresh_token)).status, 401);
  const event = (await admin('GET', '/v1/events?type=auth.connector.deleted')).json.events[0];
  assert.ok(event.data.revoked_tokens >= 4, JSON.stringify(event.data));
});
