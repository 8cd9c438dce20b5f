// Users, their API keys, and roles: lifecycle, conflicts, and the guards that prevent lock-out.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { api, requestsTo, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';

let server: TestServer;
const { admin } = requestsTo(() => server);
before(async () => {
  server = await startTestServer();
});
after(() => server.stop());

describe('users', () => {
  test('create, get, list with filters and paging, delete', async () => {
    const created = await admin('POST', '/v1/users', {
      name: 'alice',
      roles: ['access'],
      traits: { logins: ['ubuntu'] },
    });
    assert.equal(created.status, 201);
    assert.match(created.json.id, /^user_[0-9a-z]{26}$/);
    assert.equal(created.headers.get('location'), `/v1/users/${created.json.id}`);
    assert.deepEqual(created.json.traits, { logins: ['ubuntu'] });
    assert.equal(created.json.status, 'active');
    assert.match(created.json.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    const got = await admin('GET', `/v1/users/${created.json.id}`);
    assert.deepEqual(got.json, created.json);
    const byRole = await admin('GET', '/v1/users?role=access');
    assert.deepEqual(
      byRole.json.users.map((u: { name: string }) => u.name),
      ['alice'],
    );
    for (let i = 0; i < 5; i++) assert.equal((await admin('POST', '/v1/users', { name: `page-${i}` })).status, 201);
    const page2 = await admin('GET', '/v1/users?per_page=3&page=2');
    assert.equal(page2.json.users.length, 3);
    assert.deepEqual(page2.json.pagination, { total: 7, page: 2, per_page: 3 });

    assert.equal((await admin('DELETE', `/v1/users/${created.json.id}`)).status, 200);
    assert.equal((await admin('GET', `/v1/users/${created.json.id}`)).status, 404);
    const events = await admin('GET', `/v1/events?target=${created.json.id}`);
    assert.deepEqual(
      events.json.events.map((e: { type: string }) => e.type),
      ['user.deleted', 'user.created'],
    );
  });

  test('duplicate names are 409; unknown roles are 400 with the path', async () => {
    assert.equal((await admin('POST', '/v1/users', { name: 'dupe' })).status, 201);
    const dupe = await admin('POST', '/v1/users', { name: 'dupe' });
    assert.equal(dupe.status, 409);
    assert.equal(dupe.json.code, 'conflict');
    const bad = await admin('POST', '/v1/users', { name: 'roleless', roles: ['access', 'ghost'] });
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.json.errors, [{ path: '/body/roles/1', message: 'role "ghost" does not exist' }]);
    const badName = await admin('POST', '/v1/users', { name: 'has space' });
    assert.equal(badName.status, 400);
    assert.equal(badName.json.errors[0].path, '/body/name');
  });

  test('an admin cannot delete themselves, nor the last admin', async () => {
    const fresh = await startTestServer();
    try {
      const me = (await api(fresh.url, 'GET', '/v1/users?name=admin', { token: fresh.adminToken })).json.users[0];
      const self = await api(fresh.url, 'DELETE', `/v1/users/${me.id}`, { token: fresh.adminToken });
      assert.equal(self.status, 409);
      const second = await userWithRoles(fresh, 'second-admin', ['admin']);
      const editor = await userWithRoles(fresh, 'an-editor', ['editor']);
      const other = await api(fresh.url, 'DELETE', `/v1/users/${me.id}`, { token: second.token });
      assert.equal(other.status, 200, 'another admin exists, so this works');
      assert.equal((await api(fresh.url, 'GET', '/v1/users', { token: fresh.adminToken })).status, 401);
      // An editor does not cover an admin, so may not delete one at all.
      const byEditor = await api(fresh.url, 'DELETE', `/v1/users/${second.id}`, { token: editor.token });
      assert.equal(byEditor.status, 403);
      // Only an admin covers an admin, and an admin cannot delete themselves: the last-admin guard is
      // reached by the last admin's own admin agent.
      const agent = await api(fresh.url, 'POST', '/v1/agents', {
        token: second.token,
        body: { name: 'ops', roles: ['admin'] },
      });
      assert.equal(agent.status, 201, agent.text);
      const cred = await api(fresh.url, 'POST', `/v1/agents/${agent.json.id}/credentials`, {
        token: second.token,
        body: {},
      });
      const last = await api(fresh.url, 'DELETE', `/v1/users/${second.id}`, { token: cred.json.access_token });
      assert.equal(last.status, 409, last.text);
      assert.match(last.json.detail, /last active admin/);
    } finally {
      await fresh.stop();
    }
  });
});

describe('API keys', () => {
  test('the secret is shown once; listing shows metadata; deleting revokes its tokens', async () => {
    const fresh = await startTestServer();
    try {
      const user = (
        await api(fresh.url, 'POST', '/v1/users', { token: fresh.adminToken, body: { name: 'kk', roles: ['auditor'] } })
      ).json;
      const key = await api(fresh.url, 'POST', `/v1/users/${user.id}/api-keys`, {
        token: fresh.adminToken,
        body: { name: 'ci', ttl: 3600 },
      });
      assert.equal(key.status, 201);
      assert.match(key.json.api_key, /^ghk_/);
      assert.equal(key.json.hint, key.json.api_key.slice(0, 8) + '…');
      const list = await api(fresh.url, 'GET', `/v1/users/${user.id}/api-keys`, { token: fresh.adminToken });
      assert.equal(list.json.api_keys.length, 1);
      assert.ok(!list.text.includes(key.json.api_key), 'the secret is never listed');
      assert.equal(list.json.api_keys[0].name, 'ci');
      assert.ok(list.json.api_keys[0].expires_at);

      const token = (await api(fresh.url, 'POST', '/v1/auth/token', { body: { api_key: key.json.api_key } })).json
        .access_token;
      assert.equal((await api(fresh.url, 'GET', '/v1/events', { token })).status, 200);
      const del = await api(fresh.url, 'DELETE', `/v1/users/${user.id}/api-keys/${key.json.id}`, {
        token: fresh.adminToken,
      });
      assert.equal(del.status, 204);
      assert.equal((await api(fresh.url, 'GET', '/v1/events', { token })).json.code, 'token_revoked');
      const again = await api(fresh.url, 'POST', '/v1/auth/token', { body: { api_key: key.json.api_key } });
      assert.equal(again.status, 401);

      // Neither the database files nor the audit trail hold the secret.
      const { readFileSync, readdirSync } = await import('node:fs');
      const files = readdirSync(fresh.dataDir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
      assert.ok(files.length >= 3, 'the data dir holds the state, the audit trail and the keys');
      for (const file of files) {
        const f = `${file.parentPath}/${file.name}`;
        const bytes = readFileSync(f);
        assert.ok(!bytes.includes(key.json.api_key), `${f} contains the API key`);
        assert.ok(!bytes.includes(token), `${f} contains the access token`);
      }
    } finally {
      await fresh.stop();
    }
  });

  test('an expired API key cannot log in', async () => {
    const user = (await admin('POST', '/v1/users', { name: 'expiring' })).json;
    const key = (await admin('POST', `/v1/users/${user.id}/api-keys`, { ttl: 60 })).json;
    server.clockOffset.ms = 61_000;
    try {
      const res = await api(server.url, 'POST', '/v1/auth/token', { body: { api_key: key.api_key } });
      assert.equal(res.status, 401);
      assert.match(res.json.detail, /expired/);
    } finally {
      server.clockOffset.ms = 0;
    }
  });

  test('deleting a user revokes their tokens', async () => {
    const u = await userWithRoles(server, 'leaver', ['auditor']);
    assert.equal((await api(server.url, 'GET', '/v1/events', { token: u.token })).status, 200);
    assert.equal((await admin('DELETE', `/v1/users/${u.id}`)).status, 200);
    const res = await api(server.url, 'GET', '/v1/events', { token: u.token });
    assert.equal(res.status, 401);
  });
});

describe('roles', () => {
  test('built-in roles exist and can be neither changed nor deleted', async () => {
    const list = await admin('GET', '/v1/roles?per_page=100');
    const names = list.json.roles.map((r: { name: string }) => r.name);
    for (const n of ['admin', 'editor', 'auditor', 'access']) assert.ok(names.includes(n), n);
    assert.equal((await admin('DELETE', '/v1/roles/admin')).status, 409);
    const put = await admin('PUT', '/v1/roles/role_auditor', { name: 'auditor', allow: {} });
    assert.equal(put.status, 409);
  });

  test('create, read by id or name, replace, delete; in-use and duplicate are 409', async () => {
    const body = {
      name: 'dev-ssh',
      description: 'SSH to dev',
      allow: {
        rules: [{ resources: ['resources'], verbs: ['list', 'read'] }],
        resources: [{ kinds: ['server'], labels: { env: 'dev' } }],
        logins: ['ubuntu'],
      },
      deny: { resources: [{ kinds: ['server'], labels: { tier: 'prod*' } }] },
      options: { max_session_ttl: '8h', record_session: 'best_effort' },
    };
    const created = await admin('POST', '/v1/roles', body);
    assert.equal(created.status, 201);
    assert.match(created.json.id, /^role_/);
    assert.deepEqual((await admin('GET', '/v1/roles/dev-ssh')).json, created.json);
    assert.equal((await admin('POST', '/v1/roles', body)).status, 409);

    const holder = await userWithRoles(server, 'role-holder', ['dev-ssh']);
    assert.equal((await admin('DELETE', `/v1/roles/${created.json.id}`)).status, 409);
    assert.equal((await api(server.url, 'GET', '/v1/servers', { token: holder.token })).status, 200);

    // Replacing the role changes what its holders may do at once.
    const replaced = await admin('PUT', `/v1/roles/${created.json.id}`, { ...body, allow: { rules: [] } });
    assert.equal(replaced.status, 200);
    assert.equal(replaced.json.created_at, created.json.created_at);
    assert.equal((await api(server.url, 'GET', '/v1/servers', { token: holder.token })).status, 403);

    assert.equal((await admin('DELETE', `/v1/users/${holder.id}`)).status, 200);
    assert.equal((await admin('DELETE', `/v1/roles/${created.json.id}`)).status, 204);
    assert.equal((await admin('GET', `/v1/roles/${created.json.id}`)).status, 404);
  });

  test('bad role bodies are 400 with paths', async () => {
    const res = await admin('POST', '/v1/roles', {
      name: 'bad',
      allow: { rules: [{ resources: ['nukes'], verbs: ['list'] }] },
    });
    assert.equal(res.status, 400);
    assert.equal(res.json.errors[0].path, '/body/allow/rules/0/resources/0');
  });
});
