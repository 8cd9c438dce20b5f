// Failed security-key assertions are throttled like other secrets (auth/login-throttle.ts): counted
// against the caller's address and what was answered for (the pending login's person, the passkey's
// credential id), answered 429 with Retry-After past the limit, on the same counters as API keys —
// and a right assertion never meets the counters (positive controls).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, beforeEach, test } from 'node:test';
import { consoleBrowser, rolesWithOptions } from './helpers/console-browser.js';
import { api, requestsTo, startTestServer, type TestServer } from './helpers/gatehouse.js';
import { softAuthenticator } from './helpers/webauthn-authenticator.js';

const LIMIT = 3;
let server: TestServer | undefined;
const current = () => server as TestServer;
const { admin } = requestsTo(current);
const origin = () => current().gatehouse.services.webPublicUrl();

// Each test starts from counters nobody has touched: a server of its own.
beforeEach(async () => {
  await server?.stop();
  server = await startTestServer({ 'login_throttle.max_failures': LIMIT });
  await rolesWithOptions(admin, { guarded: { require_mfa: true }, passwordless: { mfa_passwordless: true } });
});
after(() => server?.stop());

async function person(name: string, roles: string[]) {
  const user = await admin('POST', '/v1/users', { name, roles });
  assert.equal(user.status, 201, user.text);
  const key = await admin('POST', `/v1/users/${user.json.id}/api-keys`, { name: 'console' });
  return { id: user.json.id as string, key: key.json.api_key as string };
}

/** A person whose role requires a key, with one registered (their first sign-in did it). */
async function withKey(name: string) {
  const who = await person(name, ['guarded']);
  const key = softAuthenticator(origin());
  const b = consoleBrowser(current);
  await b.call('POST', '/webapi/session', { api_key: who.key });
  const step = await b.call('POST', '/webapi/mfa/sign-in/options');
  const done = await b.call('POST', '/webapi/mfa/sign-in', { response: key.create(step.json.options), name: 'k' });
  assert.equal(done.status, 200, done.text);
  return { who, key };
}

test('the second step: failed assertions turn into 429 past the limit; the right key still signs in', async () => {
  const { who, key } = await withKey('ann');
  const stranger = softAuthenticator(origin());
  const b = consoleBrowser(current);
  assert.equal((await b.call('POST', '/webapi/session', { api_key: who.key })).json.second_factor, 'required');
  // A key that is not hers: registered nowhere, so only the software authenticator knows it.
  stranger.create({
    challenge: randomBytes(32).toString('base64url'),
    rp: { id: new URL(origin()).hostname, name: 'x' },
    user: { id: Buffer.from('someone').toString('base64url'), name: 'x', displayName: 'x' },
  });
  const attempt = async (authenticator: ReturnType<typeof softAuthenticator>) => {
    const step = await b.call('POST', '/webapi/mfa/sign-in/options');
    assert.equal(step.status, 200, step.text);
    return b.call('POST', '/webapi/mfa/sign-in', { response: authenticator.get(step.json.options) });
  };
  for (let i = 0; i < LIMIT; i++) {
    const failed = await attempt(stranger);
    assert.equal(failed.status, 401, failed.text);
    assert.match(failed.json.detail, /not one of yours/);
  }
  const throttled = await attempt(stranger);
  assert.equal(throttled.status, 429, throttled.text);
  assert.ok(Number(throttled.headers.get('retry-after')) >= 1);
  assert.match(throttled.headers.get('content-type') ?? '', /application\/problem\+json/);
  const events = (await admin('GET', '/v1/events?type=auth.login.throttled')).json.events;
  assert.ok(events.some((e: { data?: { ceremony?: string } }) => e.data?.ceremony === 'sign-in'));

  // The same counters as every secret: a wrong API key from this address is throttled too.
  const wrongKey = await api(current().url, 'POST', '/v1/auth/token', { body: { api_key: 'ghk_wrong' } });
  assert.equal(wrongKey.status, 429, wrongKey.text);

  // Positive control: her own key is never throttled.
  const right = await attempt(key);
  assert.equal(right.status, 200, right.text);
  assert.equal(right.json.principal.name, 'ann');
});

test('the passkey sign-in: an unknown credential past the limit is 429; a registered passkey still signs in', async () => {
  const who = await person('ben', ['passwordless']);
  const b = consoleBrowser(current);
  await b.call('POST', '/webapi/session', { api_key: who.key });
  const key = softAuthenticator(origin());
  const options = (await b.call('POST', '/v1/users/me/mfa/devices/options')).json;
  const registered = await b.call('POST', '/v1/users/me/mfa/devices', { name: 'p', response: key.create(options) });
  assert.equal(registered.status, 201, registered.text);

  const passkey = async (forge: boolean) => {
    const page = consoleBrowser(current);
    const start = await page.call('POST', '/webapi/mfa/passkey/options', {});
    const response = key.get(start.json);
    // An unknown credential: the same answer under an id nobody registered.
    if (forge) response.id = response.rawId = randomBytes(16).toString('base64url');
    return page.call('POST', '/webapi/mfa/passkey', { response });
  };
  for (let i = 0; i < LIMIT; i++) {
    const failed = await passkey(true);
    assert.equal(failed.status, 401, failed.text);
  }
  const throttled = await passkey(true);
  assert.equal(throttled.status, 429, throttled.text);
  assert.ok(Number(throttled.headers.get('retry-after')) >= 1);

  const right = await passkey(false);
  assert.equal(right.status, 200, right.text);
  assert.equal(right.json.principal.name, 'ben');
});
