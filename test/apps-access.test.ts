// Application access on the web listener, as a browser and a program meet it: an app served at
// <name>.localhost:<web port>, a person sent through the console and back with a one-time code, an
// app-session cookie only that host receives, a program with a bearer token; the app (a real HTTP
// server of the test) verifies the identity JWT against the JWKS and never sees a Gatehouse secret.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { launchApp } from './helpers/app-launch.js';
import { appRequest, setCookies, startTestApp, type TestApp } from './helpers/app-upstream.js';
import { api, requestsTo, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';

let gh: TestServer;
let app: TestApp;
let host: string;
let publicUrl: string;
const { admin, as } = requestsTo(() => gh);
let alice: Awaited<ReturnType<typeof userWithRoles>>;
let bob: Awaited<ReturnType<typeof userWithRoles>>;

before(async () => {
  app = await startTestApp();
  gh = await startTestServer();
  const port = new URL(gh.webUrl).port;
  host = `grafana.localhost:${port}`;
  const created = await admin('POST', '/v1/resources', {
    kind: 'app',
    name: 'grafana',
    uri: app.url,
    labels: { team: 'obs' },
  });
  assert.equal(created.status, 201, created.text);
  publicUrl = created.json.public_url;
  app.verifyWith(`${gh.webUrl}/.well-known/jwks.json`, publicUrl, `http://localhost:${port}`);
  for (const [name, labels] of [
    ['obs-apps', { team: 'obs' }],
    ['other-apps', { team: 'other' }],
  ] as const) {
    const role = { name, allow: { resources: [{ kinds: ['app'], labels }] } };
    assert.equal((await admin('POST', '/v1/roles', role)).status, 201);
  }
  alice = await userWithRoles(gh, 'alice', ['obs-apps'], { team: ['obs'] });
  bob = await userWithRoles(gh, 'bob', ['other-apps']);
});

after(async () => {
  await gh?.stop();
  await app?.close();
});

/** The browser's way in: app host → console launch (state) → callback → the app-session cookie. */
const launchAs = (token: string, path = '/') => launchApp(gh, token, host, 'grafana', path);

describe('addressing', () => {
  test('an app answers its public_url at <name>.<apps domain> of the web listener', async () => {
    assert.equal(publicUrl, `http://grafana.localhost:${new URL(gh.webUrl).port}/`);
    const listed = await admin('GET', '/v1/apps');
    assert.equal(listed.json.apps[0].public_url, publicUrl);
  });

  test('an unknown app host answers 404, never the console; the console host is unchanged', async () => {
    const port = new URL(gh.webUrl).port;
    const unknown = await appRequest(gh.webUrl, `nosuch.localhost:${port}`, '/', { headers: { accept: 'text/html' } });
    assert.equal(unknown.status, 404);
    assert.match(unknown.text, /No app is served at nosuch\.localhost/);
    const apiOnAppHost = await appRequest(gh.webUrl, `nosuch.localhost:${port}`, '/v1/users');
    assert.equal(apiOnAppHost.status, 404);
    const consoleHost = await appRequest(gh.webUrl, `localhost:${port}`, '/webapi/ping');
    assert.equal(consoleHost.status, 200);
  });
});

describe('browsers', () => {
  test('a person is sent to the console, comes back with a one-time code and lands on the app with a cookie', async () => {
    const { cookie, landing } = await launchAs(alice.token, '/dashboards?orgId=1');
    assert.equal(landing, '/dashboards?orgId=1');
    const page = await appRequest(gh.webUrl, host, landing, { headers: { cookie } });
    assert.equal(page.status, 200);
    assert.match(page.text, /Hello alice from the test app/);
    const last = app.seen.at(-1);
    assert.equal(last?.url, '/dashboards?orgId=1');
    assert.equal(last?.jwtError, undefined);
    assert.equal(last?.claims?.sub, alice.id);
    assert.equal(last?.claims?.name, 'alice');
    assert.equal(last?.claims?.username, 'alice', 'the same name, for apps configured with username_claim');
    assert.deepEqual(last?.claims?.roles, ['obs-apps']);
    assert.deepEqual(last?.claims?.traits, { team: ['obs'] });
    assert.equal(last?.claims?.aud, publicUrl);
    assert.equal(last?.jwtTyp, 'gatehouse-app+jwt');
    assert.ok((last?.claims?.exp as number) - (last?.claims?.iat as number) <= 600);
  });

  test('the cookie is host-only, HttpOnly and SameSite=Lax', async () => {
    const first = await appRequest(gh.webUrl, host, '/', { headers: { accept: 'text/html' } });
    const state = setCookies(first.headers).get('gatehouse_app_state') as string;
    const launched = await as(alice.token, 'POST', '/v1/apps/launch', { app: 'grafana', state });
    const callback = new URL(launched.json.url);
    const back = await appRequest(gh.webUrl, host, callback.pathname + callback.search, {
      headers: { cookie: `gatehouse_app_state=${state}` },
    });
    const raw = ([] as string[])
      .concat(back.headers['set-cookie'] as string[])
      .find((c) => c.startsWith('gatehouse_app='));
    assert.match(raw as string, /; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Lax$/);
    assert.doesNotMatch(raw as string, /Domain=/i);
  });

  test('a launch code works once, only in the browser that started the launch', async () => {
    const first = await appRequest(gh.webUrl, host, '/', { headers: { accept: 'text/html' } });
    const state = setCookies(first.headers).get('gatehouse_app_state') as string;
    const launched = await as(alice.token, 'POST', '/v1/apps/launch', { app: 'grafana', state });
    const callback = new URL(launched.json.url);
    const path = callback.pathname + callback.search;
    const otherBrowser = await appRequest(gh.webUrl, host, path, {
      headers: { cookie: 'gatehouse_app_state=AAAAAAAAAAAAAAAAAAAAAAAA' },
    });
    assert.equal(otherBrowser.status, 400);
    const once = await appRequest(gh.webUrl, host, path, { headers: { cookie: `gatehouse_app_state=${state}` } });
    assert.equal(once.status, 302);
    const twice = await appRequest(gh.webUrl, host, path, { headers: { cookie: `gatehouse_app_state=${state}` } });
    assert.equal(twice.status, 400);
  });

  test('the landing path can only be a path on the app host (no open redirect)', async () => {
    const state = 'A'.repeat(32);
    for (const path of ['//evil.example/', '/\\evil.example', 'https://evil.example/']) {
      const r = await as(alice.token, 'POST', '/v1/apps/launch', { app: 'grafana', path, state });
      assert.equal(r.status, 400, `${path}: ${r.text}`);
    }
    const ok = await as(alice.token, 'POST', '/v1/apps/launch', { app: 'grafana', path: '/ok?x=1', state });
    assert.equal(ok.status, 200);
  });

  test('revoking the login ends the app session: the cookie stops working', async () => {
    const login = await api(gh.url, 'POST', '/v1/auth/token', { body: { api_key: alice.apiKey } });
    const token = login.json.access_token as string;
    const { cookie } = await launchAs(token);
    assert.equal((await appRequest(gh.webUrl, host, '/', { headers: { cookie } })).status, 200);
    assert.equal((await api(gh.url, 'DELETE', '/v1/auth/revoke', { token })).status, 200);
    const after = await appRequest(gh.webUrl, host, '/', { headers: { cookie, accept: 'text/html' } });
    assert.equal(after.status, 302, 'back to the console to sign in again');
    const program = await appRequest(gh.webUrl, host, '/', { headers: { cookie } });
    assert.equal(program.status, 401);
  });
});

describe('programs and agents', () => {
  test('a bearer token reaches the app, and the app never sees it', async () => {
    const r = await appRequest(gh.webUrl, host, '/api/health', { headers: { authorization: `Bearer ${alice.token}` } });
    assert.equal(r.status, 200);
    const last = app.seen.at(-1);
    assert.equal(last?.url, '/api/health');
    assert.equal(last?.headers.authorization, undefined);
    assert.equal(last?.claims?.username, 'alice');
  });

  test('without a credential a program gets 401 with WWW-Authenticate; a bad token 401 too', async () => {
    const none = await appRequest(gh.webUrl, host, '/api/health');
    assert.equal(none.status, 401);
    assert.match(String(none.headers['www-authenticate']), /^Bearer/);
    const bad = await appRequest(gh.webUrl, host, '/api/health', {
      headers: { authorization: `Bearer gha_${'x'.repeat(43)}` },
    });
    assert.equal(bad.status, 401);
  });
});

describe('revoked parents', () => {
  test("an agent's token reaches the app until the agent is suspended; its app session ends", async () => {
    const agent = (await admin('POST', '/v1/agents', { name: 'obs-bot', roles: ['obs-apps'] })).json;
    const credential = await admin('POST', `/v1/agents/${agent.id}/credentials`, {});
    assert.equal(credential.status, 201, credential.text);
    const token = credential.json.access_token as string;
    const ok = await appRequest(gh.webUrl, host, '/bot', { headers: { authorization: `Bearer ${token}` } });
    assert.equal(ok.status, 200);
    assert.equal(app.seen.at(-1)?.claims?.username, 'obs-bot');
    assert.equal(app.seen.at(-1)?.claims?.kind, 'agent');
    assert.equal((await admin('PATCH', `/v1/agents/${agent.id}`, { status: 'suspended' })).status, 200);
    const before = app.seen.length;
    const refused = await appRequest(gh.webUrl, host, '/bot', { headers: { authorization: `Bearer ${token}` } });
    assert.equal(refused.status, 401);
    assert.equal(app.seen.length, before);
    const sessions = await admin('GET', '/v1/sessions?type=app&status=terminated');
    assert.ok(
      sessions.json.sessions.some((s: { principal: { id: string } }) => s.principal.id === agent.id),
      "the agent's app session was ended",
    );
  });

  test('a person who loses access loses the app: the cookie is refused (404) once the role is gone', async () => {
    const dave = await userWithRoles(gh, 'dave', ['obs-apps']);
    const { cookie } = await launchAs(dave.token);
    assert.equal((await appRequest(gh.webUrl, host, '/', { headers: { cookie } })).status, 200);
    assert.equal((await admin('PATCH', `/v1/users/${dave.id}`, { roles: ['other-apps'] })).status, 200);
    const after = await appRequest(gh.webUrl, host, '/', { headers: { cookie } });
    assert.ok([401, 404].includes(after.status), `refused, got ${after.status}`);
  });
});

describe('who may use it', () => {
  test('a person whose roles do not select the app gets 404 and the app sees nothing; one whose roles do gets 200', async () => {
    const before = app.seen.length;
    const denied = await appRequest(gh.webUrl, host, '/secret', { headers: { authorization: `Bearer ${bob.token}` } });
    assert.equal(denied.status, 404);
    assert.deepEqual(
      JSON.parse(denied.text),
      {
        type: 'urn:gatehouse:error:not_found',
        title: 'Not found',
        status: 404,
        detail: `No app is served at ${host}.`,
        code: 'not_found',
      },
      'the answer for a host with no app: nothing to tell',
    );
    assert.equal(app.seen.length, before, 'the app saw nothing of the refused request');
    const launch = await as(bob.token, 'POST', '/v1/apps/launch', { app: 'grafana', state: 'B'.repeat(32) });
    assert.equal(launch.status, 404, 'an app bob may not reach does not exist for him');
    const allowed = await appRequest(gh.webUrl, host, '/secret', {
      headers: { authorization: `Bearer ${alice.token}` },
    });
    assert.equal(allowed.status, 200);
    assert.equal(app.seen.length, before + 1);
  });
});

describe('what reaches the app', () => {
  test('forged X-Forwarded-* and Gatehouse-Jwt-Assertion from the client are not passed through', async () => {
    const r = await appRequest(gh.webUrl, host, '/forged', {
      headers: {
        authorization: `Bearer ${alice.token}`,
        'x-forwarded-for': '6.6.6.6',
        'x-forwarded-host': 'evil.example',
        forwarded: 'for=6.6.6.6',
        'gatehouse-jwt-assertion': 'forged.jwt.value',
      },
    });
    assert.equal(r.status, 200);
    const last = app.seen.at(-1);
    assert.equal(last?.headers['x-forwarded-for'], '127.0.0.1');
    assert.equal(last?.headers['x-forwarded-host'], host);
    assert.equal(last?.headers.forwarded, undefined);
    assert.notEqual(last?.headers['gatehouse-jwt-assertion'], 'forged.jwt.value');
    assert.equal(last?.claims?.username, 'alice');
  });

  test("Gatehouse's cookies never reach the app, the app's own do; the app cannot set Gatehouse's", async () => {
    const { cookie } = await launchAs(alice.token);
    const r = await appRequest(gh.webUrl, host, '/set-cookies', {
      headers: {
        cookie: `${cookie}; app_pref=light; __Host-gatehouse_session=gha_x; gatehouse_app_state=abc`,
      },
    });
    assert.equal(r.status, 200);
    const last = app.seen.at(-1);
    assert.equal(last?.headers.cookie, 'app_pref=light');
    assert.deepEqual([...setCookies(r.headers).keys()], ['app_pref']);
  });

  test('a large upload streams through and an SSE answer arrives event by event', async () => {
    const body = Buffer.alloc(8 * 1024 * 1024, 7);
    const up = await appRequest(gh.webUrl, host, '/upload', {
      method: 'POST',
      headers: { authorization: `Bearer ${alice.token}`, 'content-type': 'application/octet-stream' },
      body,
    });
    assert.equal(up.status, 200, up.text);
    assert.deepEqual(JSON.parse(up.text), { bytes: body.length });

    const { request } = await import('undici');
    const res = await request(`${gh.webUrl}/events`, {
      headers: { host, authorization: `Bearer ${alice.token}` },
    });
    assert.equal(res.statusCode, 200);
    const chunks: string[] = [];
    for await (const chunk of res.body) {
      chunks.push(chunk.toString());
      if (chunks.length === 1)
        assert.match(chunks[0] as string, /data: first/, 'the first event before the stream ended');
    }
    assert.match(chunks.join(''), /data: second/);
    assert.ok(chunks.length >= 2, 'the events came in separate pieces, not buffered to the end');
  });

  test('a WebSocket goes through to the app and echoes', async () => {
    const { WebSocket } = await import('ws');
    const ws = new WebSocket(`${gh.webUrl.replace('http', 'ws')}/ws`, {
      headers: { host, authorization: `Bearer ${alice.token}` },
    });
    const echoed = await new Promise<string>((resolve, reject) => {
      ws.on('open', () => ws.send('hello'));
      ws.on('message', (m) => resolve(m.toString()));
      ws.on('error', reject);
    });
    ws.close();
    assert.equal(echoed, 'echo: hello');
    const upgrade = app.seen.filter((s) => s.method === 'WEBSOCKET').at(-1);
    assert.equal(upgrade?.headers.authorization, undefined);
    assert.equal(upgrade?.claims?.username, 'alice');
  });
});

describe('audit', () => {
  test('app sessions start and requests are recorded without query values or credentials', async () => {
    await appRequest(gh.webUrl, host, '/audited?token=supersecret&x=1', {
      headers: { authorization: `Bearer ${alice.token}` },
    });
    await new Promise((r) => setTimeout(r, 200)); // answered requests' events go in batches
    const events = await admin('GET', '/v1/events?type=app.request&per_page=100');
    assert.equal(events.status, 200, events.text);
    const found = events.json.events.find((e: { data: { path: string } }) => e.data.path.startsWith('/audited'));
    assert.ok(found, 'an app.request event');
    assert.equal(found.data.path, '/audited?token&x');
    assert.equal(found.data.status, 200);
    assert.equal(found.actor.name, 'alice');
    assert.doesNotMatch(JSON.stringify(events.json), /supersecret|gha_/);
    const starts = await admin('GET', '/v1/events?type=app.session.start');
    assert.ok(starts.json.events.some((e: { data: { how: string } }) => e.data.how === 'bearer'));
    assert.ok(starts.json.events.some((e: { data: { how: string } }) => e.data.how === 'cookie'));
    const sessions = await admin('GET', '/v1/sessions?type=app');
    assert.equal(sessions.status, 200, sessions.text);
    assert.ok(sessions.json.sessions.some((s: { kind: string }) => s.kind === 'app'));
  });
});
