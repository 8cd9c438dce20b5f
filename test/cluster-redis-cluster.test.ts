// Redis in cluster mode (6 real redis-server nodes: 3 masters, 3 replicas): two Gatehouse instances
// share login-throttle counters through it, and when the master serving those counters is killed,
// both keep serving (per-instance fallback while the replica takes over) and sharing resumes on the
// promoted replica without a restart.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type EtcdCluster, startEtcd } from './helpers/etcd.js';
import { ADMIN_KEY, api, startTestServer, type TestServer } from './helpers/gatehouse.js';
import { type RedisCluster, redisMissing, startRedisCluster, tokenRequestFrom } from './helpers/redis.js';
import { until } from './helpers/until.js';

const missing = redisMissing();
if (missing && process.env.CI === 'true') throw new Error(missing);

const tmp = mkdtempSync(join(tmpdir(), 'gatehouse-redis-cluster-'));
const sealKey = join(tmp, 'seal.key');
writeFileSync(sealKey, randomBytes(32), { mode: 0o600 });

let etcd: EtcdCluster;
let cluster: RedisCluster;
let a: TestServer;
let b: TestServer;

const login = (server: TestServer, key: string, from = '127.0.0.1') => tokenRequestFrom(server.url, from, key);
const badKey = () => `ghk_${randomBytes(32).toString('hex')}`;
const readyRedis = async (server: TestServer) => (await api(server.url, 'GET', '/readyz')).json?.checks?.redis;
const sourceKey = (from: string) => `gatehouse:throttle:source:${from}`;

/**
 * Three failures from `from` spread over both instances, then the 4th on A: 429 when the counters
 * are shared. Each call needs a source address of its own (the source counter is shared too).
 */
async function sharedFourth(from: string): Promise<number> {
  const key = badKey();
  for (const server of [a, b, b]) {
    const r = await login(server, key, from);
    if (r.status !== 401) return r.status;
  }
  return (await login(a, key, from)).status;
}

describe('two instances on a 6-node Redis cluster', { skip: missing }, () => {
  before(async () => {
    [etcd, cluster] = await Promise.all([startEtcd(1), startRedisCluster()]);
    const shared = {
      backend_url: etcd.url('/redis-cluster/'),
      seal_key_file: sealKey,
      redis_url: cluster.url,
      'login_throttle.max_failures': 3,
    };
    a = await startTestServer(shared);
    b = await startTestServer(shared);
    await until('both reach the cluster', async () =>
      (await readyRedis(a)) === 'ok' && (await readyRedis(b)) === 'ok' ? true : undefined,
    );
  });

  after(async () => {
    await Promise.allSettled([a?.stop(), b?.stop()]);
    await Promise.allSettled([etcd?.close(), cluster?.close()]);
    rmSync(tmp, { recursive: true, force: true });
  });

  test('throttle counters are shared through the cluster', async () => {
    assert.equal(await sharedFourth('127.0.2.1'), 429);
    assert.equal((await login(b, ADMIN_KEY)).status, 200, 'positive control: the right key passes');
  });

  test('the master serving the counters killed: service continues; sharing resumes after the failover', async () => {
    // Source addresses whose counter lives on the master about to die: each try uses a fresh one.
    const master = await cluster.masterOf(sourceKey('127.0.3.1'));
    // Enough for the whole 30 s at one try every ~250 ms (80 ran out after 20 s).
    const candidates = [3, 4, 5, 6].flatMap((m) => Array.from({ length: 254 }, (_, n) => `127.0.${m}.${n + 1}`));
    const masters = await cluster.mastersOf(candidates.map(sourceKey));
    const sources = candidates.filter((_, i) => masters[i]?.port === master.port).slice(0, 160);
    assert.ok(sources.length >= 160, `only ${sources.length} source addresses on the master to kill`);
    const t0 = performance.now();
    await master.stop('SIGKILL');
    // During the failover every login still gets an answer, and the right key still works.
    let failedRequests = 0;
    let recoveredMs = 0;
    for (let i = 0; performance.now() - t0 < 30_000; i++) {
      const r = await login(i % 2 ? a : b, ADMIN_KEY);
      if (r.status !== 200) failedRequests++;
      const from = sources[i];
      if (from === undefined) break;
      if ((await sharedFourth(from)) === 429) {
        recoveredMs = performance.now() - t0;
        break;
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    console.log(`# Redis cluster master killed: sharing resumed after ${recoveredMs.toFixed(0)} ms`);
    assert.equal(failedRequests, 0, 'no valid login failed while Redis failed over');
    assert.ok(recoveredMs > 0, 'throttle counters were shared again within 30 s');
    await cluster.healthy();
    assert.equal(await readyRedis(a), 'ok');
  });
});
