// The ID token is what the provider vouches with, so the relying party (openid-client) must refuse one
// that is signed by a key the provider does not publish, names another issuer or another client, or
// has expired. The real oidc-provider signs in; a front that answers as its issuer
// (test/helpers/oidc-interposer.ts) rewrites the token answer. Each refusal is a clear 403 page, an
// auth.sso.failed event saying which check failed, and neither a user nor a login.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { requestsTo, startTestServer, type TestServer } from './helpers/gatehouse.js';
import { type FrontedProvider, startFrontedProvider, type Tamper } from './helpers/oidc-interposer.js';
import { CookieJar, hop, providerFields, signInThrough } from './helpers/oidc-provider.js';

let server: TestServer;
let provider: FrontedProvider;
const { admin } = requestsTo(() => server);
const SESSION_COOKIE = '__Host-gatehouse_session';
const callback = (url: URL) => url.pathname === '/webapi/sso/callback';

interface AuditEvent {
  type: string;
  actor: { name?: string };
  data: Record<string, unknown>;
}
const events = async (type: string): Promise<AuditEvent[]> =>
  (await admin('GET', `/v1/events?type=${type}&per_page=100`)).json.events;

/** A whole sign-in as `login` through the front, with `tamper` applied to its token answer. */
async function signIn(login: string, tamper?: Tamper) {
  provider.accounts.set(login, { groups: ['platform-eng'] });
  provider.tamper = tamper;
  const before = provider.rewritten;
  try {
    const jar = new CookieJar();
    const { next } = await signInThrough(jar, new URL('/webapi/sso/fronted/login', server.webUrl), login, callback);
    assert.ok(next, 'the provider sent the browser back to the callback');
    const answer = await hop(jar, next);
    if (tamper) assert.equal(provider.rewritten, before + 1, 'the front rewrote this sign-in’s ID token');
    return { answer, cookie: jar.get(next, SESSION_COOKIE) };
  } finally {
    provider.tamper = undefined;
  }
}

/** Refused as a person sees it, recorded with why, and nothing made of it. */
async function assertRefused(login: string, tamper: Tamper, why: RegExp) {
  const { answer, cookie } = await signIn(login, tamper);
  assert.equal(answer.status, 403, answer.text);
  assert.match(answer.headers.get('content-type') ?? '', /text\/html/);
  assert.match(answer.text, /Fronted IdP&#39;s answer did not pass verification/);
  assert.doesNotMatch(answer.text, /\n\s+at |eyJ/, 'no stack trace, no token on the page');
  assert.equal(cookie, undefined, 'no session cookie');
  assert.equal((await admin('GET', `/v1/users/${login}`)).status, 404, 'no user');
  const failed = (await events('auth.sso.failed')).filter((e) => e.data.reason === 'bad_token');
  const mine = failed.find((e) => why.test(String(e.data.error)));
  assert.ok(mine, `an auth.sso.failed event says why (${why}): ${JSON.stringify(failed.map((e) => e.data))}`);
  assert.equal(mine.data.connector, 'fronted');
  assert.doesNotMatch(JSON.stringify(mine), /eyJ/, 'the event holds no token');
  assert.ok(!(await events('auth.sso.login')).some((e) => e.actor.name === login), 'no auth.sso.login');
  assert.ok(!(await events('auth.token.issued')).some((e) => e.actor.name === login), 'no login');
}

before(async () => {
  server = await startTestServer();
  await admin('POST', '/v1/roles', { name: 'dev', allow: { rules: [{ resources: ['events'], verbs: ['list'] }] } });
  const redirectUri = new URL('/webapi/sso/callback', server.webUrl.replace('127.0.0.1', 'localhost'));
  provider = await startFrontedProvider({ redirectUris: [redirectUri.href], accounts: {} });
  const created = await admin('POST', '/v1/auth/connectors', {
    ...providerFields(provider),
    name: 'fronted',
    display_name: 'Fronted IdP',
    scopes: ['openid', 'profile', 'groups'],
    claims_to_roles: [{ claim: 'groups', value: 'platform-*', roles: ['dev'] }],
  });
  assert.equal(created.status, 201, created.text);
});
after(async () => {
  await provider?.stop();
  await server?.stop();
});

describe('the ID token is verified by the relying party', () => {
  test('positive controls: the provider’s own token, and one re-signed by a published key, sign in', async () => {
    const honest = await signIn('alice');
    assert.equal(honest.answer.status, 303, honest.answer.text);
    assert.ok(honest.cookie, 'signed in');
    assert.deepEqual((await admin('GET', '/v1/users/alice')).json.roles, ['dev']);
    // The front's rewriting alone changes nothing a check looks at: what the refusals below refuse is their change.
    const resigned = await signIn('alice-resigned', { key: 'listed' });
    assert.equal(resigned.answer.status, 303, resigned.answer.text);
    assert.ok(resigned.cookie, 'signed in');
    assert.ok((await events('auth.sso.login')).some((e) => e.actor.name === 'alice-resigned'));
  });

  test('signed by a key that is not in the provider’s JWKS (under the provider’s own kid): refused', async () => {
    await assertRefused('mallory-key', { key: 'unlisted' }, /JWT signature verification failed/);
  });

  test('another issuer: refused', async () => {
    await assertRefused(
      'mallory-iss',
      { key: 'listed', claims: (c) => ({ ...c, iss: 'http://127.0.0.1:9/evil-idp' }) },
      /unexpected JWT "iss" \(issuer\) claim value/,
    );
  });

  test('issued to another client (aud): refused', async () => {
    await assertRefused(
      'mallory-aud',
      { key: 'listed', claims: (c) => ({ ...c, aud: 'another-client' }) },
      /unexpected JWT "aud"/,
    );
  });

  test('expired an hour ago: refused', async () => {
    const now = Math.floor(Date.now() / 1000);
    await assertRefused(
      'mallory-exp',
      { key: 'listed', claims: (c) => ({ ...c, iat: now - 7200, exp: now - 3600 }) },
      /"exp" \(expiration time\) claim value, expiration is past/,
    );
  });
});
