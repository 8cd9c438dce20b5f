// Single sign-on connectors over the API: CRUD, the client secret never answered, http issuers only on
// loopback, and the grant ceiling — claims_to_roles may only name roles the caller covers.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { requestsTo, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';

let server: TestServer;
const { admin, as } = requestsTo(() => server);
const SECRET = 'very-secret-client-secret-0123456789';

const connector = (over: Record<string, unknown> = {}) => ({
  kind: 'oidc',
  name: 'okta',
  display_name: 'Okta',
  issuer: 'https://example.okta.com',
  client_id: 'client-1',
  client_secret: SECRET,
  scopes: ['openid', 'profile', 'email', 'groups'],
  claims_to_roles: [{ claim: 'groups', value: 'platform-*', roles: ['dev'] }],
  username_claim: 'preferred_username',
  ...over,
});

before(async () => {
  server = await startTestServer();
  await admin('POST', '/v1/roles', {
    name: 'dev',
    allow: { resources: [{ kinds: ['server'], labels: { env: 'dev' } }] },
  });
  await admin('POST', '/v1/roles', {
    name: 'sso-manager',
    allow: { rules: [{ resources: ['connectors'], verbs: ['*'] }] },
  });
});
after(() => server.stop());

describe('single sign-on connectors', () => {
  test('create answers 201 with the redirect_uri to register, and no secret; get, list, replace, delete', async () => {
    const created = await admin('POST', '/v1/auth/connectors', connector());
    assert.equal(created.status, 201, created.text);
    assert.match(created.json.id, /^conn_/);
    assert.equal(created.headers.get('location'), `/v1/auth/connectors/${created.json.id}`);
    const port = new URL(server.webUrl).port;
    assert.equal(created.json.redirect_uri, `http://localhost:${port}/webapi/sso/callback`);
    assert.equal(created.json.enabled, true);
    assert.equal(created.json.max_session_ttl, 43200);
    assert.equal('client_secret' in created.json, false);

    const byName = await admin('GET', '/v1/auth/connectors/okta');
    assert.deepEqual(byName.json, created.json);
    const list = await admin('GET', '/v1/auth/connectors');
    assert.equal(list.json.connectors.length, 1);
    const replaced = await admin('PUT', `/v1/auth/connectors/${created.json.id}`, {
      ...connector({ display_name: 'Okta (corp)' }),
      client_secret: undefined,
    });
    assert.equal(replaced.status, 200, replaced.text);
    assert.equal(replaced.json.display_name, 'Okta (corp)');
    for (const answer of [created, byName, list, replaced]) assert.doesNotMatch(answer.text, /very-secret/);
    const events = await admin('GET', `/v1/events?target=${created.json.id}`);
    assert.deepEqual(
      events.json.events.map((e: { type: string }) => e.type),
      ['auth.connector.updated', 'auth.connector.created'],
    );
    assert.doesNotMatch(events.text, /very-secret/);

    assert.equal((await admin('POST', '/v1/auth/connectors', connector({ name: 'OKTA' }))).status, 409);
    assert.equal((await admin('DELETE', '/v1/auth/connectors/okta')).status, 204);
    assert.equal((await admin('GET', `/v1/auth/connectors/${created.json.id}`)).status, 404);
  });

  test('an http issuer is refused unless it is on loopback; https is accepted', async () => {
    const plain = await admin(
      'POST',
      '/v1/auth/connectors',
      connector({ name: 'plain', issuer: 'http://idp.example.com' }),
    );
    assert.equal(plain.status, 400);
    assert.match(plain.json.detail, /must be https/);
    const local = await admin(
      'POST',
      '/v1/auth/connectors',
      connector({ name: 'local', issuer: 'http://127.0.0.1:9999' }),
    );
    assert.equal(local.status, 201, local.text);
    const query = await admin(
      'POST',
      '/v1/auth/connectors',
      connector({ name: 'q', issuer: 'https://idp.example/?x=1' }),
    );
    assert.equal(query.status, 400);
    assert.equal((await admin('DELETE', '/v1/auth/connectors/local')).status, 204);
  });

  test('a mapping to a role that does not exist is 400 with its path', async () => {
    const bad = await admin(
      'POST',
      '/v1/auth/connectors',
      connector({ name: 'ghost', claims_to_roles: [{ claim: 'groups', value: '*', roles: ['dev', 'nope'] }] }),
    );
    assert.equal(bad.status, 400);
    assert.match(bad.text, /claims_to_roles\/0\/roles\/1/);
  });

  test('claims_to_roles may only name roles the caller covers (positive control: roles it holds)', async () => {
    const manager = await userWithRoles(server, 'connector-manager', ['sso-manager', 'dev']);
    const ok = await as(manager.token, 'POST', '/v1/auth/connectors', connector({ name: 'team-idp' }));
    assert.equal(ok.status, 201, ok.text);

    const grantsAdmin = await as(
      manager.token,
      'POST',
      '/v1/auth/connectors',
      connector({ name: 'rogue-idp', claims_to_roles: [{ claim: 'groups', value: '*', roles: ['admin'] }] }),
    );
    assert.equal(grantsAdmin.status, 403);
    assert.match(grantsAdmin.json.detail, /connector rogue-idp give roles \[admin\]/);

    const template = await as(
      manager.token,
      'POST',
      '/v1/auth/connectors',
      connector({ name: 'tmpl-idp', claims_to_roles: [{ claim: 'groups', value: '*', roles: ['{{value}}'] }] }),
    );
    assert.equal(template.status, 403);
    assert.match(template.json.detail, /template can name any role/);

    // Widening an existing connector is granting too, and so is changing one that gives more than you hold.
    const widen = await as(manager.token, 'PUT', `/v1/auth/connectors/${ok.json.id}`, {
      ...connector({ name: 'team-idp', claims_to_roles: [{ claim: 'groups', value: '*', roles: ['editor'] }] }),
    });
    assert.equal(widen.status, 403);
    const adminOwned = await admin(
      'POST',
      '/v1/auth/connectors',
      connector({ name: 'admins-idp', claims_to_roles: [{ claim: 'groups', value: 'root', roles: ['admin'] }] }),
    );
    assert.equal(adminOwned.status, 201);
    const takeover = await as(manager.token, 'PUT', `/v1/auth/connectors/${adminOwned.json.id}`, {
      ...connector({ name: 'admins-idp', issuer: 'https://attacker.example' }),
    });
    assert.equal(takeover.status, 403, 'redirecting an admin-granting connector to another issuer is refused');
    assert.equal((await as(manager.token, 'DELETE', `/v1/auth/connectors/${adminOwned.json.id}`)).status, 403);
    assert.equal((await as(manager.token, 'DELETE', `/v1/auth/connectors/${ok.json.id}`)).status, 204);

    const denied = await admin('GET', '/v1/events?type=access.denied');
    assert.ok(denied.json.events.some((e: { data: { action: string } }) => /rogue-idp/.test(e.data.action)));
  });

  test('a user without the connectors permission cannot list or create them', async () => {
    const plain = await userWithRoles(server, 'plain-dev', ['dev']);
    assert.equal((await as(plain.token, 'GET', '/v1/auth/connectors')).status, 403);
    assert.equal((await as(plain.token, 'POST', '/v1/auth/connectors', connector({ name: 'x' }))).status, 403);
  });
});
