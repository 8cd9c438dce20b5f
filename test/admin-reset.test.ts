// Break-glass: `gatehouse admin reset` run as an operator would, as a child process on the data dir
// of a real server that nobody can administer any more.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { keys, type UserRecord } from '../src/auth/records.js';
import { openSqliteBackend } from '../src/backend/sqlite.js';
import { consoleBrowser } from './helpers/console-browser.js';
import { api, type TestServer } from './helpers/gatehouse.js';
import { type Running, run, runToExit, stop } from './helpers/process.js';
import { softAuthenticator } from './helpers/webauthn-authenticator.js';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'gatehouse-reset-'));
  dirs.push(d);
  return d;
};
const BOOTSTRAP = 'admin-reset-test-bootstrap-key-0123456789';
const noStack = (text: string) => assert.ok(!/\n\s+at /.test(text), `stack trace printed:\n${text}`);

/** The one API key a successful reset prints, alone on its line. */
function printedKey(stdout: string): string {
  const found = stdout.match(/^ghk_\S+$/gm) ?? [];
  assert.equal(found.length, 1, `one key line expected:\n${stdout}`);
  const key = found[0] as string;
  assert.equal(stdout.split(key).length, 2, 'the key is printed once');
  return key;
}

async function tokenFor(server: Running, apiKey: string): Promise<string | undefined> {
  const res = await api(server.authUrl, 'POST', '/v1/auth/token', { body: { api_key: apiKey } });
  return res.status === 200 ? res.json.access_token : undefined;
}

async function resetEvents(server: Running, token: string) {
  const res = await api(server.authUrl, 'GET', '/v1/events?type=system.admin_reset', { token });
  assert.equal(res.status, 200);
  return res;
}

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

test('reset refuses while a server uses the same store, naming it; --force resets anyway', async () => {
  const dataDir = tempDir();
  const env = { GATEHOUSE_DATA_DIR: dataDir, GATEHOUSE_BOOTSTRAP_API_KEY: BOOTSTRAP };
  const server = await run(env);
  let forcedKey: string;
  try {
    const refused = await runToExit(env, ['admin', 'reset']);
    assert.equal(refused.code, 1);
    assert.equal(refused.stdout, '', 'no key');
    assert.match(refused.stderr, /^gatehouse: refusing to reset: the state store is in use by gatehouse pid \d+/);
    assert.ok(refused.stderr.includes(`pid ${server.child.pid} on `), `names the server:\n${refused.stderr}`);
    assert.match(refused.stderr, /Stop it \(Ctrl-C or SIGTERM\) and run this again, or pass --force/);
    assert.equal(refused.stderr.trim().split('\n').length, 1, 'one line');

    const forced = await runToExit(env, ['admin', 'reset', '--force']);
    assert.equal(forced.code, 0, forced.stderr);
    forcedKey = printedKey(forced.stdout);
    assert.match(forced.stderr, /--force: gatehouse pid \d+ .* still uses this store/);
  } finally {
    assert.equal(await stop(server), 0);
  }
  const again = await run(env);
  try {
    const token = await tokenFor(again, forcedKey);
    assert.equal((await api(again.authUrl, 'GET', '/v1/users', { token })).status, 200);
  } finally {
    await stop(again);
  }
});

test('bad usage exits 2, a missing store exits 1; one line each, never a stack trace', async () => {
  const dataDir = tempDir();
  const env = { GATEHOUSE_DATA_DIR: dataDir };
  const usages = [
    ['admin', 'reset', '--bogus'],
    ['admin', 'reset', '--user'],
    ['admin', 'reset', '--user', 'no spaces'],
    ['admin', 'frobnicate'],
    ['admin'],
  ];
  const [results, badConfig, missing, help] = await Promise.all([
    Promise.all(usages.map((args) => runToExit(env, args))),
    runToExit({ ...env, GATEHOUSE_TOKENS_ACCESS_TTL: 'forever' }, ['admin', 'reset']),
    runToExit({ GATEHOUSE_DATA_DIR: join(dataDir, 'nowhere') }, ['admin', 'reset']),
    runToExit(env, ['admin', 'reset', '--help']),
  ]);
  results.forEach((r, i) => {
    const args = (usages[i] as string[]).join(' ');
    assert.equal(r.code, 2, `${args}: ${r.stderr}`);
    assert.match(r.stderr, /^gatehouse: .+\nusage: gatehouse admin reset/, args);
    assert.equal(r.stdout, '');
    noStack(r.stderr);
  });
  assert.equal(badConfig.code, 2);
  assert.match(badConfig.stderr, /^gatehouse: config key tokens\.access_ttl/);

  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /^gatehouse: no state store at .*nowhere\/state\.db; check --config/);
  noStack(missing.stderr);

  assert.equal(help.code, 0);
  assert.match(help.stdout, /^usage: gatehouse admin reset \[--config FILE\] \[--user NAME\] \[--force\]/);
});

test('a role of the user requires a security key they lost: reset removes their keys, the console asks for a new one', async () => {
  const dataDir = tempDir();
  // A fixed public URL: the security keys' origin, the same across restarts on free ports.
  const publicUrl = 'http://localhost:3999';
  const env = {
    GATEHOUSE_DATA_DIR: dataDir,
    GATEHOUSE_BOOTSTRAP_API_KEY: BOOTSTRAP,
    GATEHOUSE_WEB_PUBLIC_URL: publicUrl,
  };
  const lostKey = softAuthenticator(publicUrl);
  const first = await run(env);
  let opsId: string;
  try {
    const adminToken = (await tokenFor(first, BOOTSTRAP)) as string;
    const role = await api(first.authUrl, 'POST', '/v1/roles', {
      token: adminToken,
      body: {
        name: 'prod-admin',
        allow: { rules: [{ resources: ['users'], verbs: ['list'] }] },
        options: { require_mfa: true },
      },
    });
    assert.equal(role.status, 201, role.text);
    const ops = await api(first.authUrl, 'POST', '/v1/users', {
      token: adminToken,
      body: { name: 'ops', roles: ['prod-admin', 'admin'] },
    });
    opsId = ops.json.id;
    const opsKey = await api(first.authUrl, 'POST', `/v1/users/${opsId}/api-keys`, { token: adminToken, body: {} });
    // ops signs in at the console and registers the key that will be lost.
    const b = consoleBrowser(() => ({ webUrl: first.webUrl }) as TestServer);
    assert.equal(
      (await b.call('POST', '/webapi/session', { api_key: opsKey.json.api_key })).json.second_factor,
      'required',
    );
    const step = await b.call('POST', '/webapi/mfa/sign-in/options');
    assert.equal(step.json.mode, 'register');
    const registered = await b.call('POST', '/webapi/mfa/sign-in', {
      response: lostKey.create(step.json.options),
      name: 'lost',
    });
    assert.equal(registered.status, 200, registered.text);
  } finally {
    assert.equal(await stop(first), 0);
  }

  const reset = await runToExit(env, ['admin', 'reset', '--user', 'ops']);
  assert.equal(reset.code, 0, reset.stderr);
  const key = printedKey(reset.stdout);
  assert.match(reset.stdout, /Its 1 security key was removed \(auth\.mfa\.removed\)/);
  assert.match(
    reset.stdout,
    /requires a security key.*sign in at the console, http:\/\/localhost:3999\/login, with this key/s,
  );
  assert.doesNotMatch(reset.stdout, /curl/, 'no instruction that the API would refuse');

  const second = await run(env);
  try {
    // The API gives a require_mfa person's key no tokens (docs/mfa.md), the reset's key neither.
    const refused = await api(second.authUrl, 'POST', '/v1/auth/token', { body: { api_key: key } });
    assert.equal(refused.status, 403, refused.text);
    assert.match(refused.json.detail, /require_mfa/);
    // The console: the first factor is the reset key, the second a key registered now.
    const b = consoleBrowser(() => ({ webUrl: second.webUrl }) as TestServer);
    assert.equal((await b.call('POST', '/webapi/session', { api_key: key })).json.second_factor, 'required');
    const step = await b.call('POST', '/webapi/mfa/sign-in/options');
    assert.equal(step.status, 200, step.text);
    assert.equal(step.json.mode, 'register', 'the lost key is not asked for');
    const fresh = softAuthenticator(publicUrl);
    const done = await b.call('POST', '/webapi/mfa/sign-in', {
      response: fresh.create(step.json.options),
      name: 'new',
    });
    assert.equal(done.status, 200, done.text);
    assert.equal((await b.call('GET', '/v1/users')).status, 200, 'ops administers again');
    const devices = (await b.call('GET', '/v1/users/me/mfa/devices')).json.devices;
    assert.deepEqual(
      devices.map((d: { name: string }) => d.name),
      ['new'],
    );
    const token = (await tokenFor(second, BOOTSTRAP)) as string;
    const removed = await api(second.authUrl, 'GET', '/v1/events?type=auth.mfa.removed', { token });
    assert.equal(removed.json.events.length, 1);
    assert.deepEqual(removed.json.events[0].actor, { kind: 'system', name: 'admin-reset' });
    assert.equal(removed.json.events[0].data.by, 'admin-reset');
    assert.equal(removed.json.events[0].target.id, opsId);
    const [event] = (await resetEvents(second, token)).json.events;
    assert.equal(event.data.removed_mfa_devices, 1);
  } finally {
    await stop(second);
  }
});
