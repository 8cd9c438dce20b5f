// The proxy tier: two proxy-only instances (web + SSH, GATEHOUSE_ROLES=proxy) that hold no store
// credentials — they forward /v1 to the auth instance (auth_servers, each joined with a join token) and follow state
// through its watch stream — in front of an auth instance on etcd and a PostgreSQL audit store, behind
// a real haproxy that health-checks /webapi/ping. A token revoked through one proxy is refused through
// the other (p50/p99 printed); haproxy takes a proxy out within 2 s of it going away; the caller's
// address reaches the audit trail; the internal API refuses strangers and bounds what proxies write.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { connect as tlsConnect } from 'node:tls';
import pg from 'pg';
import { ConfigError } from '../src/config/load.js';
import { createKubeCa } from '../src/kube/kube-ca.js';
import type { Gatehouse } from '../src/server.js';
import { type JoinedIdentity, joinIdentity, joinToken } from './helpers/cluster-join.js';
import { clusterScene, TEST_REDIS_URL } from './helpers/cluster-scene.js';
import { createDbRole, registerPostgres } from './helpers/db-resource.js';
import { type EtcdCluster, startEtcd } from './helpers/etcd.js';
import { ADMIN_KEY, api, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';
import { type Haproxy, startHaproxy } from './helpers/haproxy.js';
import { sendCancelRequest } from './helpers/psql.js';

const PG = process.env.GATEHOUSE_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `gh_proxies_${randomBytes(5).toString('hex')}`;
const scene = clusterScene('gatehouse-proxies-');

let etcd: EtcdCluster;
let auth: TestServer;
let proxies: Gatehouse[] = [];
let haproxy: Haproxy;
const dirs: string[] = [];

/** The join token the proxies of this file join with (uses: several). */
let JOIN_TOKEN: string;
const shared = () => ({
  seal_key_file: scene.sealKey,
  // Two proxies share rate limits, throttles and live sessions through Redis (the machine's).
  redis_url: TEST_REDIS_URL,
});
const stores = () => ({ backend_url: etcd.url('/proxies/'), audit_url: `${PG}?schema=${schema}` });

async function startProxy(overrides: Record<string, unknown> = {}): Promise<Gatehouse> {
  const started = await scene.startProxy(auth.url, {
    'http.shutdown_drain': '3s',
    // haproxy (and this test) on loopback: their X-Forwarded-For is believed.
    trusted_proxies: ['127.0.0.0/8'],
    'cluster.join_token': JOIN_TOKEN,
    ...shared(),
    ...overrides,
  });
  dirs.push(started.dataDir);
  return started.gatehouse;
}

const portOf = (url: string | undefined) => Number(new URL(url as string).port);
const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)] as number;
const p99 = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.ceil(xs.length * 0.99) - 1] as number;

before(async () => {
  etcd = await startEtcd(1);
  auth = await startTestServer({
    ...shared(),
    ...stores(),
    roles: ['auth'],
    kube_public_url: 'https://localhost:3026',
  });
  JOIN_TOKEN = await joinToken(auth, { uses: 10 });
  proxies = await Promise.all([startProxy(), startProxy()]);
  haproxy = await startHaproxy(proxies.map((p, i) => ({ name: `proxy${i}`, port: portOf(p.webUrl) })));
});

after(async () => {
  await haproxy?.close();
  await Promise.allSettled([...proxies.map((p) => p.close()), auth?.stop()]);
  await etcd?.close();
  const client = new pg.Client({ connectionString: PG });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await client.end();
  scene.remove();
});

describe('the proxy tier behind haproxy', () => {
  test('a proxy-only instance has no auth listener, serves /v1 and SSH, and haproxy balances them', async () => {
    for (const p of proxies) {
      assert.equal(p.authUrl, undefined, 'no 3025 on a proxy');
      assert.ok(p.sshAddr, 'the SSH proxy listens');
    }
    assert.equal((await fetch(`${haproxy.url}/webapi/ping`)).status, 200);
    const login = await api(haproxy.url, 'POST', '/v1/auth/token', { body: { api_key: ADMIN_KEY } });
    assert.equal(login.status, 200, login.text);
    for (let i = 0; i < 4; i++) {
      const users = await api(haproxy.url, 'GET', '/v1/users', { token: login.json.access_token });
      assert.equal(users.status, 200, users.text);
    }
    assert.equal((await api(haproxy.url, 'GET', '/v1/users', {})).status, 401, 'negative control: no token');
  });

  test('a token revoked through one proxy is refused through the other (p50/p99 over 200 trials)', async () => {
    const [a, b] = proxies.map((p) => p.webUrl as string) as [string, string];
    const delays: number[] = [];
    for (let i = 0; i < 200; i++) {
      const token = (await api(a, 'POST', '/v1/auth/token', { body: { api_key: ADMIN_KEY } })).json.access_token;
      for (let tries = 0; (await api(b, 'GET', '/v1/roles', { token })).status !== 200; tries++) {
        assert.ok(tries < 400, 'proxy B never accepted the new token');
        await new Promise((r) => setTimeout(r, 5));
      }
      assert.equal((await api(a, 'DELETE', '/v1/auth/revoke', { token })).status, 200);
      const t0 = performance.now();
      while ((await api(b, 'GET', '/v1/roles', { token })).status !== 401) {
        assert.ok(performance.now() - t0 < 5000, 'proxy B still accepts a revoked token after 5 s');
      }
      delays.push(performance.now() - t0);
    }
    console.log(
      `# revocation propagation proxy A→B: p50 ${median(delays).toFixed(1)} ms, p99 ${p99(delays).toFixed(1)} ms`,
    );
    assert.ok(p99(delays) < 1000);
  });

  test('a draining proxy answers 503 on /webapi/ping, haproxy takes it out within 2 s, and no request fails', async () => {
    const gone = proxies[0] as Gatehouse;
    const t0 = performance.now();
    // shutdown_drain is 3 s here: the proxy keeps serving while its health check fails.
    const closing = gone.close();
    const ping = await fetch(`${gone.webUrl}/webapi/ping`);
    assert.equal(ping.status, 503);
    assert.equal(((await ping.json()) as { status: string }).status, 'draining');
    let downAfter = 0;
    let served = 0;
    for (;;) {
      // Requests through haproxy keep succeeding during the drain, whichever proxy takes them.
      const res = await fetch(`${haproxy.url}/v1/roles`, { headers: { authorization: `Bearer ${auth.adminToken}` } });
      assert.equal(res.status, 200, await res.text());
      served += 1;
      const s = await haproxy.status();
      if (s.proxy0?.startsWith('DOWN')) {
        downAfter = performance.now() - t0;
        break;
      }
      assert.ok(performance.now() - t0 < 5000, `haproxy still has proxy0 ${s.proxy0}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    console.log(
      `# haproxy marked the draining proxy DOWN after ${downAfter.toFixed(0)} ms (${served} requests served meanwhile)`,
    );
    assert.ok(downAfter < 2000, `${downAfter} ms`);
    await closing;
    assert.equal((await haproxy.status()).proxy1, 'UP', 'positive control: the other stays in');
    for (let i = 0; i < 4; i++) assert.equal((await fetch(`${haproxy.url}/webapi/ping`)).status, 200);
  });

  test('a proxy-only instance with neither auth_servers nor a store is refused at start, naming the settings', async () => {
    await assert.rejects(
      startProxy({ auth_servers: undefined }),
      (e: unknown) =>
        e instanceof ConfigError && /auth_servers \(GATEHOUSE_AUTH_SERVERS\) and a join token/.test(e.message),
    );
    await assert.rejects(
      startProxy({ 'cluster.join_token': undefined }),
      (e: unknown) => e instanceof ConfigError && /cluster\.join_token \(or GATEHOUSE_JOIN_TOKEN\)/.test(e.message),
    );
    await assert.rejects(
      startProxy({ 'cluster.join_token': 'x'.repeat(40) }),
      /joining the cluster with cluster\.join_token failed.*401.*unknown, expired or used up/,
    );
  });
});

describe('the auth tier seen from a proxy', () => {
  /** A proxy identity of the test's own, joined with a join token as a proxy does. */
  let me: JoinedIdentity;
  before(async () => {
    me = await joinIdentity(auth);
  });
  const internal = (op: string, body: unknown, credential: 'mine' | 'none' | 'forged' = 'mine', instance?: string) =>
    fetch(`${auth.url}/internal/v1/backend/${op}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(credential === 'mine' ? me.headers(instance ?? null) : {}),
        ...(credential === 'forged' ? { 'x-gatehouse-proxy-credential': `${me.credential.slice(0, -4)}AAAA` } : {}),
      },
      body: JSON.stringify(body),
    });

  test("the caller's address reaches the audit trail through a proxy; X-Forwarded-For is believed only from trusted peers", async () => {
    const proxy = proxies[1] as Gatehouse;
    const via = await fetch(`${proxy.webUrl}/v1/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '198.51.100.7' },
      body: JSON.stringify({ api_key: ADMIN_KEY }),
    });
    assert.equal(via.status, 200);
    // Straight to auth, without the cluster token: the header is the caller's say-so, ignored.
    const direct = await fetch(`${auth.url}/v1/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.9' },
      body: JSON.stringify({ api_key: ADMIN_KEY }),
    });
    assert.equal(direct.status, 200);
    const events = await api(auth.url, 'GET', '/v1/audit/events?type=auth.token.issued&per_page=10', {
      token: auth.adminToken,
    });
    const addrs = (events.json.events as Array<{ remote_addr?: string }>).map((e) => e.remote_addr);
    assert.ok(addrs.includes('198.51.100.7'), `the client behind the proxy: ${addrs}`);
    assert.ok(!addrs.includes('203.0.113.9'), 'a direct caller cannot choose its address');
    // A wrong cluster token is refused, not ignored.
    const wrong = await fetch(`${auth.url}/v1/roles`, {
      headers: { authorization: `Bearer ${auth.adminToken}`, 'x-gatehouse-cluster-token': 'y'.repeat(40) },
    });
    assert.equal(wrong.status, 401);
  });

  test('the console signs in through a proxy: the session cookie from auth authenticates /v1 through the proxy', async () => {
    const web = (proxies[1] as Gatehouse).webUrl as string;
    const signIn = await fetch(`${web}/webapi/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gatehouse-csrf': '1' },
      body: JSON.stringify({ api_key: ADMIN_KEY }),
    });
    assert.equal(signIn.status, 200, await signIn.clone().text());
    const cookies = signIn.headers.getSetCookie().map((c) => c.split(';')[0] ?? '');
    const access = cookies.find((c) => c.startsWith('__Host-gatehouse_session='));
    assert.ok(access, `cookies: ${cookies}`);
    const users = await fetch(`${web}/v1/users`, { headers: { cookie: access, 'x-gatehouse-csrf': '1' } });
    assert.equal(users.status, 200);
    const forged = await fetch(`${web}/v1/users`, { headers: { cookie: access } });
    assert.equal(forged.status, 403, 'negative control: the cookie without the CSRF header is refused');
    const page = await fetch(`${web}/`);
    assert.ok(page.status === 200 || page.status === 503, 'the console page is the proxy’s own (built or not)');
  });

  test('read-your-writes through a proxy: what a forwarded write made is there for the next read from its cache', async () => {
    const web = (proxies[1] as Gatehouse).webUrl as string;
    for (let i = 0; i < 40; i++) {
      const made = await api(web, 'POST', '/v1/roles', {
        token: auth.adminToken,
        body: { name: `ryw-${i}`, allow: { rules: [{ resources: ['roles'], verbs: ['read'] }] } },
      });
      assert.equal(made.status, 201, made.text);
      const read = await api(web, 'GET', `/v1/roles/${made.json.id}`, { token: auth.adminToken });
      assert.equal(read.status, 200, `round ${i}: ${read.text}`);
      const gone = await api(web, 'DELETE', `/v1/roles/${made.json.id}`, { token: auth.adminToken });
      assert.equal(gone.status, 204, gone.text);
      assert.equal((await api(web, 'GET', `/v1/roles/${made.json.id}`, { token: auth.adminToken })).status, 404);
    }
  });

  test('the internal API answers only a joined proxy’s credential, and a proxy writes only what proxies own', async () => {
    assert.equal((await internal('get', { args: ['roles/'] }, 'none')).status, 401, 'no credential');
    assert.equal(
      (await internal('get', { args: ['roles/'] }, 'forged')).status,
      401,
      'a credential not signed by auth',
    );
    const read = await internal('getRange', { args: ['roles/', {}] });
    assert.equal(read.status, 200, 'positive control: the credential reads');
    assert.ok(((await read.json()) as { result: unknown[] }).result.length > 0);
    for (const key of ['users/user_x', 'apikeys/key_x', 'roles/role_x', 'tokens/abc', 'index/users/name/mallory']) {
      const res = await internal('put', { args: [key, '{}'] });
      assert.equal(res.status, 403, key);
      assert.match(((await res.json()) as { detail: string }).detail, /a proxy may not write/);
    }
    for (const args of [
      [[{}], []],
      [[], [{ type: 'put', key: 'sessions/x' }]],
      [[], [{ type: 'move', key: 'sessions/x' }]],
    ]) {
      const malformed = await internal('atomicWrite', { args });
      assert.equal(malformed.status, 400, `malformed write ${JSON.stringify(args)}: ${await malformed.text()}`);
    }
    // Session records only as the registry writes them (test/cluster-internal-least-privilege.test.ts).
    const loose = await internal('put', { args: ['sessions/sess_internal_test', '{"id":"sess_internal_test"}'] });
    assert.equal(loose.status, 403, 'a bare session record, unconditionally');
    // Positive control: what a proxy owns — its instance lease, naming the instance the call announces.
    const instance = `${me.instance}-${randomBytes(4).toString('hex')}`;
    const lease = `locks/instances/${randomBytes(8).toString('hex')}`;
    const value = JSON.stringify({ roles: ['proxy'], instance, holder: 'test', acquired_at: new Date().toISOString() });
    const own = await internal(
      'create',
      { args: [lease, value, { expiresAt: Date.now() + 15_000 }] },
      'mine',
      instance,
    );
    assert.equal(
      own.status,
      200,
      `positive control: its own lease is the proxy’s to write: ${await own.clone().text()}`,
    );
    const { revision } = ((await own.json()) as { result: { revision: number } }).result;
    const released = await internal(
      'atomicWrite',
      { args: [[{ key: lease, revision }], [{ type: 'delete', key: lease }]] },
      'mine',
      instance,
    );
    assert.equal(released.status, 200);
  });

  test('one Kubernetes CA for the cluster: the kubeconfig the auth tier hands out verifies either proxy', async () => {
    const cluster = await api(auth.url, 'POST', '/v1/resources', {
      token: auth.adminToken,
      body: {
        kind: 'kube_cluster',
        name: 'kc-ca-test',
        address: 'https://127.0.0.1:6443',
        kube: { ca_pem: auth.gatehouse.services.kubeCa.certPem, token: 'upstream-token' },
      },
    });
    assert.equal(cluster.status, 201, cluster.text);
    const res = await fetch(`${auth.url}/v1/resources/${cluster.json.id}/kubeconfig`, {
      headers: { authorization: `Bearer ${auth.adminToken}` },
    });
    assert.equal(res.status, 200, 'an auth-only instance with kube_public_url hands out kubeconfigs');
    const kubeconfig = await res.text();
    const ca = Buffer.from(/certificate-authority-data: (\S+)/.exec(kubeconfig)?.[1] ?? '', 'base64').toString();
    assert.match(ca, /BEGIN CERTIFICATE/);
    const handshake = (port: number, caPem: string) =>
      new Promise<void>((resolve, reject) => {
        const socket = tlsConnect({ host: '127.0.0.1', port, ca: caPem, servername: 'localhost' }, () => {
          socket.end();
          resolve();
        });
        socket.on('error', reject);
      });
    // proxies[0] was drained above: a third proxy starts beside proxies[1].
    const third = await startProxy();
    try {
      for (const p of [proxies[1] as Gatehouse, third]) await handshake(p.kubeAddr?.port as number, ca);
      // Negative control: a CA that is not the cluster's is refused by the same check.
      await assert.rejects(handshake(third.kubeAddr?.port as number, createKubeCa().certPem), /certificate/);
    } finally {
      await third.close();
    }
  });

  test('Ctrl-C that the balancer hands to the other proxy still cancels the statement (cancel keys shared in Redis)', async () => {
    await registerPostgres(auth, { name: 'pg-cancel' });
    await createDbRole(auth, 'db-cancel');
    const carol = await userWithRoles(auth, 'carol', ['db-cancel']);
    const holder = proxies[1] as Gatehouse;
    const other = await startProxy();
    const client = new pg.Client({
      host: '127.0.0.1',
      port: holder.dbAddr?.port as number,
      user: 'postgres@pg-cancel',
      database: 'test',
      password: carol.token,
    });
    try {
      await client.connect();
      const keyOf = client as unknown as { processID: number; secretKey: number };
      const started = Date.now();
      const sleeping = client.query('select pg_sleep(30)').then(
        () => ({ ok: true, code: undefined as string | undefined }),
        (e: { code?: string }) => ({ ok: false, code: e.code }),
      );
      await new Promise((r) => setTimeout(r, 500));
      // psql's Ctrl-C: a CancelRequest on a connection of its own, which lands on the other proxy.
      await sendCancelRequest(other.dbAddr?.port as number, keyOf.processID, keyOf.secretKey);
      const outcome = await sleeping;
      assert.deepEqual(outcome, { ok: false, code: '57014' }, 'canceling statement due to user request');
      assert.ok(Date.now() - started < 10_000, `took ${Date.now() - started} ms`);
      // Positive control: the session itself goes on after the cancel.
      assert.equal((await client.query('select 1 as one')).rows[0].one, 1);
    } finally {
      await client.end().catch(() => undefined);
      await other.close();
    }
  });

  test('a proxy may pin a server’s first host key, and change nothing else of it', async () => {
    const srv = await api(auth.url, 'POST', '/v1/resources', {
      token: auth.adminToken,
      body: { kind: 'server', name: 'pin-target', address: '127.0.0.1:1' },
    });
    assert.equal(srv.status, 201, srv.text);
    const item = (
      (await (await internal('get', { args: [`resources/${srv.json.id}`] })).json()) as {
        result: { value: string; revision: number };
      }
    ).result;
    const record = JSON.parse(item.value) as Record<string, unknown>;
    const write = (value: unknown) =>
      internal('atomicWrite', {
        args: [
          [{ key: `resources/${srv.json.id}`, revision: item.revision }],
          [{ type: 'put', key: `resources/${srv.json.id}`, value: JSON.stringify(value) }],
        ],
      });
    const moved = await write({ ...record, address: '10.0.0.1:22' });
    assert.equal(moved.status, 403, 'the address is not the proxy’s to change');
    const pin = { key: 'ssh-ed25519 AAAA', fingerprint: 'SHA256:x', pinned: 'first_use', pinned_at: record.created_at };
    const pinned = await write({ ...record, ssh_host_key: pin });
    assert.equal(pinned.status, 200, 'positive control: the first pin');
    // A second proxy racing to pin the same server, from the revision it had read: the store's own
    // compare_failed (so it reads the pin and compares), not a refusal that fails its connection.
    const raced = await write({ ...record, ssh_host_key: { ...pin, key: 'ssh-ed25519 BBBB' } });
    assert.equal(raced.status, 409, await raced.clone().text());
    assert.equal(((await raced.json()) as { backend_error: string }).backend_error, 'compare_failed');
    // Conditioned on a revision the record has not reached yet, a change is refused outright: the
    // record could reach it between the check and the write.
    const pinnedItem = (
      (await (await internal('get', { args: [`resources/${srv.json.id}`] })).json()) as {
        result: { value: string; revision: number };
      }
    ).result;
    const ahead = await internal('atomicWrite', {
      args: [
        [{ key: `resources/${srv.json.id}`, revision: pinnedItem.revision + 1 }],
        [
          {
            type: 'put',
            key: `resources/${srv.json.id}`,
            value: JSON.stringify({ ...record, address: '10.0.0.1:22' }),
          },
        ],
      ],
    });
    assert.equal(ahead.status, 403);
  });
});
