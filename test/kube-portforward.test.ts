// kubectl port-forward through the Kubernetes proxy, end to end: the real kubectl (1.30 upgrades to
// SPDY, ≥ 1.31 tunnels the same SPDY in a WebSocket) forwards a local port through Gatehouse to the
// fake API server, which joins each forwarded connection to a TCP echo server standing for the
// pod's port, as the kubelet does. Checked as the user sees it (the bytes come back), as the cluster
// sees it (the impersonated user and groups) and as the auditor does (the kube.request event); a
// role without options.port_forwarding is refused before anything reaches the cluster.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { type AddressInfo, connect, createServer, type Server } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { connect as tlsConnect } from 'node:tls';
import { type FakeKube, startFakeKube } from './helpers/fake-kube-apiserver.js';
import { kubectl } from './helpers/fake-kube-apiserver-kubectl.js';
import { startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';
import { kubeClusterClient, SEE } from './helpers/kube-cluster.js';
import { until } from './helpers/until.js';

let gh: TestServer;
let fake: FakeKube;
let echo: Server;
let echoPort: number;
let clusterId: string;
const { admin, as, events, registerCluster, kubeconfigFor, removeHome } = kubeClusterClient(() => gh, 'kube-pf-');

/** Sends `payload` to 127.0.0.1:port and resolves with what came back once as many bytes did. */
function roundTrip(port: number, payload: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const socket = connect(port, '127.0.0.1', () => socket.write(payload));
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      received += c.length;
      if (received >= payload.length) {
        socket.end();
        resolve(Buffer.concat(chunks));
      }
    });
    socket.on('error', reject);
    socket.on('close', () => reject(new Error(`connection closed after ${received} of ${payload.length} bytes`)));
  });
}

before(async () => {
  echo = createServer((socket) => socket.pipe(socket));
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
  echoPort = (echo.address() as AddressInfo).port;
  fake = await startFakeKube({
    rbac: { ops: '*' },
    pods: [
      ['default', 'web-1'],
      ['default', 'silent-1'],
    ],
  });
  gh = await startTestServer();
  clusterId = await registerCluster(fake, 'pf-cluster');
  for (const role of [
    { name: 'kube-pf', allow: { ...SEE, kube_groups: ['ops'] }, options: { port_forwarding: true } },
    { name: 'kube-no-pf', allow: { ...SEE, kube_groups: ['ops'] } },
    // port_forwarding, and kube_resources that reach pods in default for reading only, or also for
    // port-forward: the verb is checked like any other.
    {
      name: 'pf-read-only',
      allow: { ...SEE, kube_groups: ['ops'], kube_resources: [{ kind: 'pods', namespace: 'default', verbs: ['get'] }] },
      options: { port_forwarding: true },
    },
    {
      name: 'pf-verb',
      allow: {
        ...SEE,
        kube_groups: ['ops'],
        kube_resources: [{ kind: 'pods', namespace: 'default', verbs: ['get', 'portforward'] }],
      },
      options: { port_forwarding: true },
    },
  ]) {
    const res = await admin('POST', '/v1/roles', role);
    assert.equal(res.status, 201, res.text);
  }
});

after(async () => {
  await gh?.stop();
  await fake?.close();
  echo?.close();
  removeHome();
});

describe('kubectl port-forward', () => {
  for (const [minor, transport] of [
    [30, 'spdy'],
    [31, 'websocket'],
    [33, 'websocket'],
  ] as const) {
    test(`kubectl 1.${minor} (${transport}): bytes reach the pod's port and come back; the cluster sees the role's identity; an event`, async () => {
      const user = await userWithRoles(gh, `pat${minor}`, ['kube-pf']);
      let local = 0;
      const run = kubectl(['port-forward', 'pod/web-1', `:${echoPort}`], {
        ...(await kubeconfigFor(user.token, `pat${minor}`)),
        minor,
        timeoutMs: 60_000,
        onStdout: (out) => {
          local = Number(/Forwarding from 127\.0\.0\.1:(\d+) ->/.exec(out)?.[1] ?? 0);
        },
      });
      try {
        await until('kubectl to listen', async () => local || undefined);
        // Two connections in turn, one of 1 MiB: a stream per connection, and more than any window.
        const small = Buffer.from(`hello from kubectl 1.${minor}\n`);
        assert.deepEqual(await roundTrip(local, small), small);
        const big = randomBytes(1 << 20);
        assert.ok((await roundTrip(local, big)).equals(big), 'the 1 MiB came back unchanged');
      } finally {
        run.kill();
      }
      const result = await run;
      const mine = fake.forwarded.filter((f) => f.user === `gatehouse:user:pat${minor}`);
      assert.deepEqual(
        mine.map((f) => [f.pod, f.port, f.transport]),
        [
          ['default/web-1', echoPort, transport],
          ['default/web-1', echoPort, transport],
        ],
        result.stderr,
      );
      const upgrades = fake.seen.filter((s) => s.path.startsWith('/api/v1/namespaces/default/pods/web-1/portforward'));
      const seen = upgrades.filter((s) => s.user === `gatehouse:user:pat${minor}`);
      assert.equal(seen.length, 1, 'one upgrade, no fallback');
      assert.deepEqual([seen[0]?.impersonateUser, seen[0]?.impersonateGroups], [`gatehouse:user:pat${minor}`, ['ops']]);
      const event = await until('the port-forward event', async () =>
        (await events('kube.request')).find(
          (e) => e.data.subresource === 'portforward' && e.actor.name === `pat${minor}`,
        ),
      );
      assert.deepEqual(
        [event.success, event.data.response_code, event.data.namespace, event.data.name, event.data.kube_user],
        [true, 101, 'default', 'web-1', `gatehouse:user:pat${minor}`],
      );
      assert.deepEqual(event.data.kube_groups, ['ops']);
    });
  }

  test('a connection to a port nothing listens on: kubectl is told by the kubelet’s error stream', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const deadPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const user = await userWithRoles(gh, 'pat-dead', ['kube-pf']);
    let local = 0;
    const run = kubectl(['port-forward', 'pod/web-1', `:${deadPort}`], {
      ...(await kubeconfigFor(user.token, 'pat-dead')),
      timeoutMs: 20_000,
      onStdout: (out) => {
        local = Number(/Forwarding from 127\.0\.0\.1:(\d+) ->/.exec(out)?.[1] ?? 0);
      },
    });
    await until('kubectl to listen', async () => local || undefined);
    await roundTrip(local, Buffer.from('x')).catch(() => undefined);
    // kubectl prints the error stream's message and gives up on the pod (or is stopped at 20 s).
    const done = await run;
    assert.match(done.stderr, new RegExp(`error forwarding port ${deadPort} to pod default/web-1`));
  });

  test('a role without options.port_forwarding is refused with a Status, nothing reaches the cluster; with it, the control', async () => {
    const rob = await userWithRoles(gh, 'rob', ['kube-no-pf']);
    const before = fake.forwarded.length;
    const refused = await kubectl(['port-forward', 'pod/web-1', `:${echoPort}`], {
      ...(await kubeconfigFor(rob.token, 'rob')),
      timeoutMs: 30_000,
    });
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /port-forward needs a role with options.port_forwarding; rob has none/);
    assert.doesNotMatch(refused.stdout, /Forwarding from/);
    assert.equal(fake.forwarded.length, before);
    assert.ok(
      !fake.seen.some((s) => s.user === 'gatehouse:user:rob' && s.path.includes('/portforward')),
      'never reached the cluster',
    );
    const refusals = (await events('kube.request')).filter(
      (e) => e.data.subresource === 'portforward' && e.actor.name === 'rob',
    );
    assert.ok(refusals.length >= 1);
    assert.ok(refusals.every((e) => !e.success && e.data.response_code === 403));

    // The control: the same command, kubectl and pod for a user whose role has the option.
    await expectForwarding('pat-control', ['kube-pf']);
  });

  test('kube_resources without the portforward verb refuse it (Gatehouse’s Status, nothing upstream); with the verb, the control', async () => {
    const ro = await userWithRoles(gh, 'reader', ['pf-read-only']);
    const refused = await kubectl(['port-forward', 'pod/web-1', `:${echoPort}`], {
      ...(await kubeconfigFor(ro.token, 'reader')),
      timeoutMs: 30_000,
    });
    assert.notEqual(refused.code, 0);
    assert.match(
      refused.stderr,
      /gatehouse: reader may not portforward pods web-1 in namespace default \(kube_resources\)/,
    );
    assert.ok(
      !fake.seen.some((s) => s.user === 'gatehouse:user:reader' && s.path.includes('/portforward')),
      'never reached the cluster',
    );
    assert.ok(!fake.forwarded.some((f) => f.user === 'gatehouse:user:reader'));
    await expectForwarding('forwarder', ['pf-verb']);
  });
});

describe('the upgrade itself', () => {
  test('a client that leaves before the API server answers still gets its kube.request event (499), and the upstream leg is closed', async () => {
    const user = await userWithRoles(gh, 'quitter', ['kube-pf']);
    const config = (await as(user.token, 'GET', `/v1/resources/${clusterId}/kubeconfig`)).text;
    const server = new URL(/server: (\S+)/.exec(config)?.[1] ?? '');
    const ca = Buffer.from(/certificate-authority-data: (\S+)/.exec(config)?.[1] ?? '', 'base64').toString();
    const token = /token: (\S+)/.exec(config)?.[1] ?? '';
    const client = tlsConnect({ host: server.hostname, port: Number(server.port), ca });
    await once(client, 'secureConnect');
    client.write(
      `POST ${server.pathname}/api/v1/namespaces/default/pods/silent-1/portforward HTTP/1.1\r\nhost: ${server.host}\r\n` +
        `authorization: Bearer ${token}\r\nconnection: Upgrade\r\nupgrade: SPDY/3.1\r\n` +
        'x-stream-protocol-version: portforward.k8s.io\r\ncontent-length: 0\r\n\r\n',
    );
    await until('the upgrade to reach the cluster', async () =>
      fake.seen.find((s) => s.user === 'gatehouse:user:quitter' && s.path.includes('/pods/silent-1/portforward')),
    );
    client.destroy();
    const event = await until('the event of the abandoned upgrade', async () =>
      (await events('kube.request')).find((e) => e.actor.name === 'quitter' && e.data.subresource === 'portforward'),
    );
    assert.deepEqual([event.success, event.data.name, event.data.response_code], [false, 'silent-1', 499]);
    await until('the API server to see the upstream leg close', async () =>
      fake.heldUpgrades() === 0 ? true : undefined,
    );
  });
});

describe('a port-forward is a live session', () => {
  test('listed while open (type port_forward, not recorded), ended by DELETE /v1/sessions/{id}: the tunnel closes', async () => {
    const user = await userWithRoles(gh, 'pat-session', ['kube-pf']);
    let local = 0;
    const run = kubectl(['port-forward', 'pod/web-1', `:${echoPort}`], {
      ...(await kubeconfigFor(user.token, 'pat-session')),
      timeoutMs: 60_000,
      onStdout: (out) => {
        local = Number(/Forwarding from 127\.0\.0\.1:(\d+) ->/.exec(out)?.[1] ?? 0);
      },
    });
    try {
      await until('kubectl to listen', async () => local || undefined);
      const hello = Buffer.from('before the end\n');
      assert.deepEqual(await roundTrip(local, hello), hello, 'control: the tunnel carries bytes');
      const live = await until('the live session', async () =>
        (await admin('GET', '/v1/sessions?status=active&per_page=100')).json.sessions.find(
          (x: { principal: { id: string } }) => x.principal.id === user.id,
        ),
      );
      assert.deepEqual(
        [live.kind, live.type, live.recording.status, live.login, live.resource.name, live.command],
        ['kube', 'port_forward', 'none', 'gatehouse:user:pat-session', 'pf-cluster', 'default/web-1: port-forward'],
      );
      // The type filter finds it, and another type does not (its control).
      const byType = async (type: string) =>
        (await admin('GET', `/v1/sessions?status=active&type=${type}&per_page=100`)).json.sessions.map(
          (x: { id: string }) => x.id,
        );
      assert.ok((await byType('port_forward')).includes(live.id));
      assert.ok(!(await byType('exec')).includes(live.id));
      const ended = await admin('DELETE', `/v1/sessions/${live.id}`);
      assert.equal(ended.status, 200, ended.text);
      // The tunnel is gone: kubectl can no longer reach the pod's port through it.
      await until('the forwarded port to stop carrying bytes', async () =>
        (await roundTrip(local, Buffer.from('after the end\n')).then(
          () => false,
          () => true,
        ))
          ? true
          : undefined,
      );
      const record = await until('the session record to say terminated, with its counters', async () => {
        const r = (await admin('GET', `/v1/sessions/${live.id}`)).json;
        return r.status === 'terminated' && r.ended_at ? r : undefined;
      });
      assert.ok(record.bytes_in >= hello.length && record.bytes_out >= hello.length, JSON.stringify(record));
      const started = (await events('session.start')).find((e) => e.actor.name === 'pat-session');
      assert.equal(started?.data.type, 'port_forward');
    } finally {
      run.kill();
      await run;
    }
  });

  test('an open port-forward ends within a second when the user loses port_forwarding; one whose roles keep it goes on', async () => {
    /** A running kubectl port-forward of a new user, once bytes come back through it. */
    const forwarding = async (name: string) => {
      const user = await userWithRoles(gh, name, ['kube-pf']);
      let local = 0;
      const run = kubectl(['port-forward', 'pod/web-1', `:${echoPort}`], {
        ...(await kubeconfigFor(user.token, name)),
        timeoutMs: 60_000,
        onStdout: (out) => {
          local = Number(/Forwarding from 127\.0\.0\.1:(\d+) ->/.exec(out)?.[1] ?? 0);
        },
      });
      await until('kubectl to listen', async () => local || undefined);
      assert.deepEqual(await roundTrip(local, Buffer.from('hello\n')), Buffer.from('hello\n'));
      const live = await until(
        `${name}'s live session`,
        async () => (await admin('GET', `/v1/sessions?status=active&principal=${user.id}`)).json.sessions[0],
      );
      return { user, run, local, session: live as { id: string } };
    };
    const lost = await forwarding('pf-lost');
    const kept = await forwarding('pf-kept');
    try {
      const keep = await admin('PATCH', `/v1/users/${kept.user.id}`, { roles: ['kube-pf', 'kube-no-pf'] });
      assert.equal(keep.status, 200, keep.text);
      const drop = await admin('PATCH', `/v1/users/${lost.user.id}`, { roles: ['kube-no-pf'] });
      assert.equal(drop.status, 200, drop.text);
      const since = Date.now();
      const ended = await until('the session to be terminated', async () => {
        const r = (await admin('GET', `/v1/sessions/${lost.session.id}`)).json;
        return r.status === 'active' ? undefined : r;
      });
      assert.equal(ended.status, 'terminated');
      assert.equal(ended.end_reason, 'access_revoked');
      assert.ok(Date.parse(ended.ended_at) - since <= 1000, 'terminated within a second');
      await assert.rejects(roundTrip(lost.local, Buffer.from('after\n')), 'the tunnel no longer carries bytes');
      const control = Buffer.from('still forwarding\n');
      assert.deepEqual(
        await roundTrip(kept.local, control),
        control,
        "positive control: pf-kept's roles still allow it",
      );
      assert.equal((await admin('GET', `/v1/sessions/${kept.session.id}`)).json.status, 'active');
    } finally {
      for (const { run } of [lost, kept]) {
        run.kill();
        await run;
      }
    }
  });
});

/** kubectl port-forward for a new user with these roles: bytes go to the echo server and back. */
async function expectForwarding(name: string, roles: string[]): Promise<void> {
  const user = await userWithRoles(gh, name, roles);
  let local = 0;
  const run = kubectl(['port-forward', 'pod/web-1', `:${echoPort}`], {
    ...(await kubeconfigFor(user.token, name)),
    timeoutMs: 30_000,
    onStdout: (out) => {
      local = Number(/Forwarding from 127\.0\.0\.1:(\d+) ->/.exec(out)?.[1] ?? 0);
    },
  });
  try {
    await until('kubectl to listen', async () => local || undefined);
    assert.deepEqual(await roundTrip(local, Buffer.from('control')), Buffer.from('control'));
  } finally {
    run.kill();
    await run;
  }
  assert.ok(fake.forwarded.some((f) => f.user === `gatehouse:user:${name}`));
}
