// Protected resources under label-based RBAC, and AI agents with their credentials.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { api, requestsTo, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';

let server: TestServer;
const { admin } = requestsTo(() => server);
before(async () => {
  server = await startTestServer();
});
after(() => server.stop());

describe('resources', () => {
  test('each kind is registered with its own fields and listed under its own name', async () => {
    const db = await admin('POST', '/v1/resources', {
      kind: 'database',
      name: 'orders',
      address: 'db.internal:5432',
      protocol: 'postgres',
      labels: { env: 'prod' },
    });
    const srv = await admin('POST', '/v1/resources', {
      kind: 'server',
      name: 'web-1',
      address: '10.1.0.5',
      labels: { env: 'dev' },
    });
    const app = await admin('POST', '/v1/resources', {
      kind: 'app',
      name: 'grafana',
      uri: 'https://grafana.internal',
      labels: { env: 'dev', team: 'obs' },
    });
    assert.deepEqual([db.status, srv.status, app.status], [201, 201, 201]);
    assert.match(db.json.id, /^db_/);
    assert.match(srv.json.id, /^srv_/);
    assert.match(app.json.id, /^app_/);
    assert.equal((await admin('GET', '/v1/databases')).json.databases[0].protocol, 'postgres');
    assert.equal((await admin('GET', '/v1/servers')).json.servers[0].name, 'web-1');
    assert.equal((await admin('GET', '/v1/apps')).json.apps[0].uri, 'https://grafana.internal');
    assert.equal((await admin('GET', '/v1/resources')).json.pagination.total, 3);
    assert.equal((await admin('GET', '/v1/resources?kind=app')).json.resources.length, 1);
    assert.equal((await admin('GET', '/v1/resources?label=env=dev&label=team=obs')).json.resources[0].name, 'grafana');
    assert.equal((await admin('GET', '/v1/resources?label=env=d*')).json.pagination.total, 2);
  });

  test('kind-specific fields are required or refused, with paths', async () => {
    const noProto = await admin('POST', '/v1/resources', { kind: 'database', name: 'x1', address: 'h:1' });
    assert.deepEqual(noProto.json.errors, [{ path: '/body/protocol', message: 'is required for a database' }]);
    const uriOnServer = await admin('POST', '/v1/resources', {
      kind: 'server',
      name: 'x2',
      address: 'h',
      uri: 'https://a',
    });
    assert.equal(uriOnServer.json.errors[0].path, '/body/uri');
    const badUri = await admin('POST', '/v1/resources', { kind: 'app', name: 'x3', uri: 'javascript:alert(1)' });
    assert.equal(badUri.status, 400);
    const dupe = await admin('POST', '/v1/resources', { kind: 'server', name: 'web-1', address: 'h' });
    assert.equal(dupe.status, 409);
  });

  test('a role sees only the resources its selectors match; others are 404, not 403', async () => {
    await admin('POST', '/v1/roles', {
      name: 'dev-only',
      allow: {
        rules: [{ resources: ['resources'], verbs: ['list', 'read', 'delete'] }],
        resources: [{ kinds: ['*'], labels: { env: 'dev' } }],
      },
      deny: { resources: [{ kinds: ['app'], labels: { team: 'obs' } }] },
    });
    const dev = await userWithRoles(server, 'dev-user', ['dev-only']);
    const list = await api(server.url, 'GET', '/v1/resources', { token: dev.token });
    assert.deepEqual(
      list.json.resources.map((r: { name: string }) => r.name),
      ['web-1'],
      'prod database hidden by labels, grafana hidden by the deny',
    );
    assert.equal(list.json.pagination.total, 1);
    const prodDb = (await admin('GET', '/v1/databases')).json.databases[0];
    const hidden = await api(server.url, 'GET', `/v1/resources/${prodDb.id}`, { token: dev.token });
    assert.equal(hidden.status, 404);
    const hiddenDelete = await api(server.url, 'DELETE', `/v1/resources/${prodDb.id}`, { token: dev.token });
    assert.equal(hiddenDelete.status, 404);
    assert.equal((await admin('GET', `/v1/resources/${prodDb.id}`)).status, 200);
    const devServer = list.json.resources[0];
    assert.equal((await api(server.url, 'DELETE', `/v1/resources/${devServer.id}`, { token: dev.token })).status, 204);
    assert.equal((await admin('GET', `/v1/resources/${devServer.id}`)).status, 404);
  });
});

describe('agents', () => {
  test('create and read in the seed shapes; list with paging and filters', async () => {
    const created = await admin('POST', '/v1/agents', {
      name: 'deploy-bot',
      description: 'ships',
      labels: { team: 'infra' },
    });
    assert.equal(created.status, 201);
    assert.match(created.json.id, /^agent_[0-9a-z]{26}$/);
    assert.equal(created.json.status, 'active');
    assert.match(created.json.created_at, /Z$/);
    assert.equal(new Date(created.json.created_at).toISOString(), created.json.created_at);
    for (let i = 0; i < 24; i++) await admin('POST', '/v1/agents', { name: `bot-${String(i).padStart(2, '0')}` });
    const page = await admin('GET', '/v1/agents?page=3&per_page=10');
    assert.deepEqual(Object.keys(page.json), ['agents', 'pagination']);
    assert.deepEqual(page.json.pagination, { total: 25, page: 3, per_page: 10 });
    assert.equal(page.json.agents.length, 5);
    assert.deepEqual((await admin('GET', `/v1/agents/${created.json.id}`)).json, created.json);
    assert.equal((await admin('GET', '/v1/agents?name=deploy-bot')).json.agents.length, 1);
    assert.equal((await admin('GET', '/v1/agents/agent_0000000000000000000000zzzz')).status, 404);
    assert.equal((await admin('POST', '/v1/agents', { name: 'deploy-bot' })).status, 409);
  });

  test('credentials: an API key shown once and a short-lived token that work', async () => {
    const agent = (await admin('POST', '/v1/agents', { name: 'reader-bot', roles: ['auditor'] })).json;
    const creds = await admin('POST', `/v1/agents/${agent.id}/credentials`, { ttl: 600 });
    assert.equal(creds.status, 201);
    assert.equal(creds.json.type, 'token', 'a short-lived token is the default');
    assert.equal(creds.json.expires_in, 600);
    const events = await api(server.url, 'GET', '/v1/events?per_page=1', { token: creds.json.access_token });
    assert.equal(events.status, 200);
    assert.equal((await api(server.url, 'GET', '/v1/users', { token: creds.json.access_token })).status, 403);
    const key = await admin('POST', `/v1/agents/${agent.id}/credentials`, { type: 'api_key', ttl: 600 });
    assert.equal(key.status, 201);
    assert.match(key.json.api_key, /^ghk_/);
    const viaKey = await api(server.url, 'POST', '/v1/auth/token', { body: { api_key: key.json.api_key } });
    assert.equal(viaKey.status, 200);
    assert.ok(viaKey.json.expires_in <= 600, 'no token outlives the API key credential it came from');
    const issued = await admin('GET', `/v1/events?type=agent.credentials.issued&target=${agent.id}`);
    assert.equal(issued.json.events.length, 2);
    assert.ok(!issued.text.includes(key.json.api_key));
    assert.ok(!issued.text.includes(creds.json.access_token));
    const tooLong = await admin('POST', `/v1/agents/${agent.id}/credentials`, { ttl: 7 * 86_400 });
    assert.equal(tooLong.status, 400);
  });

  test('an agent never exceeds its owner: roles the owner lacks are refused, demotion narrows at once', async () => {
    const owner = await userWithRoles(server, 'agent-owner', ['editor', 'auditor']);
    const refused = await api(server.url, 'POST', '/v1/agents', {
      token: owner.token,
      body: { name: 'greedy', roles: ['admin'] },
    });
    assert.equal(refused.status, 403);
    const agent = await api(server.url, 'POST', '/v1/agents', {
      token: owner.token,
      body: { name: 'helper', roles: ['auditor'] },
    });
    assert.equal(agent.status, 201);
    assert.equal(agent.json.owner, owner.id);
    const creds = (
      await api(server.url, 'POST', `/v1/agents/${agent.json.id}/credentials`, { token: owner.token, body: {} })
    ).json;
    assert.equal((await api(server.url, 'GET', '/v1/events', { token: creds.access_token })).status, 200);
    // Narrowing a role the owner and agent hold takes the permission from the agent at the next request.
    const role = await admin('POST', '/v1/roles', {
      name: 'events-reader',
      allow: { rules: [{ resources: ['events'], verbs: ['list'] }] },
    });
    assert.equal(role.status, 201);
    const owner2 = await userWithRoles(server, 'owner-two', ['events-reader']);
    const a2 = await api(server.url, 'POST', '/v1/agents', {
      token: server.adminToken,
      body: { name: 'helper-2', roles: ['events-reader'], owner: owner2.id },
    });
    assert.equal(a2.status, 201);
    const c2 = (await admin('POST', `/v1/agents/${a2.json.id}/credentials`, {})).json;
    assert.equal((await api(server.url, 'GET', '/v1/events', { token: c2.access_token })).status, 200);
    await admin('PUT', '/v1/roles/events-reader', { name: 'events-reader', allow: {} });
    assert.equal((await api(server.url, 'GET', '/v1/events', { token: c2.access_token })).status, 403);
    // Deleting the owner revokes the agents they own, with their tokens (see agents-lifecycle tests).
    const del = await admin('DELETE', `/v1/users/${owner2.id}`);
    assert.equal(del.status, 200);
    assert.equal((await admin('GET', `/v1/agents/${a2.json.id}`)).json.status, 'revoked');
    assert.equal((await api(server.url, 'GET', '/v1/events', { token: c2.access_token })).status, 401);
  });
});
