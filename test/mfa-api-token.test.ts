// require_mfa at the API's own door: a person whose role requires a security key gets no tokens for
// an API key at POST /v1/auth/token (403, saying to sign in through the console), while the console
// sign-in with the same key and the key is the way in; a login made before the role required a key
// ends at its next refresh. Positive controls: a person without such a role, an agent's key (a
// machine's, docs/mfa.md), and a console login that gave its key, which refreshes.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { consoleBrowser, rolesWithOptions } from './helpers/console-browser.js';
import { api, requestsTo, startTestServer, type TestServer } from './helpers/gatehouse.js';
import { softAuthenticator } from './helpers/webauthn-authenticator.js';

let server: TestServer;
const { admin } = requestsTo(() => server);

async function person(name: string, roles: string[]) {
  const user = await admin('POST', '/v1/users', { name, roles });
  assert.equal(user.status, 201, user.text);
  const key = await admin('POST', `/v1/users/${user.json.id}/api-keys`, { name: 'cli' });
  assert.equal(key.status, 201, key.text);
  return { id: user.json.id as string, key: key.json.api_key as string };
}

const token = (api_key: string) => api(server.url, 'POST', '/v1/auth/token', { body: { api_key } });
const refresh = (refresh_token: string) => api(server.url, 'POST', '/v1/auth/refresh', { body: { refresh_token } });

before(async () => {
  server = await startTestServer();
  await rolesWithOptions(admin, { guarded: { require_mfa: true }, open: {} });
});
after(() => server.stop());

test('an API key of a person whose role requires a security key gets no tokens, with why and where to go', async () => {
  const ann = await person('ann', ['guarded']);
  const refused = await token(ann.key);
  assert.equal(refused.status, 403, refused.text);
  assert.match(refused.headers.get('content-type') ?? '', /application\/problem\+json/);
  assert.equal(refused.json.code, 'forbidden');
  assert.match(refused.json.detail, /requires a security key \(require_mfa\).*sign in through the console/);
  assert.equal(refused.json.access_token, undefined);
  const failed = (await admin('GET', '/v1/events?type=auth.login.failed&per_page=100')).json.events.find(
    (e: { data: { reason: string }; actor: { id?: string } }) => e.data.reason === 'mfa_required',
  );
  assert.equal(failed.actor.id, ann.id);
  assert.doesNotMatch(JSON.stringify(failed), new RegExp(ann.key));

  // The key is right, so asking again is never throttled into a 429: the answer stays the same.
  for (let i = 0; i < 12; i++) assert.equal((await token(ann.key)).status, 403);

  // Control: the same key at the console starts the sign-in that asks for the key.
  const consoleAnswer = await api(server.webUrl, 'POST', '/webapi/session', {
    headers: { 'x-gatehouse-csrf': '1' },
    body: { api_key: ann.key },
  });
  assert.equal(consoleAnswer.status, 200, consoleAnswer.text);
  assert.equal(consoleAnswer.json.second_factor, 'required');
});

test('positive controls: a person without such a role, and an agent holding it (a machine key)', async () => {
  const bob = await person('bob', ['open']);
  const ok = await token(bob.key);
  assert.equal(ok.status, 200, ok.text);
  assert.equal((await api(server.url, 'GET', '/v1/events?per_page=1', { token: ok.json.access_token })).status, 200);

  const agent = await admin('POST', '/v1/agents', { name: 'ci-bot', roles: ['guarded'] });
  assert.equal(agent.status, 201, agent.text);
  const credential = await admin('POST', `/v1/agents/${agent.json.id}/credentials`, { type: 'api_key', ttl: 3600 });
  assert.equal(credential.status, 201, credential.text);
  assert.equal((await token(credential.json.api_key)).status, 200);
});

test('a login from before the role required a key ends at its next refresh; a login that gave its key goes on', async () => {
  const cat = await person('cat', ['open']);
  const before = await token(cat.key);
  assert.equal(before.status, 200);
  const first = await refresh(before.json.refresh_token);
  assert.equal(first.status, 200, 'control: it refreshes while no role requires a key');
  assert.equal((await admin('PATCH', `/v1/users/${cat.id}`, { roles: ['guarded'] })).status, 200);
  const ended = await refresh(first.json.refresh_token);
  assert.equal(ended.status, 401, ended.text);
  assert.equal(ended.json.code, 'mfa_required');
  assert.match(ended.json.detail, /now requires a security key/);

  // Through the console with her key: that login refreshes.
  const { call: send } = consoleBrowser(() => server);
  const call = (path: string, body?: unknown) => send('POST', path, body);
  assert.equal((await call('/webapi/session', { api_key: cat.key })).json.second_factor, 'required');
  const step = await call('/webapi/mfa/sign-in/options');
  const key = softAuthenticator(server.gatehouse.services.webPublicUrl());
  const done = await call('/webapi/mfa/sign-in', { response: key.create(step.json.options), name: 'cat key' });
  assert.equal(done.status, 200, done.text);
  const refreshed = await call('/webapi/session/refresh');
  assert.equal(refreshed.status, 200, refreshed.text);
  assert.equal(refreshed.json.principal.name, 'cat');
});
