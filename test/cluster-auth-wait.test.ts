// Tiers started together (Kubernetes, compose, systemd): a proxy-only instance whose auth tier is not
// up yet stays up — its web port answering, its readiness (/webapi/ping, what a load balancer checks)
// 503 "waiting", saying so in its log every few seconds — and becomes ready and serves once an auth
// instance starts at that address. A join token the auth tier refuses still stops the start.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { joinToken } from './helpers/cluster-join.js';
import { api, startTestServer } from './helpers/gatehouse.js';
import {
  BOOTSTRAP_KEY,
  type GatehouseProcess,
  spawnGatehouse,
  startGatehouseProcess,
} from './helpers/proxy-targets.js';
import { freePort } from './helpers/sshd.js';
import { until } from './helpers/until.js';

/** Status of GET path, 0 when nothing answers. */
const statusOf = (base: string, path: string) =>
  fetch(base + path, { signal: AbortSignal.timeout(3000) }).then(
    async (r) => {
      await r.body?.cancel();
      return r.status;
    },
    () => 0,
  );

describe('a proxy started before its auth tier', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-auth-wait-'));
  const sealKey = join(dir, 'seal.key');
  writeFileSync(sealKey, randomBytes(32), { mode: 0o600 });
  const children: Array<{ child: GatehouseProcess['child'] }> = [];
  after(() => {
    for (const c of children) c.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  const proxyEnv = (authPort: number, webPort: number, joinToken: string) => ({
    GATEHOUSE_ROLES: 'proxy',
    GATEHOUSE_DATA_DIR: mkdtempSync(join(dir, 'proxy-')),
    GATEHOUSE_AUTH_SERVERS: `127.0.0.1:${authPort}`,
    GATEHOUSE_JOIN_TOKEN: joinToken,
    GATEHOUSE_SEAL_KEY_FILE: sealKey,
    GATEHOUSE_WEB_ADDR: `127.0.0.1:${webPort}`,
    GATEHOUSE_HTTP_SHUTDOWN_DRAIN: '0s',
  });
  const startAuth = (authPort: number) =>
    startGatehouseProcess({
      GATEHOUSE_ROLES: 'auth',
      GATEHOUSE_DATA_DIR: join(dir, 'auth'),
      GATEHOUSE_AUTH_ADDR: `127.0.0.1:${authPort}`,
      GATEHOUSE_SEAL_KEY_FILE: sealKey,
    });
  /**
   * The operator makes the proxy's join token ahead, as provisioning does: an auth run on the same
   * data dir before (in this process: cheaper than one more child), stopped before the proxy starts.
   */
  const joinTokenAhead = async () => {
    const early = await startTestServer({ roles: ['auth'], seal_key_file: sealKey }, { dataDir: join(dir, 'auth') });
    const token = await joinToken(early);
    await early.stop({ keepData: true });
    return token;
  };

  let running: { auth: GatehouseProcess; port: number } | undefined;
  test('it waits alive and not ready, logging every few seconds, then serves once auth is up', async () => {
    const [authPort, webPort] = [await freePort(), await freePort()];
    const web = `http://127.0.0.1:${webPort}`;
    const token = await joinTokenAhead();
    const proxy = spawnGatehouse(proxyEnv(authPort, webPort, token), { startTimeoutMs: 120_000 });
    children.push(proxy);

    await until(
      'the waiting proxy to answer',
      async () => {
        if (proxy.child.exitCode !== null) throw new Error('the proxy exited');
        return (await statusOf(web, '/webapi/ping')) === 503 ? true : undefined;
      },
      60_000,
    ).catch((error: Error) => {
      throw new Error(`${error.message}; exit code ${proxy.child.exitCode}:\n${proxy.output()}`);
    });
    const waitLines = () => proxy.output().match(/waiting for the auth tier/g)?.length ?? 0;
    await until('a second waiting line', async () => (waitLines() >= 2 ? true : undefined), 20_000);
    assert.equal(proxy.child.exitCode, null, proxy.output());
    const ping = await fetch(`${web}/webapi/ping`);
    assert.equal(ping.status, 503, 'not ready while the auth tier is away: a load balancer sends it nothing');
    assert.equal(((await ping.json()) as { status: string }).status, 'waiting');
    assert.equal(await statusOf(web, '/v1/users'), 503);
    const waitedLines = waitLines();
    console.log(`# the proxy logged ${waitedLines} waiting lines`);

    const auth = await startAuth(authPort);
    children.push(auth);
    const started = await proxy.started;
    assert.equal(started.webUrl, web, 'the real web listener took the waiting one’s port over');
    assert.equal(await statusOf(web, '/webapi/ping'), 200, 'ready once the auth tier answers');
    const login = await api(web, 'POST', '/v1/auth/token', { body: { api_key: BOOTSTRAP_KEY } });
    assert.equal(login.status, 200, login.text);
    const users = await api(web, 'GET', '/v1/users', { token: login.json.access_token });
    assert.equal(users.status, 200, users.text);
    proxy.child.kill('SIGKILL');
    running = { auth, port: authPort }; // the next test's auth tier (one start less on a loaded machine)
  });

  test('a join token the auth tier refuses still stops the start (positive control of the wait)', async () => {
    const webPort = await freePort();
    const authPort = running?.port ?? (await freePort());
    const auth = running?.auth ?? (await startAuth(authPort));
    children.push(auth);
    const proxy = spawnGatehouse(proxyEnv(authPort, webPort, `gjt_wrong-${randomBytes(32).toString('hex')}`));
    children.push(proxy);
    const code = await Promise.race([proxy.exited, new Promise((r) => setTimeout(() => r('running'), 60_000))]);
    assert.equal(code, 1, proxy.output());
    assert.match(proxy.output(), /joining the cluster with cluster\.join_token failed.*unknown, expired or used up/);
    auth.child.kill('SIGKILL');
  });
});
