// Apps behind the proxy tier: an auth instance on etcd, two proxy-only instances (joined, no store
// credentials) and haproxy in front. A person launches an app through one proxy — whose callback asks
// the auth tier to spend the code and store the cookie session (a proxy may not write either
// itself) — and uses the app through the other proxy and through haproxy; signing out ends it
// everywhere. The auth tier redeems only a launch it can check end to end.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Gatehouse } from '../src/server.js';
import { launchApp } from './helpers/app-launch.js';
import { appRequest, startTestApp, type TestApp } from './helpers/app-upstream.js';
import { joinIdentity, joinToken } from './helpers/cluster-join.js';
import { clusterScene, TEST_REDIS_URL } from './helpers/cluster-scene.js';
import { type EtcdCluster, startEtcd } from './helpers/etcd.js';
import { api, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';
import { type Haproxy, startHaproxy } from './helpers/haproxy.js';

const scene = clusterScene('gatehouse-apps-cluster-');
// Where people reach the web tier (haproxy's address in production); every instance names the same.
const WEB_PUBLIC_URL = 'http://localhost:18099';
const HOST = 'grafana.localhost:18099';

let etcd: EtcdCluster;
let auth: TestServer;
let proxies: Gatehouse[] = [];
let haproxy: Haproxy;
let app: TestApp;
let person: Awaited<ReturnType<typeof userWithRoles>>;

const shared = () => ({
  seal_key_file: scene.sealKey,
  redis_url: TEST_REDIS_URL,
  web_public_url: WEB_PUBLIC_URL,
});

async function startProxy(joinWith: string): Promise<Gatehouse> {
  const config = { trusted_proxies: ['127.0.0.0/8'], 'cluster.join_token': joinWith, ...shared() };
  return (await scene.startProxy(auth.url, config, { logLevel: process.env.APPS_CLUSTER_LOG ?? 'silent' })).gatehouse;
}

before(async () => {
  app = await startTestApp();
  etcd = await startEtcd(1);
  auth = await startTestServer({ ...shared(), backend_url: etcd.url('/apps-cluster/'), roles: ['auth'] });
  const token = await joinToken(auth, { uses: 2 });
  proxies = await Promise.all([startProxy(token), startProxy(token)]);
  haproxy = await startHaproxy(
    proxies.map((p, i) => ({ name: `proxy${i}`, port: Number(new URL(p.webUrl as string).port) })),
  );
  const admin = (method: string, path: string, body?: unknown) =>
    api(auth.url, method, path, { token: auth.adminToken, ...(body ? { body } : {}) });
  const created = await admin('POST', '/v1/resources', { kind: 'app', name: 'grafana', uri: app.url });
  assert.equal(created.status, 201, created.text);
  assert.equal(created.json.public_url, `http://${HOST}/`);
  const role = await admin('POST', '/v1/roles', { name: 'apps', allow: { resources: [{ kinds: ['app'] }] } });
  assert.equal(role.status, 201, role.text);
  person = await userWithRoles(auth, 'paula', ['apps']);
});

after(async () => {
  await haproxy?.close();
  await Promise.allSettled([...proxies.map((p) => p.close()), auth?.stop()]);
  await etcd?.close();
  await app?.close();
  scene.remove();
});

/** A request through one proxy until it answers `status` (its cache follows auth's watch), within 2 s. */
async function until(webUrl: string, headers: Record<string, string>, status: number) {
  const t0 = Date.now();
  for (;;) {
    const r = await appRequest(webUrl, HOST, '/dashboards', { headers });
    if (r.status === status || Date.now() - t0 > 2000) return r;
    await new Promise((done) => setTimeout(done, 20));
  }
}

describe('apps through the proxy tier', () => {
  test('launched through one proxy, the app session works through the other and through haproxy', async () => {
    const [a, b] = proxies.map((p) => ({ url: haproxy.url, webUrl: p.webUrl as string })) as [
      { url: string; webUrl: string },
      { url: string; webUrl: string },
    ];
    const { cookie, landing } = await launchApp(a, person.token, HOST, 'grafana', '/dashboards');
    assert.equal(landing, '/dashboards');
    const onA = await appRequest(a.webUrl, HOST, landing, { headers: { cookie } });
    assert.equal(onA.status, 200, 'the proxy that redeemed has the cookie session at once');
    assert.equal(app.seen.at(-1)?.headers['x-forwarded-host'], HOST);
    const onB = await until(b.webUrl, { cookie }, 200);
    assert.equal(onB.status, 200, onB.text);
    assert.match(onB.text, /from the test app/);
    for (let i = 0; i < 2; i++) {
      const viaLb = await appRequest(haproxy.url, HOST, '/dashboards', { headers: { cookie } });
      assert.equal(viaLb.status, 200, viaLb.text);
    }
    const sessions = await api(auth.url, 'GET', '/v1/sessions?type=app', { token: auth.adminToken });
    assert.ok(
      sessions.json.sessions.some((s: { principal: { name: string } }) => s.principal.name === 'paula'),
      sessions.text,
    );
  });

  test('a launch code spent through one proxy is refused on the other (one use, cluster-wide)', async () => {
    const [a, b] = proxies.map((p) => p.webUrl as string) as [string, string];
    const first = await appRequest(a, HOST, '/', { headers: { accept: 'text/html' } });
    const state = new URL(String(first.headers.location)).searchParams.get('state') as string;
    const launched = await api(haproxy.url, 'POST', '/v1/apps/launch', {
      token: person.token,
      body: { app: 'grafana', state },
    });
    assert.equal(launched.status, 200, launched.text);
    const callback = new URL(launched.json.url);
    const headers = { cookie: `gatehouse_app_state=${state}`, accept: 'text/html' };
    const spent = await appRequest(a, HOST, callback.pathname + callback.search, { headers });
    assert.equal(spent.status, 302, spent.text);
    const again = await until(b, {}, 0).then(() =>
      appRequest(b, HOST, callback.pathname + callback.search, { headers }),
    );
    assert.equal(again.status, 400, again.text);
  });

  test('the auth tier redeems and signs only what it can check (a compromised proxy; control: a stranger is 401)', async () => {
    const call = (path: string, body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${auth.url}/internal/v1/apps/${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
    assert.equal((await call('redeem', {})).status, 401, 'no credential');
    const rogue = await joinIdentity(auth);
    const state = 'S'.repeat(32);
    const launched = await api(haproxy.url, 'POST', '/v1/apps/launch', {
      token: person.token,
      body: { app: 'grafana', state },
    });
    const code = new URL(launched.json.url).searchParams.get('code') as string;
    const apps = await api(auth.url, 'GET', '/v1/apps', { token: auth.adminToken });
    const appId = apps.json.apps[0].id as string;
    const forged = await call(
      'redeem',
      {
        code,
        state,
        app_id: appId,
        session_id: `sess_${'0'.repeat(26)}`,
        secret_hash: 'a'.repeat(64),
        expires_at: Date.now() + 60_000,
      },
      rogue.headers(),
    );
    assert.equal(forged.status, 403, await forged.text());
    const unsigned = await call('assertion', { app_id: appId, token_id: 'tok_nosuch' }, rogue.headers());
    assert.equal(unsigned.status, 403, await unsigned.text());
  });

  test('signing out ends the app session through every proxy', async () => {
    const login = await api(haproxy.url, 'POST', '/v1/auth/token', { body: { api_key: person.apiKey } });
    const token = login.json.access_token as string;
    const [a, b] = proxies.map((p) => ({ url: haproxy.url, webUrl: p.webUrl as string })) as [
      { url: string; webUrl: string },
      { url: string; webUrl: string },
    ];
    const { cookie } = await launchApp(a, token, HOST, 'grafana');
    assert.equal((await until(b.webUrl, { cookie }, 200)).status, 200);
    assert.equal((await api(haproxy.url, 'DELETE', '/v1/auth/revoke', { token })).status, 200);
    for (const p of [a, b]) assert.equal((await until(p.webUrl, { cookie }, 401)).status, 401, p.webUrl);
  });
});
