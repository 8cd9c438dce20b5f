// Two Gatehouse instances (auth + proxy each) on one etcd and one real redis-server: login throttles
// and agent rate limits are shared (a 429 earned on A holds on B), DELETE /v1/sessions/{id} on A ends
// an SSH session held by B and says it was confirmed, suspending an agent on A ends its session on B
// with the same confirmation, and Redis stopped then started again: both keep serving (per-instance
// fallback, said in /readyz and redis_up), then sharing resumes by itself.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { ConfigError, loadConfig } from '../src/config/load.js';
import { StartupError, startGatehouse } from '../src/server.js';
import { type EtcdCluster, startEtcd } from './helpers/etcd.js';
import { ADMIN_KEY, api, startTestServer, type TestServer } from './helpers/gatehouse.js';
import { type RedisServer, redisMissing, startRedis, tokenRequestFrom } from './helpers/redis.js';
import { sshExec } from './helpers/ssh-client.js';
import { requireSshd, type Sshd, startSshd } from './helpers/sshd.js';
import { until } from './helpers/until.js';

const missing = redisMissing();
if (missing && process.env.CI === 'true') throw new Error(missing);

const tmp = mkdtempSync(join(tmpdir(), 'gatehouse-redis-'));
const sealKey = join(tmp, 'seal.key');
writeFileSync(sealKey, randomBytes(32), { mode: 0o600 });

let etcd: EtcdCluster;
let redis: RedisServer;
let a: TestServer;
let b: TestServer;

// Each throttle test fails from a loopback address of its own: the source counter is shared too.
let lastSource = 0;
const newSource = () => `127.0.1.${++lastSource}`;
const tokenFail = (server: TestServer, key: string, from: string) => tokenRequestFrom(server.url, from, key);
const badKey = () => `ghk_${randomBytes(32).toString('hex')}`;

async function readyz(server: TestServer) {
  const r = await api(server.url, 'GET', '/readyz');
  return { status: r.status, redis: r.json?.checks?.redis as string | undefined };
}

async function redisUp(server: TestServer): Promise<number> {
  const text = await (await fetch(`${server.metricsUrl}/metrics`)).text();
  return Number(/^gatehouse_redis_up (\S+)$/m.exec(text)?.[1]);
}

test('a malformed redis_url stops the start with a message naming the key', async () => {
  for (const url of ['http://127.0.0.1:6379', 'redis://a:1,b:2', 'redis+cluster://', 'redis://bad host:1']) {
    await assert.rejects(
      startTestServer({ redis_url: url }, { dataDir: mkdtempSync(join(tmp, 'bad-url-')) }),
      (e: unknown) => e instanceof ConfigError && /^config key redis_url: /.test(e.message),
      url,
    );
  }
});

describe('two instances sharing one Redis', { skip: missing }, () => {
  before(async () => {
    [etcd, redis] = await Promise.all([startEtcd(1), startRedis()]);
    const shared = {
      backend_url: etcd.url('/redis/'),
      seal_key_file: sealKey,
      redis_url: redis.url,
      'login_throttle.max_failures': 3,
    };
    a = await startTestServer(shared);
    b = await startTestServer(shared);
    await until('both reach Redis', async () =>
      (await readyz(a)).redis === 'ok' && (await readyz(b)).redis === 'ok' ? true : undefined,
    );
  });

  after(async () => {
    await Promise.allSettled([a?.stop(), b?.stop()]);
    await Promise.allSettled([etcd?.close(), redis?.close()]);
    rmSync(tmp, { recursive: true, force: true });
  });

  test('login failures on A and B add up: the 4th failing attempt is 429 on either; a valid key still works', async () => {
    const key = badKey();
    const from = newSource();
    assert.equal((await tokenFail(a, key, from)).status, 401, 'control: below the limit, a plain 401');
    assert.equal((await tokenFail(b, key, from)).status, 401);
    assert.equal((await tokenFail(a, key, from)).status, 401);
    const onB = await tokenFail(b, key, from);
    assert.equal(onB.status, 429, 'B counts the failures made on A');
    assert.ok(Number(onB.retryAfter) >= 1);
    assert.equal((await tokenFail(a, key, from)).status, 429);
    assert.equal((await tokenFail(b, ADMIN_KEY, from)).status, 200, 'positive control: a valid key is never throttled');
  });

  test('an agent limited to 6 requests a minute gets 6 across both instances, then 429 on either', async () => {
    const created = await api(a.url, 'POST', '/v1/agents', {
      token: a.adminToken,
      body: {
        name: `limited-${randomBytes(3).toString('hex')}`,
        roles: ['auditor'],
        rate_limit: { requests_per_minute: 6 },
      },
    });
    assert.equal(created.status, 201, created.text);
    const cred = await api(a.url, 'POST', `/v1/agents/${created.json.id}/credentials`, {
      token: a.adminToken,
      body: {},
    });
    assert.equal(cred.status, 201, cred.text);
    const token = cred.json.access_token as string;
    await until('B knows the token', async () =>
      (await api(b.url, 'GET', '/v1/events?per_page=1', { token })).status === 200 ? true : undefined,
    );
    // That was one; five more, alternating, all pass (positive control)…
    for (let i = 0; i < 5; i++) {
      const r = await api(i % 2 ? a.url : b.url, 'GET', '/v1/events?per_page=1', { token });
      assert.equal(r.status, 200, `request ${i + 2}: ${r.text}`);
    }
    // …and the 7th is refused wherever it goes: 6/min in total, not per instance.
    const refusedA = await api(a.url, 'GET', '/v1/events?per_page=1', { token });
    assert.equal(refusedA.status, 429);
    assert.equal(refusedA.headers.get('ratelimit-limit'), '6');
    assert.equal((await api(b.url, 'GET', '/v1/events?per_page=1', { token })).status, 429);
  });

  if (requireSshd('sessions across instances')) {
    describe('sessions held by the other instance', () => {
      let sshd: Sshd;
      const ssh = (server: TestServer, command: string, password: string) =>
        sshExec(command, {
          port: server.gatehouse.sshAddr?.port as number,
          user: `${sshd.login}@redis-web`,
          password,
          timeoutMs: 60_000,
        });
      const activeSession = (command: string) =>
        until('the session to be live', async () => {
          const list = await api(a.url, 'GET', '/v1/sessions?status=active', { token: a.adminToken });
          return list.json.sessions.find((s: { command?: string }) => s.command === command)?.id as string | undefined;
        });

      before(async () => {
        sshd = await startSshd();
        const srv = await api(a.url, 'POST', '/v1/resources', {
          token: a.adminToken,
          body: { kind: 'server', name: 'redis-web', address: `127.0.0.1:${sshd.port}` },
        });
        assert.equal(srv.status, 201, srv.text);
        sshd.authorize(srv.json.ssh_public_key);
      });
      after(() => sshd?.stop());

      test('DELETE /v1/sessions/{id} on A ends the session B holds, confirmed in the answer; another stays', async () => {
        const doomed = 'sleep 60; echo doomed';
        const kept = 'sleep 4; echo kept-running';
        const running = ssh(b, doomed, b.adminToken);
        const other = ssh(b, kept, b.adminToken);
        const id = await activeSession(doomed);
        const t0 = performance.now();
        const del = await api(a.url, 'DELETE', `/v1/sessions/${id}`, { token: a.adminToken });
        const answeredMs = performance.now() - t0;
        assert.equal(del.status, 200, del.text);
        assert.equal(del.json.status, 'terminated');
        assert.equal(del.json.confirmed_ended, true, 'B confirmed it ended the session');
        const run = await running;
        assert.notEqual(run.code, 0);
        assert.doesNotMatch(run.stdout, /doomed/);
        assert.match(run.stderr, /session terminated/);
        const control = await other;
        assert.equal(control.code, 0, 'positive control: the other session on B ran to its end');
        assert.match(control.stdout, /kept-running/);
        console.log(`# DELETE on A → confirmed end on B: ${answeredMs.toFixed(0)} ms`);
      });

      test('suspending an agent on A ends its session on B and lists it as confirmed ended', async () => {
        const login = sshd.login;
        const role = await api(a.url, 'POST', '/v1/roles', {
          token: a.adminToken,
          body: {
            name: `ssh-${randomBytes(3).toString('hex')}`,
            allow: { resources: [{ kinds: ['server'] }], logins: [login] },
          },
        });
        assert.equal(role.status, 201, role.text);
        const agent = await api(a.url, 'POST', '/v1/agents', {
          token: a.adminToken,
          body: { name: `bot-${randomBytes(3).toString('hex')}`, roles: [role.json.name] },
        });
        assert.equal(agent.status, 201, agent.text);
        const cred = await api(a.url, 'POST', `/v1/agents/${agent.json.id}/credentials`, {
          token: a.adminToken,
          body: {},
        });
        assert.equal(cred.status, 201, cred.text);
        const command = 'sleep 60; echo agent-finished';
        await until('B knows the agent token', async () =>
          (await api(b.url, 'GET', '/v1/sessions', { token: cred.json.access_token })).status !== 401
            ? true
            : undefined,
        );
        const running = ssh(b, command, cred.json.access_token);
        const id = await activeSession(command);
        const suspended = await api(a.url, 'PATCH', `/v1/agents/${agent.json.id}`, {
          token: a.adminToken,
          body: { status: 'suspended' },
        });
        assert.equal(suspended.status, 200, suspended.text);
        assert.deepEqual(suspended.json.ended_sessions, [id]);
        assert.deepEqual(suspended.json.confirmed_ended_sessions, [id]);
        const run = await running;
        assert.doesNotMatch(run.stdout, /agent-finished/);
      });

      test('deleting a user on A ends their session on B and answers it as confirmed ended', async () => {
        const created = await api(a.url, 'POST', '/v1/users', {
          token: a.adminToken,
          body: {
            name: `leaver-${randomBytes(3).toString('hex')}`,
            roles: ['access'],
            traits: { logins: [sshd.login] },
          },
        });
        assert.equal(created.status, 201, created.text);
        const key = await api(a.url, 'POST', `/v1/users/${created.json.id}/api-keys`, {
          token: a.adminToken,
          body: {},
        });
        const token = await until('B knows the key', async () => {
          const r = await api(b.url, 'POST', '/v1/auth/token', { body: { api_key: key.json.api_key } });
          return r.status === 200 ? (r.json.access_token as string) : undefined;
        });
        const command = 'sleep 60; echo user-finished';
        const running = ssh(b, command, token);
        const id = await activeSession(command);
        const del = await api(a.url, 'DELETE', `/v1/users/${created.json.id}`, { token: a.adminToken });
        assert.equal(del.status, 200, del.text);
        assert.deepEqual(del.json, { id: created.json.id, ended_sessions: [id], confirmed_ended_sessions: [id] });
        const run = await running;
        assert.doesNotMatch(run.stdout, /user-finished/);
      });
    });
  }

  test('a second proxy without Redis is refused at start, naming the setting; with Redis it starts', async () => {
    const proxy = (redisUrl?: string) =>
      startGatehouse(
        loadConfig({
          env: {},
          overrides: {
            data_dir: mkdtempSync(join(tmp, 'proxy-')),
            roles: ['proxy'],
            web_addr: '127.0.0.1:0',
            ssh_addr: '127.0.0.1:0',
            kube_addr: '127.0.0.1:0',
            db_addr: '127.0.0.1:0',
            metrics_enabled: false,
            log_level: 'silent',
            'webhooks.deliver': false,
            backend_url: etcd.url('/redis/'),
            seal_key_file: sealKey,
            ...(redisUrl ? { redis_url: redisUrl } : {}),
          },
        }),
        { logger: pino({ level: 'silent' }) },
      );
    await assert.rejects(
      proxy(),
      (e: unknown) =>
        e instanceof StartupError &&
        /another proxy instance already uses this state store .*redis_url \(GATEHOUSE_REDIS_URL\)/.test(e.message),
    );
    const withRedis = await proxy(redis.url);
    assert.ok(withRedis.webUrl, 'positive control: the same proxy with Redis starts');
    await withRedis.close();
  });

  test('auth_cluster_health counts the auth instances alive: 2 while A and B run', async () => {
    const text = await (await fetch(`${a.metricsUrl}/metrics`)).text();
    assert.equal(Number(/^gatehouse_auth_cluster_health (\S+)$/m.exec(text)?.[1]), 2);
  });

  test('Redis stopped: both keep serving on per-instance counters and say so; restarted: sharing resumes', async () => {
    assert.deepEqual(await readyz(a), { status: 200, redis: 'ok' }, 'control: Redis up');
    assert.equal(await redisUp(a), 1);
    await redis.stop();
    await until('A notices', async () => ((await readyz(a)).redis?.startsWith('unreachable') ? true : undefined));
    const down = await readyz(b);
    assert.equal(down.status, 200, 'still ready: it keeps serving');
    assert.match(down.redis ?? '', /per-instance fallback/);
    assert.equal(await redisUp(a), 0);
    const downSource = newSource();
    assert.equal((await tokenFail(a, ADMIN_KEY, downSource)).status, 200, 'logins work without Redis');
    // Counted per instance meanwhile: 3 failures on A throttle A, not B.
    const key = badKey();
    for (let i = 0; i < 3; i++) assert.equal((await tokenFail(a, key, downSource)).status, 401);
    assert.equal((await tokenFail(a, key, downSource)).status, 429, 'A still throttles on its own');
    assert.equal((await tokenFail(b, key, downSource)).status, 401, 'B has not seen those failures');

    await redis.start();
    await until('both recover', async () =>
      (await readyz(a)).redis === 'ok' && (await readyz(b)).redis === 'ok' ? true : undefined,
    );
    assert.equal(await redisUp(b), 1);
    const again = badKey();
    const upSource = newSource();
    for (let i = 0; i < 3; i++) assert.equal((await tokenFail(i % 2 ? a : b, again, upSource)).status, 401);
    assert.equal((await tokenFail(a, again, upSource)).status, 429, 'shared again: failures on A and B add up');
  });
});
