// The web listener's console endpoints over real HTTP: the cookie exchange and its CSRF rule, sign-out
// revocation, refresh rotation, and the static files (CSP, caching, client routes). Each refusal has
// its positive control: the same request done right passes. The pages themselves: web/e2e.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { buildApi } from '../src/api/build-api.js';
import { CLIENT_ROUTES, DEFAULT_CONSOLE_DIR } from '../src/api/console/console.routes.js';
import { CONSOLE_CSP } from '../src/api/console/static-files.js';
import { ADMIN_KEY, api, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';

const CSRF = { 'x-gatehouse-csrf': '1' };
let gh: TestServer;

/** The name=value pairs of a response's Set-Cookie headers, as a browser would send them back. */
const cookiesOf = (headers: Headers) =>
  headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');

async function signIn(body: Record<string, string> = { api_key: ADMIN_KEY }) {
  return api(gh.webUrl, 'POST', '/webapi/session', { body, headers: CSRF });
}

before(async () => {
  // The static-file tests need a build; it is skipped when web/dist is up to date.
  const build = spawnSync(process.execPath, ['scripts/build-web.mjs', '--if-stale'], { stdio: 'inherit' });
  assert.equal(build.status, 0, 'the console builds');
  gh = await startTestServer();
});
after(() => gh.stop());

describe('session cookie exchange', () => {
  test('signing in sets HttpOnly, Secure, SameSite=Strict cookies and answers who and what', async () => {
    const res = await signIn();
    assert.equal(res.status, 200, res.text);
    const [access, refresh] = res.headers.getSetCookie();
    assert.match(
      access ?? '',
      /^__Host-gatehouse_session=gha_[\w-]+; Path=\/; Max-Age=3600; HttpOnly; Secure; SameSite=Strict$/,
    );
    assert.match(
      refresh ?? '',
      /^__Secure-gatehouse_refresh=ghr_[\w-]+; Path=\/webapi\/session; Max-Age=86400; HttpOnly; Secure; SameSite=Strict$/,
    );
    assert.equal(res.headers.get('cache-control'), 'no-store');
    assert.equal(res.json.principal.name, 'admin');
    assert.deepEqual(res.json.permissions.users, ['list', 'read', 'create', 'update', 'delete']);
    // The token is in the cookie only, never in the body a script could read.
    assert.doesNotMatch(res.text, /gha_|ghr_/);
  });

  test('sign-in without the CSRF header is refused (login CSRF); with it (above) it works', async () => {
    const res = await api(gh.webUrl, 'POST', '/webapi/session', { body: { api_key: ADMIN_KEY } });
    assert.equal(res.status, 403);
    assert.equal(res.json.code, 'forbidden');
    assert.equal(res.headers.getSetCookie().length, 0);
  });

  test('a wrong key is 401 and sets nothing; exactly one of api_key and access_token', async () => {
    const wrong = await signIn({ api_key: `ghk_${'A'.repeat(43)}` });
    assert.equal(wrong.status, 401);
    assert.equal(wrong.headers.getSetCookie().length, 0);
    const both = await signIn({ api_key: ADMIN_KEY, access_token: gh.adminToken });
    assert.equal(both.status, 400);
    assert.equal(both.json.errors[0].path, '/body');
    const neither = await signIn({});
    assert.equal(neither.status, 400);
  });

  test('the cookie authenticates /v1 only beside the CSRF header and from the same origin', async () => {
    const cookie = cookiesOf((await signIn()).headers);
    const bare = await api(gh.webUrl, 'GET', '/v1/users', { headers: { cookie } });
    assert.equal(bare.status, 403);
    assert.match(bare.json.detail, /x-gatehouse-csrf/);
    const crossSite = await api(gh.webUrl, 'GET', '/v1/users', {
      headers: { cookie, ...CSRF, 'sec-fetch-site': 'same-site' },
    });
    assert.equal(crossSite.status, 403);
    // Positive controls: the console's own requests.
    const ok = await api(gh.webUrl, 'GET', '/v1/users', { headers: { cookie, ...CSRF } });
    assert.equal(ok.status, 200, ok.text);
    const sameOrigin = await api(gh.webUrl, 'GET', '/v1/users', {
      headers: { cookie, ...CSRF, 'sec-fetch-site': 'same-origin' },
    });
    assert.equal(sameOrigin.status, 200);
    // The cookie never reaches the auth listener's API, which knows nothing of it.
    const onAuth = await api(gh.url, 'GET', '/v1/users', { headers: { cookie, ...CSRF } });
    assert.equal(onAuth.status, 401);
  });

  test('the cookie carries the principal’s own rights: an auditor is 403 where the admin is 200', async () => {
    const auditor = await userWithRoles(gh, 'cookie-auditor', ['auditor']);
    const cookie = cookiesOf((await signIn({ api_key: auditor.apiKey })).headers);
    const denied = await api(gh.webUrl, 'POST', '/v1/users', { headers: { cookie, ...CSRF }, body: { name: 'x' } });
    assert.equal(denied.status, 403);
    const allowed = await api(gh.webUrl, 'GET', '/v1/events?per_page=1', { headers: { cookie, ...CSRF } });
    assert.equal(allowed.status, 200);
    const who = await api(gh.webUrl, 'GET', '/webapi/session', { headers: { cookie, ...CSRF } });
    assert.equal(who.json.principal.name, 'cookie-auditor');
    assert.deepEqual(who.json.permissions.users, []);
    assert.deepEqual(who.json.permissions.events, ['list', 'read']);
  });

  test('an Authorization header wins over the cookie; public routes ignore the cookie', async () => {
    const ping = await api(gh.webUrl, 'GET', '/webapi/ping', { headers: { cookie: '__Host-gatehouse_session=junk' } });
    assert.equal(ping.status, 200);
    const bearer = await api(gh.webUrl, 'GET', '/v1/users', {
      token: gh.adminToken,
      headers: { cookie: '__Host-gatehouse_session=junk' },
    });
    assert.equal(bearer.status, 200);
  });

  test('refresh rotates both cookies; replaying the old refresh cookie ends the whole login', async () => {
    const first = (await signIn()).headers;
    const refreshed = await api(gh.webUrl, 'POST', '/webapi/session/refresh', {
      headers: { cookie: cookiesOf(first), ...CSRF },
    });
    assert.equal(refreshed.status, 200, refreshed.text);
    const second = cookiesOf(refreshed.headers);
    assert.notEqual(second, cookiesOf(first));
    const works = await api(gh.webUrl, 'GET', '/webapi/session', { headers: { cookie: second, ...CSRF } });
    assert.equal(works.status, 200);
    const replay = await api(gh.webUrl, 'POST', '/webapi/session/refresh', {
      headers: { cookie: cookiesOf(first), ...CSRF },
    });
    assert.equal(replay.status, 401);
    assert.match(replay.headers.getSetCookie()[0] ?? '', /Max-Age=0/);
    const after = await api(gh.webUrl, 'GET', '/webapi/session', { headers: { cookie: second, ...CSRF } });
    assert.equal(after.status, 401);
    const noCsrf = await api(gh.webUrl, 'POST', '/webapi/session/refresh', { headers: { cookie: second } });
    assert.equal(noCsrf.status, 403);
  });

  test('sign-out revokes the access and the refresh token and clears both cookies', async () => {
    const cookie = cookiesOf((await signIn()).headers);
    const out = await api(gh.webUrl, 'DELETE', '/webapi/session', { headers: { cookie, ...CSRF } });
    assert.equal(out.status, 204);
    assert.deepEqual(
      out.headers.getSetCookie().map((c) => c.match(/Max-Age=\d+/)?.[0]),
      ['Max-Age=0', 'Max-Age=0'],
    );
    assert.equal((await api(gh.webUrl, 'GET', '/v1/users', { headers: { cookie, ...CSRF } })).status, 401);
    const refresh = await api(gh.webUrl, 'POST', '/webapi/session/refresh', { headers: { cookie, ...CSRF } });
    assert.equal(refresh.status, 401);
    const events = await api(gh.url, 'GET', '/v1/events?type=auth.token.revoked&per_page=5', { token: gh.adminToken });
    assert.ok(events.json.events.length >= 1);
  });

  test('an access token signs in for as long as it lives, without a refresh cookie', async () => {
    const res = await signIn({ access_token: gh.adminToken });
    assert.equal(res.status, 200);
    const [access, refresh] = res.headers.getSetCookie();
    const maxAge = Number(access?.match(/Max-Age=(\d+)/)?.[1]);
    assert.ok(maxAge > 3000 && maxAge <= 3600, access);
    assert.match(refresh ?? '', /Max-Age=0/);
  });
});

describe('console files', () => {
  test('pages: index.html for / and every client route, never cached, with the strict CSP', async () => {
    for (const path of ['/', ...CLIENT_ROUTES.flatMap((r) => [`/${r}`, `/${r}/some/deeper/id`])]) {
      const res = await fetch(gh.webUrl + path);
      assert.equal(res.status, 200, path);
      assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
      assert.equal(res.headers.get('cache-control'), 'no-cache');
      assert.equal(res.headers.get('content-security-policy'), CONSOLE_CSP);
      assert.equal(res.headers.get('x-frame-options'), 'DENY');
      assert.match(await res.text(), /<div id="root">/);
    }
    assert.doesNotMatch(CONSOLE_CSP, /'unsafe-inline'|'unsafe-eval'/);
    // Anything else is still a 404 problem, not the app.
    const unknown = await fetch(`${gh.webUrl}/no-such-page`);
    assert.equal(unknown.status, 404);
    assert.match(unknown.headers.get('content-type') ?? '', /problem\+json/);
  });

  test('hashed assets are cached for a year, compressed when asked; unknown ones are 404', async () => {
    const js = readdirSync(`${DEFAULT_CONSOLE_DIR}assets`).find((f) => f.endsWith('.js'));
    assert.ok(js, 'a built script');
    const res = await fetch(`${gh.webUrl}/assets/${js}`, { headers: { 'accept-encoding': 'gzip' } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.equal(res.headers.get('content-encoding'), 'gzip');
    assert.match(res.headers.get('content-type') ?? '', /^text\/javascript/);
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    assert.ok((await res.text()).length > 1000);
    assert.equal((await fetch(`${gh.webUrl}/assets/nothing-here.js`)).status, 404);
    // Build stamps and the manifest are not served.
    assert.equal((await fetch(`${gh.webUrl}/.vite/manifest.json`)).status, 404);
  });

  test('every page names its icon, served from the console files, so browsers stop asking for /favicon.ico', async () => {
    const html = await (await fetch(`${gh.webUrl}/resources`)).text();
    const href = html.match(/<link rel="icon" type="image\/svg\+xml" href="([^"]+)"/)?.[1];
    assert.match(href ?? '', /^\/assets\/favicon-[\w-]+\.svg$/, html.slice(0, 400));
    const icon = await fetch(`${gh.webUrl}${href}`);
    assert.equal(icon.status, 200);
    assert.equal(icon.headers.get('content-type'), 'image/svg+xml');
    assert.match(await icon.text(), /^<svg /);
  });

  test('the auth listener serves no console', async () => {
    assert.equal((await fetch(`${gh.url}/`)).status, 404);
    assert.equal((await fetch(`${gh.url}/webapi/session`)).status, 404);
  });

  test('every web-listener route declares its permission; only the pages, ping and sign-in are public', async () => {
    const { app, routes } = await buildApi(gh.gatehouse.services, {
      listener: 'web',
      logger: pino({ level: 'silent' }),
      version: 'test',
      startedAt: Date.now(),
    });
    await app.close();
    const publicRoutes = routes.filter((r) => r.permission === 'public').map((r) => `${r.method} ${r.url}`);
    for (const r of routes) assert.ok(r.permission !== undefined, `${r.method} ${r.url}`);
    const webapi = publicRoutes.filter((r) => r.includes('/webapi/'));
    // The security-key steps of a sign-in read the pending login's cookie themselves (src/api/mfa).
    assert.deepEqual(webapi.sort(), [
      'GET /webapi/ping',
      // Single sign-on: the sign-in page's buttons, the redirect out, the way back, a native client's code.
      'GET /webapi/sso/:connector/login',
      'GET /webapi/sso/callback',
      'GET /webapi/sso/connectors',
      'POST /webapi/mfa/passkey',
      'POST /webapi/mfa/passkey/options',
      'POST /webapi/mfa/sign-in',
      'POST /webapi/mfa/sign-in/options',
      'POST /webapi/session',
      'POST /webapi/session/refresh',
      'POST /webapi/sso/exchange',
    ]);
    const session = routes.find((r) => r.method === 'DELETE' && r.url === '/webapi/session');
    assert.equal(session?.permission, 'authenticated');
    assert.deepEqual(session?.grants, []);
  });
});
