// Break-glass for a person whose role requires a security key they lost: `gatehouse admin reset
// --user` removes their keys, so the console asks them to register a new one. A file of its own:
// each reset test starts real servers and the reset as child processes, and together they ran past
// the runner's 180 s per file on a loaded 2-core machine.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BOOTSTRAP, printedKey, resetEvents, tempDir, tokenFor } from './helpers/admin-reset.js';
import { consoleBrowser } from './helpers/console-browser.js';
import { api, type TestServer } from './helpers/gatehouse.js';
import { run, runToExit, stop } from './helpers/process.js';
import { softAuthenticator } from './helpers/webauthn-authenticator.js';

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
