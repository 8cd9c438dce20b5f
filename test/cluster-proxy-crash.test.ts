// A proxy SIGKILLed while it holds a live SSH session, in the cluster shape: an auth instance on one
// etcd and PostgreSQL audit, two proxy processes that reach the stores only through it (auth_servers),
// Redis and S3 recordings, with the real OpenSSH
// client and sshd. The auth tier ends the dead proxy's session (proxy_lost) within the stated bound
// (instance lease 15 s + two reaper passes 5 s apart), the session on the other proxy is untouched, and the
// recording of the lost session is uploaded when that proxy starts again on its data dir; then a
// DELETE /v1/sessions/{id} sent to that proxy ends the session the other one holds, confirmed.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { joinToken } from './helpers/cluster-join.js';
import { type EtcdCluster, startEtcd } from './helpers/etcd.js';
import { api, startTestServer, type TestServer } from './helpers/gatehouse.js';
import { adminSql, POSTGRES_URL } from './helpers/postgres.js';
import { type Running, run, stop } from './helpers/process.js';
import { startS3rver, type TestS3 } from './helpers/s3rver.js';
import { generateClientKey, sshExec } from './helpers/ssh-client.js';
import { freePort, requireSshd, type Sshd, startSshd } from './helpers/sshd.js';
import { until } from './helpers/until.js';

const REDIS = process.env.GATEHOUSE_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

if (requireSshd('a proxy killed mid-session')) {
  describe('a proxy killed mid-session', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gatehouse-proxy-crash-'));
    const schema = `gh_crash_${randomBytes(5).toString('hex')}`;
    const sealKey = join(dir, 'seal.key');
    writeFileSync(sealKey, randomBytes(32), { mode: 0o600 });
    let etcd: EtcdCluster;
    let s3: TestS3;
    let sshd: Sshd;
    let auth: TestServer;
    let client: { privatePath: string; publicLine: string };
    const proxies: Running[] = [];

    const shared = () => ({
      GATEHOUSE_SEAL_KEY_FILE: sealKey,
      GATEHOUSE_REDIS_URL: REDIS,
      GATEHOUSE_RECORDINGS_URL: s3.url('crash/'),
      GATEHOUSE_RECORDINGS_UPLOAD_RETRY_MIN: '50ms',
      GATEHOUSE_RECORDINGS_UPLOAD_RETRY_MAX: '200ms',
    });
    // Each proxy joins once with a join token; restarted on its data dir it renews with its own key.
    const startProxy = async (name: string, sshPort: number, opts: { join: boolean } = { join: true }) => {
      const p = await run({
        ...shared(),
        ...(opts.join && { GATEHOUSE_JOIN_TOKEN: await joinToken(auth) }),
        GATEHOUSE_ROLES: 'proxy',
        GATEHOUSE_AUTH_SERVERS: new URL(auth.url).host,
        GATEHOUSE_DATA_DIR: join(dir, name),
        GATEHOUSE_SSH_ADDR: `127.0.0.1:${sshPort}`,
      });
      proxies.push(p);
      return p;
    };

    before(async () => {
      etcd = await startEtcd(1);
      s3 = await startS3rver(join(dir, 's3rver'));
      sshd = await startSshd();
      client = await generateClientKey(dir);
      const env = shared();
      auth = await startTestServer({
        backend_url: etcd.url('/crash/'),
        audit_url: `${POSTGRES_URL}?schema=${schema}`,
        seal_key_file: sealKey,
        redis_url: REDIS,
        recordings_url: env.GATEHOUSE_RECORDINGS_URL,
        roles: ['auth'],
      });
      const admin = { token: auth.adminToken };
      const srv = await api(auth.url, 'POST', '/v1/resources', {
        ...admin,
        body: { kind: 'server', name: 'web-1', address: `127.0.0.1:${sshd.port}`, labels: { env: 'dev' } },
      });
      assert.equal(srv.status, 201, srv.text);
      sshd.authorize(srv.json.ssh_public_key);
      const role = await api(auth.url, 'POST', '/v1/roles', {
        ...admin,
        body: {
          name: 'dev-ssh',
          allow: { resources: [{ kinds: ['server'], labels: { env: 'dev' } }], logins: [sshd.login] },
        },
      });
      assert.equal(role.status, 201, role.text);
      const alice = await api(auth.url, 'POST', '/v1/users', { ...admin, body: { name: 'alice', roles: ['dev-ssh'] } });
      assert.equal(alice.status, 201, alice.text);
      const key = await api(auth.url, 'POST', `/v1/users/${alice.json.id}/ssh-keys`, {
        ...admin,
        body: { public_key: client.publicLine },
      });
      assert.equal(key.status, 201, key.text);
    });

    after(async () => {
      // One that already died has exitCode null too (it was signalled): waiting for its exit would hang.
      const running = proxies.filter((p) => p.child.exitCode === null && p.child.signalCode === null);
      await Promise.allSettled(running.map((p) => stop(p, 'SIGKILL')));
      await auth?.stop();
      await s3?.stop();
      await sshd?.stop();
      await etcd?.close();
      await adminSql(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    });

    const sessionOf = (needle: string) =>
      until(
        `the live session running ${needle}`,
        async () => {
          const r = await api(auth.url, 'GET', '/v1/sessions?status=active', { token: auth.adminToken });
          // Live byte counters are the holder's; the auth tier sees the record the proxy wrote at start.
          const s = (r.json.sessions as Array<{ id: string; command?: string }>).find((x) =>
            x.command?.includes(needle),
          );
          return s?.id;
        },
        30_000,
      );
    const get = async (id: string) =>
      (await api(auth.url, 'GET', `/v1/sessions/${id}`, { token: auth.adminToken })).json;

    test('its session is ended by the auth tier within 25 s, the other proxy’s is untouched, the recording comes later', async () => {
      const [portA, portB] = [await freePort(), await freePort()];
      const a = await startProxy('proxy-a', portA);
      await startProxy('proxy-b', portB);
      const seen = new Set<string>();
      const ssh = (port: number, command: string) =>
        sshExec(command, {
          port,
          user: `${sshd.login}@web-1`,
          identityFile: client.privatePath,
          timeoutMs: 90_000,
          onStdout: (soFar) => {
            for (const m of soFar.matchAll(/on-proxy-\d+/g)) seen.add(m[0]);
          },
        });
      const onA = ssh(portA, 'echo on-proxy-$((20+1)); sleep 60');
      const onB = ssh(portB, 'echo on-proxy-$((20+2)); sleep 60');
      // A client that ends before its session shows up says why, rather than a bare timeout.
      const endedFirst = (run: typeof onA, which: string) =>
        run.then((r) => {
          throw new Error(`the ssh client through ${which} ended first (${r.code}): ${r.stderr.slice(-500)}`);
        });
      const idA = await Promise.race([sessionOf('on-proxy-$((20+1))'), endedFirst(onA, 'proxy A')]);
      const idB = await Promise.race([sessionOf('on-proxy-$((20+2))'), endedFirst(onB, 'proxy B')]);
      // What the user sees was handed to the proxy's spool writer before it was forwarded; once the
      // client has the echo, half a second lets that write land (the page cache survives SIGKILL).
      await until('the echo at the client', async () => (seen.has('on-proxy-21') ? true : undefined), 30_000);
      await new Promise((r) => setTimeout(r, 500));

      await stop(a, 'SIGKILL');
      const killedAt = performance.now();
      const ended = await until(
        'the lost session ended',
        async () => {
          const s = await get(idA);
          return s.status === 'active' ? undefined : s;
        },
        40_000,
      );
      const after = (performance.now() - killedAt) / 1000;
      console.log(`# a SIGKILLed proxy's session was marked ended after ${after.toFixed(1)} s`);
      assert.equal(ended.status, 'ended');
      assert.equal(ended.end_reason, 'proxy_lost');
      assert.ok(after < 30, `${after} s (bound: 15 s lease + two 5 s reaper passes, + slack)`);
      const events = await api(auth.url, 'GET', `/v1/events?type=session.end&session_id=${idA}`, {
        token: auth.adminToken,
      });
      assert.equal(events.json.events.length, 1, events.text);
      assert.equal(events.json.events[0].data.reason, 'proxy_lost');
      // Positive control: the other proxy's session goes on.
      assert.equal((await get(idB)).status, 'active');
      assert.equal((await onA).code === 0, false, 'the killed proxy’s client lost its connection');

      // The proxy comes back on its data dir: the recording it kept in its spool is uploaded.
      const restarted = await startProxy('proxy-a', portA, { join: false });
      const cast = await until(
        'the lost session’s recording',
        async () => {
          const r = await api(auth.url, 'GET', `/v1/sessions/${idA}/recording`, { token: auth.adminToken });
          return r.status === 200 ? r.text : undefined;
        },
        30_000,
      );
      assert.match(cast, /on-proxy-21/);
      const endEvents = await api(auth.url, 'GET', `/v1/events?type=session.end&session_id=${idA}`, {
        token: auth.adminToken,
      });
      assert.equal(endEvents.json.events.length, 1, 'the restart does not end it a second time');

      // DELETE sent to proxy A (forwarded to auth) ends the session proxy B holds, confirmed through Redis.
      const del = await api(restarted.webUrl, 'DELETE', `/v1/sessions/${idB}`, { token: auth.adminToken });
      assert.equal(del.status, 200, del.text);
      assert.equal(del.json.confirmed_ended, true, 'proxy B confirmed it ended the session');
      const b = await onB;
      assert.notEqual(b.code, 0);
      assert.match(b.stderr, /session terminated/);
    });
  });
}
