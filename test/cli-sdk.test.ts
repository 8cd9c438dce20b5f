// The SDK (gatehouse/sdk) against a real Gatehouse: sign-in with an API key, lists as async iterators
// across pages, refusals as GatehouseProblem, refresh before expiry and once after a 401.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { renderApiTypes } from '../scripts/api-types.mjs';
import { createGatehouse, GatehouseProblem, type Tokens } from '../src/sdk/index.js';
import { ADMIN_KEY, requestsTo, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';

let server: TestServer;
const { admin } = requestsTo(() => server);

before(async () => {
  server = await startTestServer();
  for (const name of ['sdk-a', 'sdk-b', 'sdk-c']) {
    const r = await admin('POST', '/v1/resources', {
      kind: 'server',
      name,
      address: '10.0.0.1:22',
      labels: { t: 'sdk' },
    });
    assert.equal(r.status, 201, r.text);
  }
});
after(() => server.stop());

test('src/sdk/schema.d.ts is what docs/openapi.json generates (npm test, npm run build and npm install write it)', async () => {
  assert.equal(readFileSync(new URL('../src/sdk/schema.d.ts', import.meta.url), 'utf8'), await renderApiTypes());
});

test('an API key signs in; a list is every item across pages; whoami names the caller', async () => {
  const saved: Tokens[] = [];
  const gh = createGatehouse({ baseUrl: server.url, apiKey: ADMIN_KEY, onTokens: (t) => void saved.push(t) });
  const names: string[] = [];
  for await (const r of gh.list('/v1/resources', { query: { label: ['t=sdk'] }, pageSize: 2 })) names.push(r.name);
  assert.deepEqual(names.sort(), ['sdk-a', 'sdk-b', 'sdk-c']);
  assert.equal(saved.length, 1, 'signed in once');
  const me = await gh.ok(gh.api.GET('/v1/auth/whoami'));
  assert.equal(me.name, 'admin');
  assert.ok(me.roles.includes('admin'));
  assert.ok(me.login, 'names its login');
});

test('a refusal is a GatehouseProblem with code, detail and request_id', async () => {
  const gh = createGatehouse({ baseUrl: server.url, apiKey: ADMIN_KEY });
  const error = await gh.ok(gh.api.GET('/v1/agents/{id}', { params: { path: { id: 'agent_nothere' } } })).then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(error instanceof GatehouseProblem);
  assert.equal(error.status, 404);
  assert.equal(error.code, 'not_found');
  assert.match(error.detail, /agent_nothere/);
  assert.match(error.request_id ?? '', /.+/);
  // Positive control: the same call for an agent that exists answers it.
  const made = await gh.ok(gh.api.POST('/v1/agents', { body: { name: 'sdk-bot' } }));
  const got = await gh.ok(gh.api.GET('/v1/agents/{id}', { params: { path: { id: made.id } } }));
  assert.equal(got.name, 'sdk-bot');
});

test('the access token is refreshed before it expires, and once after a 401; signOut ends the login', async () => {
  const user = await userWithRoles(server, 'sdk-alice', ['auditor']);
  const clock = { offset: 0 };
  const saved: Tokens[] = [];
  const gh = createGatehouse({
    baseUrl: server.url,
    tokens: { access_token: user.token, refresh_token: user.refresh, expires_at: Date.now() + 3600_000 },
    onTokens: (t) => void saved.push(t),
    clock: () => Date.now() + clock.offset,
  });
  await gh.ok(gh.api.GET('/v1/auth/whoami'));
  assert.equal(saved.length, 0, 'a fresh token is used as it is');
  clock.offset = 3590_000; // ten seconds before expiry, by the client's clock: refreshed first
  assert.equal((await gh.ok(gh.api.GET('/v1/auth/whoami'))).name, 'sdk-alice');
  assert.equal(saved.length, 1);
  assert.notEqual(saved[0]?.access_token, user.token);
  // The server's clock runs an hour ahead: the token is expired there, the client learns it by the 401.
  clock.offset = 0;
  server.clockOffset.ms = 3601_000;
  try {
    assert.equal((await gh.ok(gh.api.GET('/v1/auth/whoami'))).name, 'sdk-alice');
    assert.equal(saved.length, 2, 'refreshed once, on the 401');
  } finally {
    server.clockOffset.ms = 0;
  }
  const held = gh.tokens()?.access_token as string;
  assert.ok((await gh.signOut()).revoked >= 2);
  const after = createGatehouse({
    baseUrl: server.url,
    tokens: { access_token: held, expires_at: Date.now() + 60_000 },
  });
  const refused = await after.ok(after.api.GET('/v1/auth/whoami')).catch((e: GatehouseProblem) => e);
  assert.ok(refused instanceof GatehouseProblem);
  assert.equal(refused.code, 'token_revoked');
});

test('the agent example of docs/sdk.md: an agent signs in with its credential and lists what it may reach', async () => {
  const agent = await admin('POST', '/v1/agents', { name: 'sdk-reader', roles: ['access'] });
  assert.equal(agent.status, 201, agent.text);
  const credential = await admin('POST', `/v1/agents/${agent.json.id}/credentials`, { type: 'api_key', ttl: 900 });
  assert.equal(credential.status, 201, credential.text);
  const gh = createGatehouse({ baseUrl: server.webUrl, apiKey: credential.json.api_key });
  const reachable: string[] = [];
  for await (const r of gh.list('/v1/resources', { query: { kind: 'server' } })) reachable.push(r.name);
  assert.ok(
    ['sdk-a', 'sdk-b', 'sdk-c'].every((n) => reachable.includes(n)),
    reachable.join(),
  );
  assert.equal((await gh.ok(gh.api.GET('/v1/auth/whoami'))).kind, 'agent');
  // Its roles allow no user management: refused, as a problem.
  const refused = await gh.ok(gh.api.GET('/v1/users')).catch((e: GatehouseProblem) => e);
  assert.ok(refused instanceof GatehouseProblem);
  assert.equal(refused.code, 'forbidden');
});
