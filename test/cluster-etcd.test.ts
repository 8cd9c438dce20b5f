// Auth instances side by side on one etcd cluster (3 real members) and one PostgreSQL audit store:
// what one instance writes, every other serves; a revoked token is refused everywhere within a bound
// (measured: p50/p99 printed); a bootstrap raced by two instances makes one admin; a stopped etcd
// member does not stop the service; an instance with another seal key is refused at start.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { StartupError } from '../src/server.js';
import { type EtcdCluster, startEtcd } from './helpers/etcd.js';
import { ADMIN_KEY, api, startTestServer, type TestServer } from './helpers/gatehouse.js';
import { until } from './helpers/until.js';

const PG = process.env.GATEHOUSE_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `gh_cluster_${randomBytes(5).toString('hex')}`;
const keyDir = mkdtempSync(join(tmpdir(), 'gatehouse-seal-'));
const sealKey = join(keyDir, 'seal.key');
writeFileSync(sealKey, randomBytes(32), { mode: 0o600 });

let etcd: EtcdCluster;
let a: TestServer;
let b: TestServer;

const clusterConfig = (prefix: string) => ({
  backend_url: etcd.url(prefix),
  audit_url: `${PG}?schema=${schema}`,
  seal_key_file: sealKey,
  // Each instance here also runs the proxy role, and two proxies share their counters through Redis.
  redis_url: process.env.GATEHOUSE_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
});

before(async () => {
  etcd = await startEtcd(3);
  // Started at once: the bootstrap (admin user and its key) is raced and must come out as one admin.
  const started = await Promise.allSettled([
    startTestServer(clusterConfig('/cluster/')),
    startTestServer(clusterConfig('/cluster/')),
  ]);
  const up = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  [a, b] = up as [TestServer, TestServer];
  const failed = started.find((s) => s.status === 'rejected');
  if (failed) throw (failed as PromiseRejectedResult).reason;
});

after(async () => {
  await Promise.allSettled([a?.stop(), b?.stop()]);
  await etcd?.close();
  const client = new pg.Client({ connectionString: PG });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await client.end();
  rmSync(keyDir, { recursive: true, force: true });
});

const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)] as number;
const p99 = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.ceil(xs.length * 0.99) - 1] as number;

describe('auth instances on etcd', () => {
  test('a bootstrap raced by two instances makes exactly one admin', async () => {
    const users = await api(a.url, 'GET', '/v1/users?name=admin', { token: a.adminToken });
    assert.equal(users.status, 200, users.text);
    assert.equal(users.json.pagination.total, 1);
    assert.equal((await api(b.url, 'GET', '/v1/users', { token: a.adminToken })).status, 200, 'A’s token works on B');
  });

  test('instances that raced at start share one user CA (the loser reads the winner’s)', async () => {
    const fromA = await api(a.url, 'GET', '/v1/auth/ssh-ca', { token: a.adminToken });
    const fromB = await api(b.url, 'GET', '/v1/auth/ssh-ca', { token: a.adminToken });
    assert.equal(fromA.status, 200, fromA.text);
    assert.equal(fromA.text, fromB.text);
  });

  test('what one instance writes, the other serves; the audit trail is one', async () => {
    const created = await api(a.url, 'POST', '/v1/users', { token: a.adminToken, body: { name: 'via-a', roles: [] } });
    assert.equal(created.status, 201, created.text);
    // The writer answers after its write; B has it from the watch within the propagation bound (1 s).
    await until(
      'B serves the user A created',
      async () =>
        (await api(b.url, 'GET', `/v1/users/${created.json.id}`, { token: b.adminToken })).status === 200
          ? true
          : undefined,
      1000,
    );
    const events = await api(b.url, 'GET', `/v1/events?type=user.created&target=${created.json.id}`, {
      token: b.adminToken,
    });
    assert.equal(events.json.events.length, 1);
  });

  test('a token revoked on one instance is refused on the other within 1 s (p50/p99 over 40 trials)', async () => {
    const delays: number[] = [];
    for (let i = 0; i < 40; i++) {
      const login = await api(a.url, 'POST', '/v1/auth/token', { body: { api_key: ADMIN_KEY } });
      const token = login.json.access_token as string;
      // Positive control: B accepts it before the revocation.
      for (let tries = 0; (await api(b.url, 'GET', '/v1/roles', { token })).status !== 200; tries++) {
        assert.ok(tries < 200, 'B never accepted the new token');
        await new Promise((r) => setTimeout(r, 5));
      }
      assert.equal((await api(a.url, 'DELETE', '/v1/auth/revoke', { token })).status, 200);
      const revokedAt = performance.now();
      while ((await api(b.url, 'GET', '/v1/roles', { token })).status !== 401) {
        assert.ok(performance.now() - revokedAt < 5000, 'B still accepts a revoked token after 5 s');
      }
      delays.push(performance.now() - revokedAt);
    }
    console.log(
      `# revocation propagation A→B over etcd: p50 ${median(delays).toFixed(1)} ms, p99 ${p99(delays).toFixed(1)} ms`,
    );
    assert.ok(p99(delays) < 1000, `p99 ${p99(delays)} ms`);
  });

  test('with one of three etcd members stopped, writes and reads go on', async () => {
    const member = etcd.members[2];
    assert.ok(member);
    await member.stop();
    try {
      const created = await api(b.url, 'POST', '/v1/users', {
        token: b.adminToken,
        body: { name: 'quorum', roles: [] },
      });
      assert.equal(created.status, 201, created.text);
      // A's watch may have been on the stopped member: it moves to another and catches up.
      const t0 = performance.now();
      await until(
        'A serves the user B created',
        async () =>
          (await api(a.url, 'GET', `/v1/users/${created.json.id}`, { token: a.adminToken })).status === 200
            ? true
            : undefined,
        5000,
      );
      console.log(`# with a member down, A saw B's write after ${(performance.now() - t0).toFixed(0)} ms`);
    } finally {
      await member.start();
    }
  });

  test('an instance with another seal key is refused at start, naming the setting', async () => {
    const other = join(keyDir, 'other.key');
    writeFileSync(other, randomBytes(32), { mode: 0o600 });
    await assert.rejects(
      startTestServer({ ...clusterConfig('/cluster/'), seal_key_file: other }),
      (e: unknown) => e instanceof StartupError && /GATEHOUSE_SEAL_KEY_FILE/.test(e.message),
    );
  });
});
