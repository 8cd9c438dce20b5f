// Inside an app: roles' app_rules (methods and paths, deny wins, one canonical reading of a path) and
// the app's header rewrite templates, as a program and the app (a real HTTP server of the test) see
// them. Every refusal has its positive control: the same request by someone the rules allow.
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { keys } from '../src/auth/records.js';
import { launchApp } from './helpers/app-launch.js';
import { appRequest, startTestApp, type TestApp } from './helpers/app-upstream.js';
import { requestsTo, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';

let gh: TestServer;
let app: TestApp;
let host: string;
const { admin, as } = requestsTo(() => gh);
type Person = Awaited<ReturnType<typeof userWithRoles>>;
let reader: Person; // GET and HEAD anywhere, never /admin*
let writer: Person; // everything (no app_rules): the positive control
let guarded: Person; // everything, but a second role denies /admin*
let dash: Person; // GET /d/* only

const REWRITE = [
  { name: 'X-Webauth-User', value: '{{internal.name}}' },
  { name: 'X-Team', value: 'team={{traits.team}}' },
  { name: 'X-Static', value: 'v1' },
  { name: 'X-Evil', value: '{{external.evil}}' },
];

before(async () => {
  app = await startTestApp();
  gh = await startTestServer();
  host = `panel.localhost:${new URL(gh.webUrl).port}`;
  const created = await admin('POST', '/v1/resources', {
    kind: 'app',
    name: 'panel',
    uri: app.url,
    labels: { team: 'ops' },
    app: { rewrite: { headers: REWRITE } },
  });
  assert.equal(created.status, 201, created.text);
  const see = { resources: [{ kinds: ['app'], labels: { team: 'ops' } }] };
  const roles = [
    {
      name: 'panel-read',
      allow: { ...see, app_rules: [{ methods: ['GET', 'HEAD'], paths: ['*'] }] },
      deny: { app_rules: [{ methods: ['*'], paths: ['/admin*'] }] },
    },
    { name: 'panel-all', allow: see },
    { name: 'no-admin', allow: {}, deny: { app_rules: [{ methods: ['*'], paths: ['/admin*'] }] } },
    { name: 'panel-dash', allow: { ...see, app_rules: [{ methods: ['GET'], paths: ['/d/*'] }] } },
  ];
  for (const role of roles) assert.equal((await admin('POST', '/v1/roles', role)).status, 201);
  reader = await userWithRoles(gh, 'rhea', ['panel-read'], { team: ['ops', 'obs'] });
  writer = await userWithRoles(gh, 'walt', ['panel-all']);
  guarded = await userWithRoles(gh, 'gus', ['panel-all', 'no-admin']);
  dash = await userWithRoles(gh, 'dana', ['panel-dash'], { evil: ['plain'] });
  // The API refuses such a trait; a single sign-on provider's claim (traits_from_claims) is not checked
  // so: the user's record is given one as a provider would.
  const { state } = gh.gatehouse.services;
  const item = state.get<{ traits: Record<string, string[]> }>(keys.user(dash.id));
  assert.ok(item);
  await state.replace(keys.user(dash.id), item.revision, {
    ...item.value,
    traits: { evil: ['x\r\nX-Injected: 1'] },
  });
});

after(async () => {
  await gh?.stop();
  await app?.close();
});

/** A request with the path exactly as written (no URL parser normalizing it on the way). */
function raw(path: string, token: string, method = 'GET'): Promise<number> {
  const url = new URL(gh.webUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: url.hostname, port: url.port, method, path, headers: { host, authorization: `Bearer ${token}` } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** Opens a WebSocket to the app host and sends `hi`: the echo, or how it was refused. */
async function webSocket(path: string, headers: Record<string, string>): Promise<string> {
  const { WebSocket } = await import('ws');
  return new Promise<string>((resolve) => {
    const ws = new WebSocket(`${gh.webUrl.replace('http', 'ws')}${path}`, { headers: { host, ...headers } });
    ws.on('open', () => ws.send('hi'));
    ws.on('message', (m) => {
      ws.close();
      resolve(m.toString());
    });
    ws.on('unexpected-response', (_req, res) => resolve(`refused ${res.statusCode}`));
    ws.on('error', (e) => resolve(`error ${e.message}`));
  });
}

const bearer = (p: Person) => ({ authorization: `Bearer ${p.token}` });

describe('app_rules', () => {
  test('a read-only role may GET but not POST; the app sees nothing of the refused POST (control: no app_rules posts)', async () => {
    const get = await appRequest(gh.webUrl, host, '/dashboards', { headers: bearer(reader) });
    assert.equal(get.status, 200);
    const before = app.seen.length;
    const post = await appRequest(gh.webUrl, host, '/dashboards', {
      method: 'POST',
      headers: bearer(reader),
      body: 'x',
    });
    assert.equal(post.status, 403);
    assert.match(post.text, /rhea may not do this in panel: POST \/dashboards is not allowed \(app_rules\)/);
    assert.equal(app.seen.length, before, 'the app saw nothing');
    const control = await appRequest(gh.webUrl, host, '/dashboards', {
      method: 'POST',
      headers: bearer(writer),
      body: 'x',
    });
    assert.equal(control.status, 200);
    assert.equal(app.seen.at(-1)?.method, 'POST');
  });

  test('a deny in one role wins over another role that allows everything (control: that role alone)', async () => {
    assert.equal((await appRequest(gh.webUrl, host, '/admin/users', { headers: bearer(writer) })).status, 200);
    assert.equal((await appRequest(gh.webUrl, host, '/admin/users', { headers: bearer(guarded) })).status, 403);
    assert.equal((await appRequest(gh.webUrl, host, '/reports', { headers: bearer(guarded) })).status, 200);
  });

  test('a denied path cannot be reached by another spelling of it', async () => {
    const spellings = [
      '/admin',
      '/ADMIN/users',
      '/Admin/',
      '/%61dmin/users',
      '/public/../admin',
      '/public/%2e%2e/admin',
      '//admin',
      '/./admin',
      '/admin%2fusers',
      '/admin%252fusers',
    ];
    for (const path of spellings) {
      assert.equal(await raw(path, guarded.token), 403, `${path} by gus`);
      assert.equal(await raw(path, writer.token), 200, `${path} by walt (control)`);
    }
    assert.equal(await raw('/public/admin', guarded.token), 200, 'admin further down is another path');
  });

  test('a path outside the allowed globs is refused, WebSockets too (control: inside them)', async () => {
    assert.equal((await appRequest(gh.webUrl, host, '/d/home', { headers: bearer(dash) })).status, 200);
    assert.equal((await appRequest(gh.webUrl, host, '/settings', { headers: bearer(dash) })).status, 403);
    const open = (path: string) => webSocket(path, bearer(dash));
    assert.equal(await open('/ws'), 'refused 403');
    assert.equal(await open('/d/ws'), 'echo: hi');
  });

  test('a refusal by app_rules is audited with what refused it', async () => {
    await appRequest(gh.webUrl, host, '/audit-me', { method: 'DELETE', headers: bearer(reader) });
    const events = await admin('GET', '/v1/events?type=app.request&per_page=100');
    const found = events.json.events.find((e: { data: { path: string } }) => e.data.path === '/audit-me');
    assert.ok(found, events.text);
    assert.equal(found.success, false);
    assert.equal(found.data.status, 403);
    assert.equal(found.data.denied_by, 'app_rules');
    assert.equal(found.actor.name, 'rhea');
  });

  test('nobody grants app_rules wider than their own (control: narrower ones, their deny kept)', async () => {
    const mgr = { name: 'panel-mgr', allow: { rules: [{ resources: ['roles'], verbs: ['create', 'read'] }] } };
    assert.equal((await admin('POST', '/v1/roles', mgr)).status, 201);
    const me = await userWithRoles(gh, 'mona', ['panel-read', 'panel-mgr']);
    const see = { resources: [{ kinds: ['app'], labels: { team: 'ops' } }] };
    const role = (name: string, allow: Record<string, unknown>, deny?: Record<string, unknown>) =>
      as(me.token, 'POST', '/v1/roles', { name, allow: { ...see, ...allow }, ...(deny ? { deny } : {}) });
    const everything = await role('x-all', {});
    assert.equal(everything.status, 403, everything.text);
    assert.match(everything.text, /app_rule \* \*/);
    const post = await role('x-post', { app_rules: [{ methods: ['POST'], paths: ['/d/*'] }] });
    assert.equal(post.status, 403, post.text);
    assert.match(post.text, /app_rule POST \/d\/\*/);
    const admin_ = await role('x-adm', { app_rules: [{ methods: ['GET'], paths: ['/admin/*'] }] });
    assert.equal(admin_.status, 403, 'the caller is denied /admin*');
    const ok = await role(
      'x-ok',
      { app_rules: [{ methods: ['GET'], paths: ['/d/*'] }] },
      {
        app_rules: [{ methods: ['*'], paths: ['/admin*'] }],
      },
    );
    assert.equal(ok.status, 201, ok.text);
  });
});

describe('header rewrite', () => {
  test('the app receives the rewritten headers, expanded for the person, replacing what the client sent', async () => {
    const r = await appRequest(gh.webUrl, host, '/who', {
      headers: { ...bearer(reader), 'x-webauth-user': 'admin', 'x-static': 'forged', 'x-evil': 'client' },
    });
    assert.equal(r.status, 200);
    const seen = app.seen.at(-1)?.headers ?? {};
    assert.equal(seen['x-webauth-user'], 'rhea');
    assert.equal(seen['x-team'], 'team=ops, obs');
    assert.equal(seen['x-static'], 'v1');
    assert.equal(seen['x-evil'], undefined, 'no trait: removed, never the client’s');
  });

  test('a trait carrying CR/LF is never sent: no injected header (control: its other headers arrive)', async () => {
    const r = await appRequest(gh.webUrl, host, '/d/who', { headers: bearer(dash) });
    assert.equal(r.status, 200);
    const seen = app.seen.at(-1)?.headers ?? {};
    assert.equal(seen['x-evil'], undefined);
    assert.equal(seen['x-injected'], undefined);
    assert.equal(seen['x-webauth-user'], 'dana');
    assert.equal(seen['x-team'], undefined, 'dana has no team trait');
  });

  test('rewrites of framing, routing or Gatehouse headers, bad names and values are refused with the field', async () => {
    const cases: Array<[{ name: string; value: string }, RegExp]> = [
      [{ name: 'Host', value: 'evil.example' }, /Host is set by Gatehouse/],
      [{ name: 'Content-Length', value: '0' }, /cannot be rewritten/],
      [{ name: 'Transfer-Encoding', value: 'chunked' }, /cannot be rewritten/],
      [{ name: 'X-Forwarded-For', value: '1.2.3.4' }, /cannot be rewritten/],
      [{ name: 'Gatehouse-Jwt-Assertion', value: 'x' }, /cannot be rewritten/],
      [{ name: 'Cookie', value: 'a=b' }, /cannot be rewritten/],
      [{ name: 'X Bad', value: 'x' }, /header name/],
      [{ name: 'X-Ok', value: 'a\r\nX-Injected: 1' }, /control characters/],
      [{ name: 'X-Ok', value: '{{secrets.key}}' }, /templates are/],
    ];
    for (const [header, message] of cases) {
      const r = await admin('POST', '/v1/resources', {
        kind: 'app',
        name: 'rw-bad',
        uri: app.url,
        app: { rewrite: { headers: [header] } },
      });
      assert.equal(r.status, 400, `${header.name}: ${r.text}`);
      assert.match(r.text, message);
      assert.match(r.text, /app\/rewrite\/headers\/0/);
    }
    const ok = await admin('POST', '/v1/resources', {
      kind: 'app',
      name: 'rw-ok',
      uri: app.url,
      app: { rewrite: { headers: [{ name: 'Authorization', value: 'Basic {{traits.basic}}' }] } },
    });
    assert.equal(ok.status, 201, ok.text);
    assert.equal((await admin('DELETE', `/v1/resources/${ok.json.id}`)).status, 204);
  });
});

describe('threats at the door', () => {
  test('a forged X-Forwarded-Host does not route to an app: the Host alone does, and grants nothing', async () => {
    const port = new URL(gh.webUrl).port;
    const before = app.seen.length;
    const viaForwarded = await appRequest(gh.webUrl, `localhost:${port}`, '/webapi/ping', {
      headers: { 'x-forwarded-host': host, ...bearer(writer) },
    });
    assert.equal(viaForwarded.status, 200, 'the console answered');
    assert.equal(app.seen.length, before, 'the app saw nothing');
    const hostOnly = await appRequest(gh.webUrl, host, '/webapi/ping');
    assert.equal(hostOnly.status, 401, 'the app host, without a credential');
    assert.equal(app.seen.length, before);
    const control = await appRequest(gh.webUrl, host, '/webapi/ping', { headers: bearer(writer) });
    assert.equal(control.status, 200);
    assert.equal(app.seen.at(-1)?.url, '/webapi/ping', 'with a credential the app gets it, not the console');
  });

  test("an app's cookie is worth nothing on another app's host (control: on its own host)", async () => {
    const other = await admin('POST', '/v1/resources', {
      kind: 'app',
      name: 'other',
      uri: app.url,
      labels: { team: 'ops' },
    });
    assert.equal(other.status, 201, other.text);
    try {
      const otherHost = `other.localhost:${new URL(gh.webUrl).port}`;
      const { cookie } = await launchApp(gh, writer.token, host, 'panel');
      assert.equal((await appRequest(gh.webUrl, host, '/', { headers: { cookie } })).status, 200);
      const before = app.seen.length;
      const elsewhere = await appRequest(gh.webUrl, otherHost, '/', { headers: { cookie } });
      assert.equal(elsewhere.status, 401, 'no session there');
      const page = await appRequest(gh.webUrl, otherHost, '/', { headers: { cookie, accept: 'text/html' } });
      assert.equal(page.status, 302, 'a browser is sent to launch that app');
      assert.equal(app.seen.length, before, 'the other app saw nothing');
    } finally {
      await admin('DELETE', `/v1/resources/${other.json.id}`);
    }
  });

  test('a WebSocket upgrade without a credential, or by someone the app is not for, never reaches the app', async () => {
    const outsider = await userWithRoles(gh, 'otto', []);
    const open = (headers: Record<string, string>) => webSocket('/ws', headers);
    const before = app.seen.length;
    assert.equal(await open({}), 'refused 401');
    assert.equal(await open(bearer(outsider)), 'refused 404');
    assert.equal(app.seen.length, before);
    assert.equal(await open(bearer(writer)), 'echo: hi', 'the control');
  });
});
