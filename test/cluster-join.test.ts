// Each proxy its own identity (issue 29): an operator makes a join token (shown once, kept as a hash,
// expiring, bounded uses); a proxy started with it joins once, keeps its key in its data dir (0600) and
// restarts without a new token; auth takes the identity from the credential, so a proxy cannot announce
// another's instance; removing the identity refuses its next call at once and ends its live sessions.
// The shared cluster token works only where cluster.allow_shared_token says so.
import assert from 'node:assert/strict';
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { decodeJwt, SignJWT } from 'jose';
import pg from 'pg';
import { establishIdentity } from '../src/cluster/proxy-identity-client.js';
import { ConfigError } from '../src/config/load.js';
import { createAuthPool } from '../src/net/auth-client.js';
import type { Gatehouse } from '../src/server.js';
import { type JoinedIdentity, joinIdentity, joinToken } from './helpers/cluster-join.js';
import { clusterScene } from './helpers/cluster-scene.js';
import { createDbRole, registerPostgres } from './helpers/db-resource.js';
import { ADMIN_KEY, api, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';
import { requirePostgres } from './helpers/psql.js';
import { until } from './helpers/until.js';

const scene = clusterScene('gatehouse-join-');
const { sealKey } = scene;
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

let auth: TestServer;
const running: Gatehouse[] = [];

async function startProxy(authUrl: string, overrides: Record<string, unknown> = {}, dataDir?: string) {
  const config = { 'http.shutdown_drain': '0s', seal_key_file: sealKey, ...overrides };
  const started = await scene.startProxy(authUrl, config, dataDir === undefined ? {} : { dataDir });
  running.push(started.gatehouse);
  return started;
}
const internalGet = (headers: Record<string, string>, key = 'roles/', base = auth.url) =>
  fetch(`${base}/internal/v1/backend/getRange`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ args: [key, {}] }),
  });

if (requirePostgres('proxy identities')) {
  before(async () => {
    auth = await startTestServer({ roles: ['auth'], seal_key_file: sealKey, db_public_addr: '127.0.0.1:3036' });
  });
  after(async () => {
    await Promise.allSettled(running.map((g) => g.close()));
    await auth?.stop();
    scene.remove();
  });

  describe('join tokens', () => {
    test('an admin makes one: shown once, stored as its hash, audited; a user without cluster rights is 403', async () => {
      const made = await api(auth.url, 'POST', '/v1/cluster/join-tokens', {
        token: auth.adminToken,
        body: { role: 'proxy', ttl: '1h', uses: 2 },
      });
      assert.equal(made.status, 201, made.text);
      assert.equal(made.headers.get('cache-control'), 'no-store');
      assert.match(made.json.token, /^gjt_[0-9a-f]{64}$/);
      assert.equal(made.json.uses, 2);
      const stored = auth.gatehouse.services.state.list<Record<string, unknown>>('cluster/join-tokens/');
      const mine = stored.find((i) => i.key.endsWith(sha256(made.json.token)));
      assert.ok(mine, 'kept under its hash');
      assert.ok(!JSON.stringify(stored).includes(made.json.token), 'the token itself is nowhere in the store');
      const events = await api(auth.url, 'GET', '/v1/events?type=cluster.join_token.created', {
        token: auth.adminToken,
      });
      const event = events.json.events.find((e: { target?: { id: string } }) => e.target?.id === made.json.id);
      assert.ok(event, events.text);
      assert.ok(!JSON.stringify(event).includes(made.json.token), 'never the token in the trail');
      const bob = await userWithRoles(auth, 'bob-no-cluster', ['editor']);
      const refused = await api(auth.url, 'POST', '/v1/cluster/join-tokens', {
        token: bob.token,
        body: { role: 'proxy' },
      });
      assert.equal(refused.status, 403, refused.text);
      assert.equal((await api(auth.url, 'GET', '/v1/cluster/instances', { token: bob.token })).status, 403);
      for (const body of [{ role: 'auth' }, { role: 'proxy', ttl: '10s' }, { role: 'proxy', uses: 0 }]) {
        const bad = await api(auth.url, 'POST', '/v1/cluster/join-tokens', { token: auth.adminToken, body });
        assert.equal(bad.status, 400, `${JSON.stringify(body)}: ${bad.text}`);
      }
    });

    test('a token joins as many proxies as its uses, and none once expired', async () => {
      const token = await joinToken(auth, { uses: 2, ttl: '2m' });
      const join = () =>
        fetch(`${auth.url}/internal/v1/join`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            token,
            public_key: generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }),
          }),
        });
      assert.equal((await join()).status, 200, 'first use');
      assert.equal((await join()).status, 200, 'second use');
      const third = await join();
      assert.equal(third.status, 401, 'used up');
      assert.match(((await third.json()) as { detail: string }).detail, /unknown, expired or used up/);
      const later = await joinToken(auth, { ttl: '1m' });
      auth.clockOffset.ms = 2 * 60_000;
      try {
        const expired = await fetch(`${auth.url}/internal/v1/join`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            token: later,
            public_key: generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }),
          }),
        });
        assert.equal(expired.status, 401, 'expired');
      } finally {
        auth.clockOffset.ms = 0;
      }
      const used = await api(auth.url, 'GET', '/v1/events?type=cluster.join_token.used&per_page=100', {
        token: auth.adminToken,
      });
      assert.ok(used.json.events.length >= 2, used.text);
    });
  });

  describe('a joined proxy', () => {
    test('joins once, keeps its key 0600, serves, and restarts on its data dir without a new token', async () => {
      const first = await startProxy(auth.url, { 'cluster.join_token': await joinToken(auth) });
      const file = join(first.dataDir, 'cluster-identity.json');
      assert.equal(statSync(file).mode & 0o777, 0o600);
      const { instance } = JSON.parse(readFileSync(file, 'utf8')) as { instance: string };
      assert.match(first.gatehouse.services.shared.bus.instanceId, new RegExp(`^${instance}-[0-9a-f]{8}$`));
      const listed = await api(auth.url, 'GET', '/v1/cluster/instances', { token: auth.adminToken });
      assert.ok(
        listed.json.instances.some((i: { id: string }) => i.id === instance),
        listed.text,
      );
      const login = await api(first.gatehouse.webUrl as string, 'POST', '/v1/auth/token', {
        body: { api_key: ADMIN_KEY },
      });
      assert.equal(login.status, 200, login.text);
      await first.gatehouse.close();
      const again = await startProxy(auth.url, {}, first.dataDir);
      assert.ok(again.gatehouse.services.shared.bus.instanceId.startsWith(`${instance}-`), 'the same identity');
      const relogin = await api(again.gatehouse.webUrl as string, 'POST', '/v1/auth/token', {
        body: { api_key: ADMIN_KEY },
      });
      assert.equal(relogin.status, 200, relogin.text);
      await again.gatehouse.close();
    });

    test('the identity comes from the credential: announcing another proxy’s instance is 401; a proof by another key renews nothing', async () => {
      const a = await joinIdentity(auth);
      const b = await joinIdentity(auth);
      assert.equal((await internalGet(a.headers())).status, 200, 'positive control: its own identity');
      assert.equal((await internalGet(a.headers(`${a.instance}-0badcafe`))).status, 200, 'one of its processes');
      const posing = await internalGet(a.headers(b.instance));
      assert.equal(posing.status, 401);
      assert.match(((await posing.json()) as { detail: string }).detail, /not an instance of the credential/);
      assert.equal((await internalGet(a.headers(`${b.instance}-0badcafe`))).status, 401, 'nor a process of it');
      const stranger = generateKeyPairSync('ed25519').privateKey;
      const proof = await new SignJWT({})
        .setProtectedHeader({ alg: 'EdDSA' })
        .setSubject(a.instance)
        .setAudience('gatehouse-renew')
        .setIssuedAt()
        .setExpirationTime('60s')
        .sign(stranger);
      const renewed = await fetch(`${auth.url}/internal/v1/credential`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ proof }),
      });
      assert.equal(renewed.status, 401, 'a key that is not the identity’s');
      const join = await internalGet(a.headers(), 'cluster/');
      assert.equal(join.status, 403, 'join tokens and identities are never a proxy’s to read');
    });

    test('renews on auth’s clock from a host 10 minutes ahead: the fresh credential is accepted, the old one until its exp only, then 401', async () => {
      // The proxy's client (the code a proxy runs) against auth whose clock is 592 s behind this host's.
      const dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-renew-'));
      const pool = createAuthPool([new URL(auth.url).host], { tls: false });
      const token = await joinToken(auth);
      auth.clockOffset.ms = -592_000;
      const errors: unknown[] = [];
      const identity = await establishIdentity(pool, { dataDir, joinToken: token, onError: (e) => errors.push(e) });
      try {
        const credentialOf = () => identity.headers()['x-gatehouse-proxy-credential'] as string;
        const withCredential = (c: string) => internalGet({ 'x-gatehouse-proxy-credential': c });
        const old = credentialOf();
        assert.equal((await withCredential(old)).status, 200, 'positive control: the credential it joined with');
        // A second later (so the two differ in their whole-second exp), the renewal a refused call starts,
        // the same one the half-life timer runs: a proof dated by auth's clock, exchanged for a credential.
        await new Promise((r) => setTimeout(r, 1100));
        identity.refused();
        const fresh = await until('the renewal', async () => {
          if (identity.removed()) throw new Error('the renewal was refused: the client took itself for removed');
          return credentialOf() !== old ? credentialOf() : undefined;
        });
        const oldExp = decodeJwt(old).exp as number;
        assert.ok((decodeJwt(fresh).exp as number) > oldExp, 'the fresh one ends later');
        assert.equal((await withCredential(fresh)).status, 200, 'the fresh one is accepted');
        assert.equal((await withCredential(old)).status, 200, 'the old one too, before its exp');
        // Auth's clock at the old credential's exp: expired, whoever presents it; the fresh one lives on.
        auth.clockOffset.ms = oldExp * 1000 + 100 - Date.now();
        const expired = await withCredential(old);
        assert.equal(expired.status, 401, 'the old one at its exp');
        assert.match(((await expired.json()) as { detail: string }).detail, /expired/);
        assert.equal((await withCredential(fresh)).status, 200, 'positive control: the fresh one at that time');
        auth.clockOffset.ms = (decodeJwt(fresh).exp as number) * 1000 + 100 - Date.now();
        assert.equal((await withCredential(fresh)).status, 401, 'and the fresh one at its own exp');
        assert.deepEqual(errors, [], 'no renewal failed');
      } finally {
        auth.clockOffset.ms = 0;
        identity.stop();
        pool.close();
        rmSync(dataDir, { recursive: true, force: true });
      }
    });

    test('its session records are its own: another proxy’s live session cannot be ended by it', async () => {
      const dbId = await registerPostgres(auth, { name: 'pg-own' });
      const alice = await userWithRoles(auth, 'alice-own', []);
      const holder = await joinIdentity(auth);
      const other = await joinIdentity(auth);
      const id = `sess_${'0'.repeat(10)}${randomBytes(8).toString('hex')}`;
      const record = {
        kind: 'db',
        type: 'sql',
        principal: { kind: 'user', id: alice.id, name: 'alice-own' },
        resource: { kind: 'database', id: dbId, name: 'pg-own' },
        login: 'postgres',
        id,
        status: 'active',
        started_at: new Date().toISOString(),
        ended_at: null,
        bytes_in: 0,
        bytes_out: 0,
        instance: `${holder.instance}-00000001`,
      };
      const write = (who: JoinedIdentity, conditions: unknown[], value: unknown, instance: string) =>
        fetch(`${auth.url}/internal/v1/backend/atomicWrite`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...who.headers(instance) },
          body: JSON.stringify({
            args: [conditions, [{ type: 'put', key: `sessions/${id}`, value: JSON.stringify(value) }]],
          }),
        });
      const started = await write(holder, [{ key: `sessions/${id}`, is: 'absent' }], record, record.instance);
      assert.equal(started.status, 200, await started.text());
      const { revision } = auth.gatehouse.services.state.get(`sessions/${id}`) as { revision: number };
      const ended = { ...record, status: 'ended', ended_at: new Date().toISOString() };
      const theirs = await write(other, [{ key: `sessions/${id}`, revision }], ended, `${other.instance}-00000001`);
      assert.equal(theirs.status, 403, 'another proxy ends nothing of it');
      const own = await write(holder, [{ key: `sessions/${id}`, revision }], ended, `${holder.instance}-00000002`);
      assert.equal(
        own.status,
        200,
        `positive control: its holder (a later process of it) ends it: ${await own.text()}`,
      );
    });
  });

  describe('removing a proxy', () => {
    test('its next call is refused within a second, and its live session ends', async () => {
      await registerPostgres(auth, { name: 'pg-rm' });
      await createDbRole(auth, 'db-rm');
      const carol = await userWithRoles(auth, 'carol-rm', ['db-rm']);
      const { gatehouse: proxy, dataDir } = await startProxy(auth.url, { 'cluster.join_token': await joinToken(auth) });
      const { instance } = JSON.parse(readFileSync(join(dataDir, 'cluster-identity.json'), 'utf8')) as {
        instance: string;
      };
      const client = new pg.Client({
        host: '127.0.0.1',
        port: proxy.dbAddr?.port as number,
        user: 'postgres@pg-rm',
        database: 'test',
        password: carol.token,
      });
      const closed = new Promise<string>((resolve) => {
        client.on('error', (e) => resolve(`error: ${e.message}`));
        client.on('end', () => resolve('end'));
      });
      await client.connect();
      assert.equal((await client.query('select 1 as one')).rows[0].one, 1, 'positive control: the session works');
      const live = await until('the live session', async () =>
        auth.gatehouse.services.sessionRegistry
          .list()
          .find((s) => s.status === 'active' && s.instance?.startsWith(`${instance}-`)),
      );
      // The proxy's own credential, as it is on the wire now (what a stolen one would be).
      const { credential } = await joinIdentityOfProxy(dataDir);
      assert.equal((await internalGet({ 'x-gatehouse-proxy-credential': credential })).status, 200, 'accepted before');

      const ping = () => fetch(`${proxy.webUrl}/webapi/ping`);
      assert.equal((await ping()).status, 200, 'positive control: the proxy is in before its removal');
      const removed = await api(auth.url, 'DELETE', `/v1/cluster/instances/${instance}`, { token: auth.adminToken });
      assert.equal(removed.status, 204, removed.text);
      const t0 = performance.now();
      // The proxy itself learns it: its watch stream ends, the reconnection and a renewal are refused,
      // and /webapi/ping sends the balancer away from it.
      let pingAfter = Number.POSITIVE_INFINITY;
      while (performance.now() - t0 < 1000) {
        const res = await ping();
        if (res.status === 503) {
          assert.equal(((await res.json()) as { status: string }).status, 'removed');
          pingAfter = performance.now() - t0;
          break;
        }
        await new Promise((r) => setTimeout(r, 10));
      }
      console.log(
        `# the removed proxy's /webapi/ping answered 503 ${pingAfter.toFixed(1)} ms after the DELETE answered`,
      );
      assert.ok(pingAfter < 1000, '/webapi/ping answers 503 "removed" within a second');
      let refusedAfter = Number.POSITIVE_INFINITY;
      while (performance.now() - t0 < 1000) {
        if ((await internalGet({ 'x-gatehouse-proxy-credential': credential })).status === 401) {
          refusedAfter = performance.now() - t0;
          break;
        }
        await new Promise((r) => setTimeout(r, 10));
      }
      console.log(`# a removed proxy's credential was refused ${refusedAfter.toFixed(1)} ms after the DELETE answered`);
      assert.ok(refusedAfter < 1000, 'refused within a second');
      const why = await Promise.race([closed, new Promise<string>((r) => setTimeout(() => r('still open'), 10_000))]);
      assert.notEqual(why, 'still open', 'the live session through the removed proxy ended');
      const record = auth.gatehouse.services.sessionRegistry.get(live.id);
      assert.equal(record?.status, 'terminated', JSON.stringify(record));
      assert.match(record?.end_reason ?? '', /removed/);
      const events = await api(auth.url, 'GET', `/v1/events?type=cluster.instance.removed`, { token: auth.adminToken });
      assert.ok(events.json.events.some((e: { target?: { id: string } }) => e.target?.id === instance));
      const listed = await api(auth.url, 'GET', '/v1/cluster/instances', { token: auth.adminToken });
      assert.ok(!listed.json.instances.some((i: { id: string }) => i.id === instance));
      await client.end().catch(() => undefined);
    });
  });

  describe('the shared cluster token (deprecated)', () => {
    const SHARED = `cluster-${randomBytes(16).toString('hex')}`;
    test('refused unless cluster.allow_shared_token is set on both tiers; works when it is', async () => {
      // This auth instance has no shared token allowed: presenting one is 401, and a proxy that only
      // has it is refused at start.
      assert.equal((await internalGet({ 'x-gatehouse-cluster-token': SHARED })).status, 401);
      await assert.rejects(
        startProxy(auth.url, { cluster_token: SHARED }),
        (e: unknown) => e instanceof ConfigError && /cluster\.allow_shared_token/.test(e.message),
      );
      const legacy = await startTestServer({
        roles: ['auth'],
        seal_key_file: sealKey,
        cluster_token: SHARED,
        'cluster.allow_shared_token': true,
      });
      try {
        assert.equal((await internalGet({ 'x-gatehouse-cluster-token': SHARED }, 'roles/', legacy.url)).status, 200);
        assert.equal(
          (await internalGet({ 'x-gatehouse-cluster-token': `x${SHARED.slice(1)}` }, 'roles/', legacy.url)).status,
          401,
          'negative control: another token',
        );
        const { gatehouse: proxy } = await startProxy(legacy.url, {
          cluster_token: SHARED,
          'cluster.allow_shared_token': true,
        });
        const login = await api(proxy.webUrl as string, 'POST', '/v1/auth/token', { body: { api_key: ADMIN_KEY } });
        assert.equal(login.status, 200, login.text);
        await proxy.close();
      } finally {
        await legacy.stop();
      }
    });
  });
}

/** The credential a proxy holds now, got as it renews: a proof signed with the key in its data dir. */
async function joinIdentityOfProxy(dataDir: string): Promise<{ credential: string }> {
  const saved = JSON.parse(readFileSync(join(dataDir, 'cluster-identity.json'), 'utf8')) as {
    instance: string;
    private_key: string;
  };
  const { createPrivateKey } = await import('node:crypto');
  const proof = await new SignJWT({})
    .setProtectedHeader({ alg: 'EdDSA' })
    .setSubject(saved.instance)
    .setAudience('gatehouse-renew')
    .setIssuedAt()
    .setExpirationTime('60s')
    .sign(createPrivateKey(saved.private_key));
  const res = await fetch(`${auth.url}/internal/v1/credential`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ proof }),
  });
  assert.equal(res.status, 200, await res.clone().text());
  return (await res.json()) as { credential: string };
}
