// Guessing secrets at the protocol doors: a wrong access token typed as the SSH password, sent as
// the PostgreSQL password or as the Kubernetes proxy's bearer token counts in the same login throttle
// as the API's logins, per source address and per secret. Past the limit the door refuses without checking (auth.login.throttled), while the
// right secret still gets in (the positive control: a valid credential is never throttled).
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import ssh2 from 'ssh2';
import { createDbRole, registerPostgres } from './helpers/db-resource.js';
import { type FakeKube, startFakeKube } from './helpers/fake-kube-apiserver.js';
import { api, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';
import { kubeClusterClient, SEE } from './helpers/kube-cluster.js';
import { psql, requirePostgres, through } from './helpers/psql.js';
import { sshExec } from './helpers/ssh-client.js';
import { type SshScene, startSshScene } from './helpers/ssh-scene.js';
import { registerSshdServer, requireSshd, type Sshd, startSshd } from './helpers/sshd.js';

const MAX_FAILURES = 3;

// Each suite runs only where its parts run; under CI a missing one fails (requireSshd, requirePostgres).
const sshdHere = requireSshd('SSH door attacks');
const postgresHere = requirePostgres('PostgreSQL door attacks');

if (sshdHere && postgresHere)
  describe('guessing tokens at the SSH and PostgreSQL doors is throttled; the right token still works', () => {
    let gh: TestServer;
    let sshd: Sshd;
    let token: string;
    const admin = (method: string, path: string, body?: unknown) =>
      api(gh.url, method, path, { token: gh.adminToken, ...(body === undefined ? {} : { body }) });
    const throttledEvents = async () =>
      ((await admin('GET', '/v1/events?type=auth.login.throttled&per_page=100')).json.events as unknown[]).length;
    const failedEvents = async () =>
      ((await admin('GET', '/v1/events?type=auth.login.failed&per_page=100')).json.events as unknown[]).length;

    before(async () => {
      gh = await startTestServer({ 'login_throttle.max_failures': MAX_FAILURES, 'login_throttle.window': '10m' });
      sshd = await startSshd();
      await registerSshdServer(admin, sshd, 'web-1', { env: 'dev' });
      const role = await admin('POST', '/v1/roles', {
        name: 'ssh-dev',
        allow: { resources: [{ kinds: ['server'], labels: { env: 'dev' } }], logins: [sshd.login] },
      });
      assert.equal(role.status, 201, role.text);
      await registerPostgres(gh);
      await createDbRole(gh, 'db-any');
      const roles = ['ssh-dev', 'db-any'];
      token = (await userWithRoles(gh, 'guessed', roles)).token;
    });
    after(async () => {
      await gh?.stop();
      await sshd?.stop();
    });

    test('SSH: wrong tokens as the password are counted, then refused unchecked; the right token logs in', async () => {
      const login = sshd.login;
      const port = gh.gatehouse.sshAddr?.port as number;
      const throttledBefore = await throttledEvents();
      const failedBefore = await failedEvents();
      // One wrong token more than the limit, each a new secret (so only the address counter fills).
      for (let i = 0; i <= MAX_FAILURES; i++) {
        const wrong = await sshExec('true', { port, user: `${login}@web-1`, password: `gha_wrong-guess-${i}` });
        assert.equal(wrong.code, 255);
      }
      assert.equal((await failedEvents()) - failedBefore, MAX_FAILURES, 'the first failures are counted');
      assert.ok((await throttledEvents()) > throttledBefore, 'the failure past the limit is throttled');
      const right = await sshExec('echo in', { port, user: `${login}@web-1`, password: token });
      assert.equal(right.stdout, 'in\n', right.stderr);
    });

    test('PostgreSQL: wrong tokens as the password are counted, then refused unchecked; the right token connects', async () => {
      const port = gh.gatehouse.dbAddr?.port as number;
      const conninfo = through(port, 'postgres', 'pg', 'test');
      const throttledBefore = await throttledEvents();
      for (let i = 0; i <= MAX_FAILURES; i++) {
        const wrong = await psql(conninfo, `gha_wrong-db-guess-${i}`, ['-c', 'select 1']);
        assert.equal(wrong.code, 2);
      }
      const last = await psql(conninfo, 'gha_wrong-db-guess-last', ['-c', 'select 1']);
      assert.match(last.stderr, /too many failed attempts/);
      assert.ok((await throttledEvents()) > throttledBefore, 'the failures past the limit are throttled');
      const right = await psql(conninfo, token, ['-tAc', 'select 41 + 1']);
      assert.equal(right.stdout.trim(), '42', right.stderr);
    });
  });

describe('guessing tokens at the Kubernetes door is throttled; the right token still works', () => {
  let gh: TestServer;
  let fake: FakeKube;
  let clusterId: string;
  let token: string;
  let ca: Buffer;
  const { admin, events, registerCluster, kubeconfigFor, removeHome } = kubeClusterClient(() => gh, 'kube-guess-');

  /** A GET through the proxy with `bearer`, as client-go sends it: the status, Retry-After and the Status message. */
  const get = (bearer: string) =>
    new Promise<{ status: number; retryAfter?: string; message: string }>((resolve, reject) => {
      const port = gh.gatehouse.kubeAddr?.port as number;
      const path = `/clusters/${clusterId}/api/v1/namespaces/default/pods`;
      const headers = { authorization: `Bearer ${bearer}` };
      const req = request({ host: '127.0.0.1', port, path, headers, ca }, (res) => {
        let body = '';
        res.on('data', (d: Buffer) => {
          body += d.toString();
        });
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            ...(res.headers['retry-after'] ? { retryAfter: String(res.headers['retry-after']) } : {}),
            message: String(JSON.parse(body).message ?? ''),
          }),
        );
      });
      req.on('error', reject);
      req.end();
    });

  before(async () => {
    fake = await startFakeKube({ rbac: { 'dev-team': ['default'] } });
    gh = await startTestServer({ 'login_throttle.max_failures': MAX_FAILURES, 'login_throttle.window': '10m' });
    clusterId = await registerCluster(fake, 'guessed-cluster');
    const role = await admin('POST', '/v1/roles', { name: 'kube-any', allow: { ...SEE, kube_groups: ['dev-team'] } });
    assert.equal(role.status, 201, role.text);
    const user = await userWithRoles(gh, 'kube-guessed', ['kube-any']);
    const kc = await kubeconfigFor(user.token, 'kube-guessed');
    token = /token: (gha_\S+)/.exec(kc.yaml)?.[1] as string;
    ca = Buffer.from(/certificate-authority-data: (\S+)/.exec(kc.yaml)?.[1] as string, 'base64');
  });
  after(async () => {
    await gh?.stop();
    await fake?.close();
    removeHome();
  });

  test('wrong bearer tokens are counted, then refused unchecked (429, no Retry-After); the right token lists pods', async () => {
    // Positive control first: the kubeconfig's token reaches the cluster.
    assert.equal((await get(token)).status, 200);
    // Each a new secret, so only the address counter fills.
    for (let i = 0; i < MAX_FAILURES; i++) {
      const wrong = await get(`gha_wrong-kube-guess-${i}`);
      assert.equal(wrong.status, 401, wrong.message);
    }
    const failed = (await events('auth.login.failed')).filter((e) => String(e.data.reason).startsWith('kube: '));
    assert.equal(failed.length, MAX_FAILURES, 'each wrong token is a failed login at the Kubernetes door');
    const throttled = await get('gha_wrong-kube-guess-last');
    assert.equal(throttled.status, 429, throttled.message);
    assert.match(throttled.message, /too many failed attempts; retry in \d+ s/);
    // client-go would retry a 429 that names a wait, each retry one more refused guess.
    assert.equal(throttled.retryAfter, undefined);
    assert.ok((await events('auth.login.throttled')).length > 0, 'the refusal past the limit is audited');
    // A valid token is never checked against the counters: it still gets in from the same address.
    assert.equal((await get(token)).status, 200);
  });
});

if (sshdHere)
  describe('the SSH door refuses ways back into the client: agent and X11 forwarding, remote forwards (-R)', () => {
    let scene: SshScene;

    before(async () => {
      // A role that allows port forwarding, so what is refused is refused as a way back, not for lack of a grant.
      scene = await startSshScene(
        {},
        { server: 'web-1', role: 'ssh-fwd', user: 'forwarder', options: { port_forwarding: true } },
      );
    });
    after(async () => {
      await scene?.stop();
    });

    test('each is refused by the proxy; an exec on the same connection runs (positive control)', async () => {
      const client = new ssh2.Client();
      await new Promise<void>((resolve, reject) => {
        client.once('ready', () => resolve()).once('error', reject);
        client.connect({
          host: '127.0.0.1',
          port: scene.gh.gatehouse.sshAddr?.port as number,
          username: `${scene.sshd.login}@web-1`,
          password: scene.token,
          // The agent forwarding request needs an agent to name; it is never reached.
          agent: '/nonexistent/agent.sock',
          readyTimeout: 30_000,
        });
      });
      try {
        // ssh2 sends the agent request with agentForward (its types omit the option).
        const exec = (cmd: string, opts: ssh2.ExecOptions & { agentForward?: boolean }) =>
          new Promise<{ error?: Error; out: string }>((resolve) => {
            client.exec(cmd, opts, (error, stream) => {
              if (error) return resolve({ error, out: '' });
              let out = '';
              stream.on('data', (d: Buffer) => {
                out += d.toString();
              });
              stream.stderr.resume();
              stream.on('close', () => resolve({ out }));
            });
          });
        const agent = await exec('echo agent', { agentForward: true });
        assert.match(String(agent.error?.message), /agent forwarding/i);
        const x11 = await exec('echo x11', { x11: true });
        assert.match(String(x11.error?.message), /X11/i);
        const remote = await new Promise<Error | undefined>((resolve) =>
          client.forwardIn('127.0.0.1', 0, (error) => resolve(error ?? undefined)),
        );
        assert.ok(remote, 'the remote forward (-R) was refused');
        const plain = await exec('echo plain', {});
        assert.equal(plain.error, undefined);
        assert.equal(plain.out, 'plain\n');
      } finally {
        client.end();
      }
    });
  });

if (postgresHere)
  describe('the PostgreSQL door bounds the startup message', () => {
    let gh: TestServer;
    before(async () => {
      // A long handshake deadline, so only the size bound (not the deadline) can end the connection.
      gh = await startTestServer({ 'proxy.handshake_timeout': '2m' });
    });
    after(async () => {
      await gh?.stop();
    });

    test('a startup packet announcing 1 MiB is refused as soon as its length is read; a normal one is served', async () => {
      const port = gh.gatehouse.dbAddr?.port as number;
      const socket = connect(port, '127.0.0.1');
      const head = Buffer.alloc(8);
      head.writeInt32BE(1024 * 1024, 0); // the length, beyond the 64 KiB bound
      head.writeInt32BE(196608, 4); // protocol 3.0
      socket.write(head);
      socket.resume();
      const closed = await Promise.race([
        new Promise<boolean>((resolve) => socket.once('close', () => resolve(true))),
        sleep(30_000).then(() => false),
      ]);
      socket.destroy();
      assert.ok(closed, 'the proxy closed the connection without waiting for the announced megabyte');
      // Positive control: the door still answers a client (the password is wrong, so it says so).
      const answer = await psql(through(port, 'postgres', 'pg', 'test'), 'gha_not-a-token', ['-c', 'select 1']);
      assert.match(answer.stderr, /not a valid Gatehouse access token or ticket/);
    });
  });
