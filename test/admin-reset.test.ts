// Break-glass: `gatehouse admin reset` run as an operator would, as a child process on the data dir
// of a real server that nobody can administer any more. The lost security key: admin-reset-mfa.test.ts.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { keys, type UserRecord } from '../src/auth/records.js';
import { openSqliteBackend } from '../src/backend/sqlite.js';
import { BOOTSTRAP, printedKey, resetEvents, tempDir, tokenFor } from './helpers/admin-reset.js';
import { api } from './helpers/gatehouse.js';
import { run, runToExit, stop } from './helpers/process.js';

test('the last admin deleted and every admin key gone: reset creates "admin", whose key works after a restart', async () => {
  const dataDir = tempDir();
  const env = { GATEHOUSE_DATA_DIR: dataDir };
  const first = await run(env);
  let adminKey: string;
  let oldAdminId: string;
  try {
    adminKey = readFileSync(join(dataDir, 'admin-api-key'), 'utf8').trim();
    const adminToken = (await tokenFor(first, adminKey)) as string;
    oldAdminId = (await api(first.authUrl, 'GET', '/v1/users?name=admin', { token: adminToken })).json.users[0].id;
    // A second admin deletes the first, then its own only key: nobody can administer Gatehouse now.
    const ops = await api(first.authUrl, 'POST', '/v1/users', {
      token: adminToken,
      body: { name: 'ops', roles: ['admin'] },
    });
    const opsKey = await api(first.authUrl, 'POST', `/v1/users/${ops.json.id}/api-keys`, {
      token: adminToken,
      body: { name: 'laptop' },
    });
    const opsToken = (await tokenFor(first, opsKey.json.api_key)) as string;
    assert.equal((await api(first.authUrl, 'DELETE', `/v1/users/${oldAdminId}`, { token: opsToken })).status, 200);
    const dropKey = `/v1/users/${ops.json.id}/api-keys/${opsKey.json.id}`;
    assert.equal((await api(first.authUrl, 'DELETE', dropKey, { token: opsToken })).status, 204);
    assert.equal(await tokenFor(first, adminKey), undefined, 'locked out: the old admin key is dead');
    assert.equal(await tokenFor(first, opsKey.json.api_key), undefined, 'locked out: the ops key is gone');
  } finally {
    assert.equal(await stop(first), 0);
  }

  const reset = await runToExit(env, ['admin', 'reset']);
  assert.equal(reset.code, 0, reset.stderr);
  const key = printedKey(reset.stdout);
  assert.match(reset.stdout, /user "admin" \(user_\w+\) was created and holds the admin role/);
  assert.match(reset.stdout, /curl -s -XPOST http:\/\/127\.0\.0\.1:0\/v1\/auth\/token .*\$KEY/);
  assert.ok(!reset.stderr.includes(key), 'the key is not on stderr');

  const second = await run(env);
  try {
    assert.ok(!second.output().includes(key), 'the server never prints or logs it');
    const token = await tokenFor(second, key);
    assert.ok(token, 'the printed key yields a token');
    const users = await api(second.authUrl, 'GET', '/v1/users', { token });
    assert.equal(users.status, 200, 'and the token administers Gatehouse again');
    const admin = users.json.users.find((u: UserRecord) => u.name === 'admin');
    assert.notEqual(admin.id, oldAdminId, 'a new user');
    assert.deepEqual(admin.roles, ['admin']);

    const events = await resetEvents(second, token as string);
    assert.equal(events.json.events.length, 1);
    const [event] = events.json.events;
    assert.equal(event.code, 'GH3200W');
    assert.deepEqual(event.actor, { kind: 'system', name: 'admin-reset' });
    assert.deepEqual(event.target, { kind: 'user', id: admin.id, name: 'admin' });
    assert.equal(event.data.action, 'created');
    const keyList = await api(second.authUrl, 'GET', `/v1/users/${admin.id}/api-keys`, { token });
    assert.equal(event.data.api_key_id, keyList.json.api_keys[0].id);
    const all = await api(second.authUrl, 'GET', '/v1/events?per_page=100', { token });
    assert.ok(!all.text.includes(key), 'no event holds the secret');
  } finally {
    await stop(second);
  }
  for (const file of readdirSync(dataDir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile())) {
    const path = join(file.parentPath, file.name);
    assert.ok(!readFileSync(path).includes(key), `${path} contains the key`);
  }
});

test('reset --user re-enables an existing user and adds the admin role to the roles it has', async () => {
  const dataDir = tempDir();
  const env = { GATEHOUSE_DATA_DIR: dataDir, GATEHOUSE_BOOTSTRAP_API_KEY: BOOTSTRAP };
  const first = await run(env);
  let bobId: string;
  try {
    const adminToken = (await tokenFor(first, BOOTSTRAP)) as string;
    bobId = (
      await api(first.authUrl, 'POST', '/v1/users', { token: adminToken, body: { name: 'bob', roles: ['auditor'] } })
    ).json.id;
    const bobKey = await api(first.authUrl, 'POST', `/v1/users/${bobId}/api-keys`, { token: adminToken, body: {} });
    const bobToken = await tokenFor(first, bobKey.json.api_key);
    assert.equal((await api(first.authUrl, 'GET', '/v1/users', { token: bobToken })).status, 403, 'bob is no admin');
  } finally {
    await stop(first);
  }
  // No API suspends a user yet; an operator's earlier lock-out is written to the store directly.
  const backend = openSqliteBackend({ path: join(dataDir, 'state.db') });
  const item = await backend.get(keys.user(bobId));
  await backend.put(keys.user(bobId), JSON.stringify({ ...JSON.parse(item?.value ?? ''), status: 'suspended' }));
  await backend.close();

  const reset = await runToExit(env, ['admin', 'reset', '--user', 'bob']);
  assert.equal(reset.code, 0, reset.stderr);
  const key = printedKey(reset.stdout);
  assert.match(reset.stdout, new RegExp(`user "bob" \\(${bobId}\\) was re-enabled and holds the admin role`));

  const second = await run(env);
  try {
    const token = await tokenFor(second, key);
    assert.equal((await api(second.authUrl, 'GET', '/v1/users', { token })).status, 200, 'bob administers now');
    const bob = (await api(second.authUrl, 'GET', `/v1/users/${bobId}`, { token })).json;
    assert.equal(bob.status, 'active');
    assert.deepEqual(bob.roles, ['auditor', 'admin']);
    const [event] = (await resetEvents(second, token as string)).json.events;
    assert.equal(event.target.id, bobId);
    assert.equal(event.data.action, 're-enabled');
    assert.equal(event.data.previous_status, 'suspended');
    assert.deepEqual(event.data.previous_roles, ['auditor']);
    assert.match(event.data.api_key_id, /^key_/);
  } finally {
    await stop(second);
  }
});
