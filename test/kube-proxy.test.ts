// The Kubernetes proxy end to end with real parts: the real kubectl (1.33, and 1.29 for the SPDY
// refusal) with the kubeconfig the API issues, through Gatehouse's TLS listener, to a faithful fake
// API server (test/helpers/fake-kube-apiserver.ts) that checks the upstream token and honours the
// impersonation it receives. What is asserted is what a user and an auditor see: kubectl's exit
// codes and output, the identity the cluster saw, kube.request events, sessions and recordings.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { keys } from '../src/auth/records.js';
import { createKubeCa } from '../src/kube/kube-ca.js';
import { type FakeKube, startFakeKube } from './helpers/fake-kube-apiserver.js';
import { kubectl } from './helpers/fake-kube-apiserver-kubectl.js';
import { startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';
import { kubeClusterClient } from './helpers/kube-cluster.js';
import { until } from './helpers/until.js';

let gh: TestServer;
let fake: FakeKube;
let clusterId: string;
let alice: Awaited<ReturnType<typeof userWithRoles>>;
let bob: Awaited<ReturnType<typeof userWithRoles>>;
const { admin, as, events, registerCluster, kubeconfigFor, removeHome } = kubeClusterClient(() => gh, 'kube-test-');

before(async () => {
  fake = await startFakeKube({ rbac: { 'dev-team': ['default', 'dev'] } });
  gh = await startTestServer();
  clusterId = await registerCluster(fake, 'dev-cluster', { labels: { env: 'dev' } });
  for (const [name, env] of [
    ['kube-dev', 'dev'],
    ['kube-prod', 'prod'],
  ] as const) {
    const role = await admin('POST', '/v1/roles', {
      name,
      allow: {
        rules: [{ resources: ['resources'], verbs: ['list', 'read'] }],
        resources: [{ kinds: ['kube_cluster'], labels: { env } }],
        kube_groups: ['dev-team', 'team-*'],
      },
    });
    assert.equal(role.status, 201, role.text);
  }
  alice = await userWithRoles(gh, 'alice', ['kube-dev']);
  bob = await userWithRoles(gh, 'bob', ['kube-prod']);
});

after(async () => {
  await gh?.stop();
  await fake?.close();
  removeHome();
});

describe('kube_cluster resources', () => {
  test('the upstream token is sealed at rest and never answered; responses say which credential is set', async () => {
    const got = await admin('GET', `/v1/resources/${clusterId}`);
    assert.equal(got.status, 200);
    assert.equal(got.json.kind, 'kube_cluster');
    assert.equal(got.json.kube.credential, 'token');
    assert.match(got.json.kube.ca_fingerprint, /^[0-9A-F]{2}(:[0-9A-F]{2}){31}$/);
    assert.ok(!got.text.includes(fake.token));
    const secret = gh.gatehouse.services.state.get<Record<string, string>>(keys.kubeSecret(clusterId))?.value;
    assert.ok(secret?.token_sealed, 'a sealed token is stored');
    assert.ok(!JSON.stringify(secret).includes(fake.token), 'not in the clear');
    for (const file of ['state.db', 'state.db-wal']) {
      let bytes = '';
      try {
        bytes = readFileSync(join(gh.dataDir, file)).toString('latin1');
      } catch {
        continue;
      }
      assert.ok(!bytes.includes(fake.token), `${file} holds the token in the clear`);
    }
  });

  test('bad registrations are 400s naming the field (with a valid one as control)', async () => {
    const base = { kind: 'kube_cluster', address: fake.url, kube: { ca_pem: fake.caPem, token: 't' } };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...base, kube: undefined }, '/body/kube'],
      [{ ...base, address: '127.0.0.1:6443' }, '/body/address'],
      [{ ...base, kube: { ca_pem: '-----BEGIN CERTIFICATE-----\nnope\n', token: 't' } }, '/body/kube/ca_pem'],
      [{ ...base, kube: { ca_pem: fake.caPem } }, '/body/kube'],
      [{ ...base, kube: { ca_pem: fake.caPem, token: 't', client_key_pem: '-----BEGIN KEY-----' } }, '/body/kube'],
      [{ ...base, kube: { ca_pem: fake.caPem, token: 't', extra: 1 } }, '/body/kube'],
      [{ kind: 'server', address: fake.url }, '/body/address'],
    ];
    for (const [body, path] of cases) {
      const res = await admin('POST', '/v1/resources', {
        name: `bad-${Math.random().toString(36).slice(2, 8)}`,
        ...body,
      });
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
      assert.ok(
        (res.json.errors as Array<{ path: string }>).some((e) => e.path.startsWith(path)),
        `${path}: ${res.text}`,
      );
    }
    const ok = await admin('POST', '/v1/resources', { name: 'control-cluster', ...base });
    assert.equal(ok.status, 201, ok.text);
  });
});

describe('kubeconfig', () => {
  test('a caller who may see the cluster gets a kubeconfig pinned to the proxy CA with a token of its own', async () => {
    const kc = await kubeconfigFor(alice.token, 'alice');
    const port = gh.gatehouse.kubeAddr?.port;
    assert.ok(kc.yaml.includes(`server: https://127.0.0.1:${port}/clusters/${clusterId}`), kc.yaml);
    assert.ok(kc.yaml.includes('certificate-authority-data: '));
    const token = /token: (gha_\S+)/.exec(kc.yaml)?.[1];
    assert.ok(token && token !== alice.token, 'a new token, not the login one');
    const issued = (await events('kube.kubeconfig.issued')).find((e) => e.actor.name === 'alice');
    assert.equal(issued?.target?.id, clusterId);
    assert.ok(!JSON.stringify(issued).includes(token), 'the token never enters an event');
  });

  test('a cluster the caller may not see answers 404 (bob sees prod only); alice is the control', async () => {
    const res = await as(bob.token, 'GET', `/v1/resources/${clusterId}/kubeconfig`);
    assert.equal(res.status, 404, res.text);
    assert.equal((await as(alice.token, 'GET', `/v1/resources/${clusterId}/kubeconfig`)).status, 200);
  });
});

describe('kubectl through the proxy', () => {
  test('get pods: the cluster sees alice with her kube_groups (globs dropped), and a kube.request event says so', async () => {
    const kc = await kubeconfigFor(alice.token, 'alice');
    const before = fake.seen.length;
    const run = await kubectl(['get', 'pods'], kc);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^NAME\s+STATUS\nweb-1\s+Running\n$/);
    const seen = fake.seen.slice(before).find((s) => s.path.startsWith('/api/v1/namespaces/default/pods'));
    assert.equal(seen?.impersonateUser, 'gatehouse:user:alice', 'a name in Gatehouse’s namespace, not one she chose');
    assert.deepEqual(seen?.impersonateGroups, ['dev-team']);
    // Answered requests' events are appended in batches (every 50 ms): wait for it.
    const event = await until('the kube.request of the list', async () =>
      (await events('kube.request')).find(
        (e) => e.data.verb === 'list' && e.data.namespace === 'default' && e.actor.name === 'alice',
      ),
    );
    assert.ok(event, 'kube.request for the list');
    assert.equal(event.success, true);
    assert.deepEqual(
      { resource: event.data.resource, code: event.data.response_code, user: event.data.kube_user },
      { resource: 'pods', code: 200, user: 'gatehouse:user:alice' },
    );
    assert.equal(typeof event.data.duration_ms, 'number');
    assert.ok(!(await events('kube.request')).some((e) => e.data.path === '/api'), 'discovery is not logged');
  });

  test('a namespace her groups do not reach is the cluster’s Forbidden; dev is the control', async () => {
    const kc = await kubeconfigFor(alice.token, 'alice');
    const refused = await kubectl(['get', 'pods', '-n', 'prod'], kc);
    assert.equal(refused.code, 1);
    assert.match(
      refused.stderr,
      /Error from server \(Forbidden\): pods is forbidden: User "gatehouse:user:alice" cannot list .* "prod"/,
    );
    const allowed = await kubectl(['get', 'pods', '-n', 'dev', '-o', 'name'], kc);
    assert.equal(allowed.code, 0, allowed.stderr);
    assert.equal(allowed.stdout, 'pod/api-1\n');
  });

  test('--as system:admin is refused by the proxy (403, event) and never reaches the cluster', async () => {
    const kc = await kubeconfigFor(alice.token, 'alice');
    // Control first (it also fills kubectl's discovery cache, so the refusal below is of the list itself).
    assert.equal((await kubectl(['get', 'pods', '-o', 'name'], kc)).code, 0);
    const run = await kubectl(['get', 'pods', '--as', 'system:admin', '--as-group', 'system:masters'], kc);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /Forbidden.*impersonation is set by Gatehouse/);
    assert.ok(
      !fake.seen.some((s) => s.impersonateUser === 'system:admin' || s.impersonateGroups.includes('system:masters')),
    );
    const refusal = (await events('kube.request')).find(
      (e) => !e.success && String(e.data.reason).includes('impersonation'),
    );
    assert.equal(refusal?.data.response_code, 403);
  });

  test('a principal who may not see the cluster gets NotFound from the proxy, even with a valid token', async () => {
    const kc = await kubeconfigFor(alice.token, 'alice');
    const bobs = join(kc.home, 'bob-config');
    writeFileSync(bobs, kc.yaml.replace(/token: \S+/, `token: ${bob.token}`));
    const run = await kubectl(['get', '--raw', `/clusters/${clusterId}/api/v1/namespaces/default/pods`], {
      kubeconfig: bobs,
      home: kc.home,
    });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /NotFound.*no kube_cluster .* that bob may reach/);
  });

  test('revoking the login the kubeconfig came from locks kubectl out', async () => {
    const carol = await userWithRoles(gh, 'carol', ['kube-dev']);
    const kc = await kubeconfigFor(carol.token, 'carol');
    assert.equal((await kubectl(['get', 'pods', '-o', 'name'], kc)).code, 0, 'control: works before');
    assert.equal((await as(carol.token, 'DELETE', '/v1/auth/revoke')).status, 200);
    const run = await kubectl(['get', 'pods'], kc);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /Unauthorized|must be logged in/);
  });

  test('garbage reaches no handler: Status JSON with 401/404, never a 500', async () => {
    const port = gh.gatehouse.kubeAddr?.port as number;
    const ca = (await kubeconfigFor(alice.token, 'alice')).yaml.match(
      /certificate-authority-data: (\S+)/,
    )?.[1] as string;
    const get = (path: string, headers: Record<string, string> = {}) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, path, headers, ca: Buffer.from(ca, 'base64') }, (res) => {
          let body = '';
          res.on('data', (d: Buffer) => {
            body += d.toString();
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        });
        req.on('error', reject);
        req.end();
      });
    for (const [path, headers, status] of [
      ['/', {}, 404],
      ['/clusters/%00%ff/api', {}, 404],
      [`/clusters/${clusterId}/api/v1/pods`, {}, 401],
      [`/clusters/${clusterId}/api/v1/pods`, { authorization: 'Bearer gha_nope' }, 401],
      [`/clusters/${clusterId}/api/v1/pods`, { authorization: `Bearer ${'x'.repeat(5000)}` }, 401],
    ] as const) {
      const res = await get(path, headers);
      assert.equal(res.status, status, `${path}: ${res.body}`);
      assert.equal(JSON.parse(res.body).kind, 'Status');
    }
  });
});

describe('upstream credential', () => {
  test('a cluster whose CA does not match is never reached (502); PATCH kube rotates CA and token in place', async () => {
    const created = await admin('POST', '/v1/resources', {
      kind: 'kube_cluster',
      name: 'rotating-cluster',
      address: fake.url,
      labels: { env: 'dev' },
      kube: { ca_pem: createKubeCa().certPem, token: fake.token },
    });
    assert.equal(created.status, 201, created.text);
    const id = created.json.id as string;
    const kc = await kubeconfigFor(alice.token, 'rotating', id);

    const before = fake.seen.length;
    const foreign = await kubectl(['get', 'pods'], kc);
    assert.equal(foreign.code, 1);
    assert.match(foreign.stderr, /gatehouse: cannot reach the cluster's API server \(.*certificate/);
    assert.equal(fake.seen.length, before, 'the API server under a CA not given was never sent the request');

    const rotated = await admin('PATCH', `/v1/resources/${id}`, { kube: { ca_pem: fake.caPem, token: fake.token } });
    assert.equal(rotated.status, 200, rotated.text);
    assert.equal(rotated.json.kube.credential, 'token');
    assert.ok(!rotated.text.includes(fake.token), 'the token is never answered');
    const ok = await kubectl(['get', 'pods', '-o', 'name'], kc);
    assert.deepEqual([ok.code, ok.stdout], [0, 'pod/web-1\n'], ok.stderr);

    // A new token takes effect on the next request, though the connection with the old one is open.
    const wrongToken = await admin('PATCH', `/v1/resources/${id}`, {
      kube: { ca_pem: fake.caPem, token: 'revoked-token' },
    });
    assert.equal(wrongToken.status, 200, wrongToken.text);
    const refused = await kubectl(['get', 'pods', '-o', 'name'], kc);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /Unauthorized/);
    const updated = (await events('resource.updated')).find((e) => e.target?.id === id);
    assert.deepEqual(updated?.data.changed, ['kube']);
    assert.equal((await admin('DELETE', `/v1/resources/${id}`)).status, 204);
  });
});

describe('request bodies', () => {
  /** A DELETE with its DeleteOptions streamed (a length, no pre-read), as kubectl delete sends it. */
  const deleteWithBody = async (id: string, name: string): Promise<{ status: number; body: string }> => {
    const { yaml } = await kubeconfigFor(alice.token, `body-${id}`, id);
    const token = /token: (\S+)/.exec(yaml)?.[1] as string;
    const ca = Buffer.from(/certificate-authority-data: (\S+)/.exec(yaml)?.[1] as string, 'base64');
    const port = gh.gatehouse.kubeAddr?.port as number;
    const body = JSON.stringify({ kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background' });
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          method: 'DELETE',
          path: `/clusters/${id}/api/v1/namespaces/default/pods/${name}`,
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
          },
          ca,
        },
        (res) => {
          let text = '';
          res.on('data', (d: Buffer) => {
            text += d.toString();
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  };

  test('a streamed body reaches the API server; to an unreachable one the client still hears 502, not a reset', async () => {
    const before = fake.seen.length;
    const missing = await deleteWithBody(clusterId, 'no-such-pod');
    assert.equal(missing.status, 404, missing.body);
    assert.match(JSON.parse(missing.body).message, /pods "no-such-pod" not found/, 'the API server answered');
    assert.equal(fake.seen.at(-1)?.method, 'DELETE');
    assert.ok(fake.seen.length > before);

    const created = await admin('POST', '/v1/resources', {
      kind: 'kube_cluster',
      name: 'untrusted-body-cluster',
      address: fake.url,
      labels: { env: 'dev' },
      kube: { ca_pem: createKubeCa().certPem, token: fake.token },
    });
    assert.equal(created.status, 201, created.text);
    const untrusted = await deleteWithBody(created.json.id as string, 'web-1');
    assert.equal(untrusted.status, 502, untrusted.body);
    assert.match(JSON.parse(untrusted.body).message, /cannot reach the cluster's API server \(.*certificate/);
    assert.equal((await admin('DELETE', `/v1/resources/${created.json.id}`)).status, 204);
  });
});

describe('kubectl exec', () => {
  const sessionOf = async (command: string) =>
    until(`the session of ${command}`, async () => {
      const list = await admin('GET', '/v1/sessions?per_page=100');
      return (list.json.sessions as Array<Record<string, unknown>>).find((s) => String(s.command).endsWith(command));
    });

  test('a command: output, exit code, a recorded kube session with its events', async () => {
    const kc = await kubeconfigFor(alice.token, 'alice');
    const ok = await kubectl(['exec', 'web-1', '--', 'echo', 'hello', 'from', 'pod'], kc);
    assert.deepEqual([ok.code, ok.stdout], [0, 'hello from pod\n'], ok.stderr);
    const failed = await kubectl(['exec', 'web-1', '--', 'fail', '3'], kc);
    assert.equal(failed.code, 3, failed.stderr);
    assert.match(failed.stderr, /failing with 3/);
    const session = await until('the session to end', async () => {
      const s = await sessionOf('default/web-1: fail 3');
      return s.status === 'ended' ? s : undefined;
    });
    assert.deepEqual(
      [session.kind, session.type, session.login, session.exit_code, (session.resource as { id: string }).id],
      ['kube', 'exec', 'gatehouse:user:alice', 3, clusterId],
    );
    const cast = await until('the recording', async () => {
      const r = await admin('GET', `/v1/sessions/${session.id}/recording`);
      return r.status === 200 ? r.text : undefined;
    });
    const lines = cast.trim().split('\n');
    assert.equal(JSON.parse(lines[0] as string).version, 2);
    assert.ok(
      lines.slice(1).some((l) => JSON.parse(l)[2] === 'failing with 3\n'),
      cast,
    );
    const start = (await events('session.start')).find((e) => e.session_id === session.id);
    assert.equal(start?.actor.name, 'alice');
    assert.equal(start?.target?.kind, 'kube_cluster');
    const end = (await events('session.end')).find((e) => e.session_id === session.id);
    assert.equal(end?.data.exit_code, 3);
  });

  test('stdin reaches the pod and closes it (v5 close signal): cat echoes and exits 0', async () => {
    const kc = await kubeconfigFor(alice.token, 'alice');
    const run = await kubectl(['exec', '-i', 'web-1', '--', 'cat'], { ...kc, stdin: 'line one\nline two\n' });
    assert.deepEqual([run.code, run.stdout], [0, 'line one\nline two\n'], run.stderr);
    const session = await until('the cat session to end', async () => {
      const s = await sessionOf('default/web-1: cat');
      return s.status === 'ended' ? s : undefined;
    });
    assert.equal(session.bytes_in, 18);
    assert.equal(session.bytes_out, 18);
  });

  test('exec into a namespace the groups do not reach is the cluster’s Forbidden, and no session starts', async () => {
    const kc = await kubeconfigFor(alice.token, 'alice');
    const run = await kubectl(['exec', '-n', 'prod', 'db-1', '--', 'echo', 'x'], kc);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /Forbidden/);
    const sessions = (await admin('GET', '/v1/sessions?per_page=100')).json.sessions as Array<{ command?: string }>;
    assert.ok(!sessions.some((s) => s.command?.startsWith('prod/')));
  });

  test('terminated through the API: kubectl is told and exits non-zero, the session says terminated', async () => {
    const kc = await kubeconfigFor(alice.token, 'alice');
    const running = kubectl(['exec', 'web-1', '--', 'sleep'], kc);
    const session = await until('the sleep session to be live', async () => {
      const s = await sessionOf('default/web-1: sleep');
      return s.status === 'active' ? s : undefined;
    });
    assert.equal(fake.openExecs(), 1);
    assert.equal((await admin('DELETE', `/v1/sessions/${session.id}`)).status, 200);
    const run = await running;
    assert.notEqual(run.code, 0);
    assert.match(run.stderr, /session terminated/);
    const ended = await until('the record to end', async () => {
      const s = (await admin('GET', `/v1/sessions/${session.id}`)).json;
      return s.ended_at ? s : undefined;
    });
    assert.equal(ended.status, 'terminated');
    await until('the upstream exec to close', async () => (fake.openExecs() === 0 ? true : undefined));
  });

  test('kubectl 1.29 (SPDY only) is refused with a message naming the kubectl that works; 1.33 is the control', async () => {
    const kc = await kubeconfigFor(alice.token, 'alice');
    const old = await kubectl(['exec', 'web-1', '--', 'echo', 'old'], { ...kc, minor: 29 });
    assert.equal(old.code, 1);
    assert.match(old.stderr, /cannot be recorded.*kubectl 1\.30 or newer/);
    const refusal = (await events('kube.request')).find((e) => !e.success && e.data.subresource === 'exec');
    assert.equal(refusal?.data.response_code, 403);
    const current = await kubectl(['exec', 'web-1', '--', 'echo', 'new'], kc);
    assert.deepEqual([current.code, current.stdout], [0, 'new\n'], current.stderr);
  });
});
