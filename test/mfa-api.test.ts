// Security keys over real HTTP with a software authenticator (test/helpers/webauthn-authenticator.ts):
// the second step of a console sign-in when a role requires it, the half-signed-in login refused
// everywhere else, challenges used once, a cloned key's counter refused, keys that only their owner
// (or an administrator who covers them) removes, and the passkey sign-in where a role allows it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { consoleBrowser } from './helpers/console-browser.js';
import { api, requestsTo, startTestServer, type TestServer } from './helpers/gatehouse.js';
import { softAuthenticator } from './helpers/webauthn-authenticator.js';

let server: TestServer;
const { admin } = requestsTo(() => server);

const browser = () => consoleBrowser(() => server);

async function person(name: string, roles: string[]) {
  const user = await admin('POST', '/v1/users', { name, roles });
  assert.equal(user.status, 201, user.text);
  const key = await admin('POST', `/v1/users/${user.json.id}/api-keys`, { name: 'console' });
  return { id: user.json.id as string, key: key.json.api_key as string };
}

async function role(name: string, options: Record<string, unknown>) {
  const rules = [{ resources: ['resources', 'users'], verbs: ['list', 'read'] }];
  const res = await admin('POST', '/v1/roles', { name, allow: { rules }, options });
  assert.equal(res.status, 201, res.text);
}

const origin = () => server.gatehouse.services.webPublicUrl();
const events = async (type: string) =>
  ((await admin('GET', `/v1/events?type=${type}&per_page=100`)).json.events as Array<{
    data: Record<string, unknown>;
  }>) ?? [];

/** First factor, then (for require_mfa) the key: a registered credential, or register one. */
async function signIn(
  who: { key: string },
  key: ReturnType<typeof softAuthenticator>,
  opts: { register?: boolean } = {},
) {
  const b = browser();
  const first = await b.call('POST', '/webapi/session', { api_key: who.key });
  assert.equal(first.status, 200, first.text);
  assert.equal(first.json.second_factor, 'required');
  const step = await b.call('POST', '/webapi/mfa/sign-in/options');
  assert.equal(step.status, 200, step.text);
  assert.equal(step.json.mode, opts.register ? 'register' : 'assert');
  const response = opts.register ? key.create(step.json.options) : key.get(step.json.options);
  return { b, response, finish: () => b.call('POST', '/webapi/mfa/sign-in', { response, name: 'test key' }) };
}

before(async () => {
  server = await startTestServer();
  await role('mfa-required', { require_mfa: true });
  await role('plain', {});
  await role('passwordless', { mfa_passwordless: true });
});
after(() => server.stop());

describe('require_mfa: the console sign-in ends with a security key', () => {
  test('a person without a key registers one right after the API key, and only then is signed in', async () => {
    const alice = await person('alice', ['mfa-required']);
    const key = softAuthenticator(origin());
    // A pending login's refresh token does not refresh into a full login (and ends it).
    const early = browser();
    await early.call('POST', '/webapi/session', { api_key: alice.key });
    const refreshed = await early.call('POST', '/webapi/session/refresh');
    assert.equal(refreshed.status, 401, refreshed.text);
    assert.equal(refreshed.json.code, 'mfa_required');
    const { b, finish } = await signIn(alice, key, { register: true });
    // Half signed in: the API refuses the cookie everywhere else, as a bearer token too.
    for (const path of ['/v1/resources', '/v1/users/me/mfa/devices', '/webapi/session']) {
      const refused = await b.call('GET', path);
      assert.equal(refused.status, 401, `${path}: ${refused.text}`);
      assert.equal(refused.json.code, 'mfa_required');
    }
    const bearer = await api(server.url, 'GET', '/v1/resources', { token: b.access() });
    assert.equal(bearer.status, 401);
    assert.equal(bearer.json.code, 'mfa_required');
    const done = await finish();
    assert.equal(done.status, 200, done.text);
    assert.deepEqual(done.json.permissions.resources, ['list', 'read']);
    // Positive control: the same routes answer now.
    assert.equal((await b.call('GET', '/v1/resources')).status, 200);
    const mine = await b.call('GET', '/v1/users/me/mfa/devices');
    assert.equal(mine.status, 200, mine.text);
    assert.equal(mine.json.devices.length, 1);
    assert.equal(mine.json.devices[0].name, 'test key');
    assert.ok((await events('auth.mfa.registered')).some((e) => e.data.device_id === mine.json.devices[0].id));
  });

  test('with a key, the sign-in asks for it; a replayed assertion (a used challenge) is refused', async () => {
    const bob = await person('bob', ['mfa-required']);
    const key = softAuthenticator(origin());
    assert.equal((await (await signIn(bob, key, { register: true })).finish()).status, 200);
    const first = await signIn(bob, key);
    assert.equal((await first.finish()).status, 200);
    // The same response again, on a fresh pending login: its challenge is gone.
    const second = browser();
    assert.equal((await second.call('POST', '/webapi/session', { api_key: bob.key })).json.second_factor, 'required');
    const replay = await second.call('POST', '/webapi/mfa/sign-in', { response: first.response });
    assert.equal(replay.status, 401, replay.text);
    assert.match(replay.json.detail, /already used/);
    assert.equal((await second.call('GET', '/v1/resources')).status, 401);
    assert.ok((await events('auth.mfa.failed')).some((e) => /already used/.test(String(e.data.reason))));
    assert.ok((await events('auth.mfa.used')).length >= 1);
  });

  test('an assertion whose signature counter goes back (a cloned key) is refused', async () => {
    const carol = await person('carol', ['mfa-required']);
    const key = softAuthenticator(origin());
    assert.equal((await (await signIn(carol, key, { register: true })).finish()).status, 200);
    const b = browser();
    await b.call('POST', '/webapi/session', { api_key: carol.key });
    const step = await b.call('POST', '/webapi/mfa/sign-in/options');
    const cloned = await b.call('POST', '/webapi/mfa/sign-in', {
      response: key.get(step.json.options, { counter: 1 }),
    });
    assert.equal(cloned.status, 401, cloned.text);
    assert.match(cloned.json.detail, /counter/);
  });

  test('an assertion made for another origin or another relying party is refused; the right one passes', async () => {
    const olga = await person('olga', ['mfa-required']);
    const key = softAuthenticator(origin());
    assert.equal((await (await signIn(olga, key, { register: true })).finish()).status, 200);
    const rp = new URL(origin());
    // A phishing page relaying the challenge: the browser writes its own origin. A key asked by
    // another site signs that site's RP id. Each on a fresh pending login, with a fresh challenge.
    const cases = [
      { opts: { origin: 'https://gatehouse.evil.example' }, why: /origin/i },
      { opts: { origin: `${rp.protocol}//${rp.hostname}:${Number(rp.port || 80) + 1}` }, why: /origin/i },
      { opts: { rpId: 'evil.example' }, why: /RP ID/i },
    ];
    for (const { opts, why } of cases) {
      const b = browser();
      assert.equal((await b.call('POST', '/webapi/session', { api_key: olga.key })).json.second_factor, 'required');
      const step = await b.call('POST', '/webapi/mfa/sign-in/options');
      const refused = await b.call('POST', '/webapi/mfa/sign-in', { response: key.get(step.json.options, opts) });
      assert.equal(refused.status, 401, `${JSON.stringify(opts)}: ${refused.text}`);
      assert.match(refused.json.detail, why);
      assert.equal((await b.call('GET', '/v1/resources')).status, 401, 'still half signed in');
      assert.ok(
        (await events('auth.mfa.failed')).some((e) => why.test(String(e.data.reason))),
        `auth.mfa.failed says ${why}`,
      );
    }
    // Positive control: the same key, for this origin and RP id, signs in.
    const right = await signIn(olga, key);
    assert.equal((await right.finish()).status, 200);
    assert.equal((await right.b.call('GET', '/v1/resources')).status, 200);
  });

  test('a key registered by someone else does not answer for this person', async () => {
    const dave = await person('dave', ['mfa-required']);
    const erin = await person('erin', ['mfa-required']);
    const daveKey = softAuthenticator(origin());
    const erinKey = softAuthenticator(origin());
    assert.equal((await (await signIn(dave, daveKey, { register: true })).finish()).status, 200);
    assert.equal((await (await signIn(erin, erinKey, { register: true })).finish()).status, 200);
    const b = browser();
    await b.call('POST', '/webapi/session', { api_key: erin.key });
    const step = await b.call('POST', '/webapi/mfa/sign-in/options');
    const wrong = await b.call('POST', '/webapi/mfa/sign-in', { response: daveKey.get(step.json.options) });
    assert.equal(wrong.status, 401, wrong.text);
  });

  test('a role without require_mfa signs in with the API key alone; an access token of a require_mfa person does not', async () => {
    const frank = await person('frank', ['plain']);
    const b = browser();
    const res = await b.call('POST', '/webapi/session', { api_key: frank.key });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.second_factor, undefined);
    assert.equal((await b.call('GET', '/v1/resources')).status, 200);
    // Gina's key gets no tokens from the API (test/mfa-api-token.test.ts); one from a login made
    // before her role required a key does not open the console either.
    const gina = await person('gina', ['plain']);
    const token = await api(server.url, 'POST', '/v1/auth/token', { body: { api_key: gina.key } });
    assert.equal(token.status, 200, token.text);
    assert.equal((await admin('PATCH', `/v1/users/${gina.id}`, { roles: ['mfa-required'] })).status, 200);
    const viaToken = await browser().call('POST', '/webapi/session', { access_token: token.json.access_token });
    assert.equal(viaToken.status, 401, viaToken.text);
    assert.equal(viaToken.json.code, 'mfa_required');
  });
});

describe('managing keys', () => {
  test('another person’s key cannot be removed; its owner and an administrator can', async () => {
    const hana = await person('hana', ['plain']);
    const ivan = await person('ivan', ['plain']);
    const hb = browser();
    const ib = browser();
    await hb.call('POST', '/webapi/session', { api_key: hana.key });
    await ib.call('POST', '/webapi/session', { api_key: ivan.key });
    const register = async (b: ReturnType<typeof browser>, name: string) => {
      const options = await b.call('POST', '/v1/users/me/mfa/devices/options');
      assert.equal(options.status, 200, options.text);
      const res = await b.call('POST', '/v1/users/me/mfa/devices', {
        name,
        response: softAuthenticator(origin()).create(options.json),
      });
      assert.equal(res.status, 201, res.text);
      return res.json.id as string;
    };
    const hanaKey = await register(hb, 'hana laptop');
    const hanaSpare = await register(hb, 'hana spare');
    // Ivan, by id, through his own routes and the administrators' ones: not found / forbidden.
    assert.equal((await ib.call('DELETE', `/v1/users/me/mfa/devices/${hanaKey}`)).status, 404);
    assert.equal((await ib.call('PATCH', `/v1/users/me/mfa/devices/${hanaKey}`, { name: 'mine now' })).status, 404);
    assert.equal((await ib.call('DELETE', `/v1/users/${hana.id}/mfa/devices`)).status, 403);
    assert.equal((await ib.call('GET', `/v1/users/${hana.id}/mfa/devices`)).status, 200, 'plain may read users');
    assert.equal((await hb.call('GET', '/v1/users/me/mfa/devices')).json.devices.length, 2);
    // Positive controls: the owner renames and removes; an administrator removes the rest.
    const renamed = await hb.call('PATCH', `/v1/users/me/mfa/devices/${hanaKey}`, { name: 'old laptop' });
    assert.equal(renamed.status, 200, renamed.text);
    assert.equal(renamed.json.name, 'old laptop');
    assert.equal((await hb.call('DELETE', `/v1/users/me/mfa/devices/${hanaKey}`)).status, 204);
    const removed = await admin('DELETE', `/v1/users/${hana.id}/mfa/devices`);
    assert.equal(removed.status, 200, removed.text);
    assert.equal(removed.json.removed, 1);
    assert.equal((await hb.call('GET', '/v1/users/me/mfa/devices')).json.devices.length, 0);
    const removals = await events('auth.mfa.removed');
    assert.ok(removals.some((e) => e.data.device_id === hanaKey && e.data.by === 'owner'));
    assert.ok(removals.some((e) => e.data.device_id === hanaSpare && e.data.by === 'administrator'));
  });

  test('a registration challenge is used once, and only by the person it was made for', async () => {
    const jo = await person('jo', ['plain']);
    const kim = await person('kim', ['plain']);
    const jb = browser();
    const kb = browser();
    await jb.call('POST', '/webapi/session', { api_key: jo.key });
    await kb.call('POST', '/webapi/session', { api_key: kim.key });
    const options = (await jb.call('POST', '/v1/users/me/mfa/devices/options')).json;
    const response = softAuthenticator(origin()).create(options);
    const stolen = await kb.call('POST', '/v1/users/me/mfa/devices', { name: 'k', response });
    assert.equal(stolen.status, 401, stolen.text);
    // Kim's attempt burnt the challenge: Jo starts again (the positive control).
    assert.equal((await jb.call('POST', '/v1/users/me/mfa/devices', { name: 'j', response })).status, 401);
    const fresh = (await jb.call('POST', '/v1/users/me/mfa/devices/options')).json;
    const ok = await jb.call('POST', '/v1/users/me/mfa/devices', {
      name: 'j',
      response: softAuthenticator(origin()).create(fresh),
    });
    assert.equal(ok.status, 201, ok.text);
  });
});

describe('passwordless', () => {
  async function withPasskey(name: string, roles: string[]) {
    const who = await person(name, roles);
    const b = browser();
    await b.call('POST', '/webapi/session', { api_key: who.key });
    const key = softAuthenticator(origin());
    const options = (await b.call('POST', '/v1/users/me/mfa/devices/options')).json;
    assert.equal(
      (await b.call('POST', '/v1/users/me/mfa/devices', { name: 'passkey', response: key.create(options) })).status,
      201,
    );
    return { who, key };
  }
  const passkeySignIn = async (key: ReturnType<typeof softAuthenticator>, opts = {}) => {
    const b = browser();
    const options = await b.call('POST', '/webapi/mfa/passkey/options', {});
    assert.equal(options.status, 200, options.text);
    assert.equal(options.json.allowCredentials?.length ?? 0, 0, 'a passkey sign-in names no credentials');
    return { b, res: await b.call('POST', '/webapi/mfa/passkey', { response: key.get(options.json, opts) }) };
  };

  test('a passkey alone signs in where a role allows it (mfa_passwordless), not elsewhere', async () => {
    const allowed = await withPasskey('lee', ['passwordless']);
    const { b, res } = await passkeySignIn(allowed.key);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.principal.name, 'lee');
    assert.equal((await b.call('GET', '/v1/resources')).status, 200);
    const refused = await withPasskey('max', ['plain']);
    const other = await passkeySignIn(refused.key);
    assert.equal(other.res.status, 401, other.res.text);
    assert.match(other.res.json.detail, /mfa_passwordless/);
    assert.equal((await other.b.call('GET', '/v1/resources')).status, 401);
  });

  test('a passkey without user verification does not sign in alone', async () => {
    const { key } = await withPasskey('nia', ['passwordless']);
    const { res } = await passkeySignIn(key, { userVerified: false });
    assert.equal(res.status, 401, res.text);
  });
});
