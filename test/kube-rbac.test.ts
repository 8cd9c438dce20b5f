// Role fields kube_resources and kube_users through the Kubernetes proxy with the real kubectl
// (options.port_forwarding is kube-portforward.test.ts's): what the role does not reach is refused
// by Gatehouse (a Kubernetes Status and a kube.request event) even where the cluster's own RBAC for
// the impersonated group would allow it, and lists are narrowed item by item. Agents get
// kubeconfigs bound to themselves; a delegated agent reaches only what the user reaches too;
// suspending an agent ends its exec.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type FakeKube, startFakeKube } from './helpers/fake-kube-apiserver.js';
import { kubectl } from './helpers/fake-kube-apiserver-kubectl.js';
import { api, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';
import { kubeClusterClient, SEE } from './helpers/kube-cluster.js';
import { until } from './helpers/until.js';

const EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
let gh: TestServer;
let fake: FakeKube;
let clusterId: string;
const { admin, as, home, events, registerCluster, kubeconfigFor, removeHome } = kubeClusterClient(
  () => gh,
  'kube-rbac-',
);

/** Pods named api-* in dev, every pod in default except secret-*; the group `ops` reaches all namespaces. */
const PODS_DEV = {
  name: 'pods-dev',
  allow: {
    ...SEE,
    kube_groups: ['ops'],
    kube_resources: [
      { kind: 'pods', namespace: 'dev', name: 'api-*', verbs: ['get', 'list', 'watch', 'exec'] },
      { kind: 'pods', namespace: 'default', verbs: ['*'] },
    ],
  },
  deny: { kube_resources: [{ kind: 'pods', namespace: 'default', name: 'secret-*', verbs: ['*'] }] },
};
let dana: { id: string; token: string };
/** Owns the agents: an agent reaches no more than its owner (admin's only kube group is system:masters). */
let owen: { id: string; token: string };
const newAgent = async (name: string) => {
  const agent = (await admin('POST', '/v1/agents', { name, roles: ['kube-all'], owner: owen.id })).json;
  assert.ok(agent.id, JSON.stringify(agent));
  const token = (await admin('POST', `/v1/agents/${agent.id}/credentials`, {})).json.access_token as string;
  return { id: agent.id as string, token };
};

before(async () => {
  fake = await startFakeKube({
    rbac: { ops: '*' },
    pods: [
      ['default', 'web-1'],
      ['default', 'secret-1'],
      ['dev', 'api-1'],
      ['dev', 'worker-1'],
      ['prod', 'db-1'],
    ],
  });
  gh = await startTestServer();
  clusterId = await registerCluster(fake, 'rbac-cluster');
  for (const role of [
    PODS_DEV,
    { name: 'kube-all', allow: { ...SEE, kube_groups: ['ops'] } },
    { name: 'kube-as-one', allow: { ...SEE, kube_groups: ['ops'], kube_users: ['deployer'] } },
    { name: 'kube-as-two', allow: { ...SEE, kube_groups: ['ops'], kube_users: ['reader', 'writer'] } },
    {
      name: 'pods-list-only',
      allow: {
        ...SEE,
        kube_groups: ['ops'],
        kube_resources: [{ kind: 'pods', namespace: 'dev', verbs: ['get', 'list'] }],
      },
    },
    // Two roles on two clusters, told apart by labels: each role's groups and rules are its own cluster's.
    {
      name: 'labeled-dev-view',
      allow: {
        ...SEE,
        resources: [{ kinds: ['kube_cluster'], labels: { env: 'dev' } }],
        kube_groups: ['ops'],
        kube_resources: [{ kind: 'pods', namespace: 'dev', verbs: ['get', 'list'] }],
      },
    },
    {
      name: 'labeled-lab-admin',
      allow: { ...SEE, resources: [{ kinds: ['kube_cluster'], labels: { env: 'lab' } }], kube_groups: ['lab-admins'] },
    },
  ]) {
    const res = await admin('POST', '/v1/roles', role);
    assert.equal(res.status, 201, res.text);
  }
  dana = await userWithRoles(gh, 'dana', ['pods-dev']);
  owen = await userWithRoles(gh, 'owen', ['kube-all']);
});

after(async () => {
  await gh?.stop();
  await fake?.close();
  removeHome();
});

describe('kube_resources', () => {
  test('a namespace the role does not reach is Gatehouse’s Forbidden though the group could; dev is the control', async () => {
    const kc = await kubeconfigFor(dana.token, 'dana');
    const before = fake.seen.length;
    const refused = await kubectl(['get', 'pods', '-n', 'prod'], kc);
    assert.equal(refused.code, 1);
    assert.match(
      refused.stderr,
      /Error from server \(Forbidden\): gatehouse: dana may not list pods in namespace prod \(kube_resources\)/,
    );
    assert.ok(!fake.seen.slice(before).some((s) => s.path.includes('/namespaces/prod/')), 'never reached the cluster');
    const event = (await events('kube.request')).find((e) => e.data.namespace === 'prod' && !e.success);
    assert.deepEqual(
      [event?.actor.name, event?.data.verb, event?.data.resource, event?.data.response_code],
      ['dana', 'list', 'pods', 403],
    );
    assert.match(String(event?.data.reason), /kube_resources/);
    const allowed = await kubectl(['get', 'pods', '-n', 'dev', '-o', 'name'], kc);
    assert.deepEqual([allowed.code, allowed.stdout], [0, 'pod/api-1\n'], allowed.stderr);
  });

  test('lists are narrowed: names outside the globs and denied names vanish, in every output form', async () => {
    const kc = await kubeconfigFor(dana.token, 'dana');
    assert.equal((await kubectl(['get', 'pods', '-o', 'name'], kc)).stdout, 'pod/web-1\n', 'secret-1 denied');
    const table = await kubectl(['get', 'pods', '-A'], kc);
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, /^NAMESPACE\s+NAME\s+STATUS\ndefault\s+web-1\s+Running\ndev\s+api-1\s+Running\n$/);
    const json = JSON.parse((await kubectl(['get', 'pods', '-A', '-o', 'json'], kc)).stdout);
    assert.deepEqual(
      json.items.map((p: { metadata: { name: string } }) => p.metadata.name),
      ['web-1', 'api-1'],
    );
    const ns = await kubectl(['get', 'namespaces', '-o', 'name'], kc);
    assert.deepEqual([ns.code, ns.stdout], [0, 'namespace/default\nnamespace/dev\n'], ns.stderr);
    // Control: a role without kube_resources sees what its group sees.
    const all = await userWithRoles(gh, 'allie', ['kube-all']);
    const everything = await kubectl(['get', 'pods', '-A', '-o', 'name'], await kubeconfigFor(all.token, 'allie'));
    assert.equal(everything.stdout.split('\n').filter(Boolean).length, 5, everything.stdout);
  });

  test('named objects: a denied or unmatched name is refused, exec included; allowed ones work', async () => {
    const kc = await kubeconfigFor(dana.token, 'dana');
    for (const args of [
      ['get', 'pod', 'secret-1'],
      ['get', 'pod', 'worker-1', '-n', 'dev'],
      ['exec', '-n', 'prod', 'db-1', '--', 'echo', 'x'],
      ['delete', 'pod', 'api-1', '-n', 'dev'],
    ]) {
      const run = await kubectl(args, kc);
      assert.equal(run.code, 1, args.join(' '));
      assert.match(run.stderr, /Forbidden.*gatehouse: dana may not .*\(kube_resources\)/, args.join(' '));
    }
    assert.equal((await kubectl(['get', 'pod', 'api-1', '-n', 'dev', '-o', 'name'], kc)).stdout, 'pod/api-1\n');
    const exec = await kubectl(['exec', '-n', 'dev', 'api-1', '--', 'whoami'], kc);
    assert.deepEqual([exec.code, exec.stdout], [0, 'gatehouse:user:dana\n'], exec.stderr);
  });
  test('a create is decided by the name in its body: web-9 is created, secret-9 (denied) and a generated name are refused', async () => {
    const kc = await kubeconfigFor(dana.token, 'dana');
    const before = fake.seen.length;
    const refused = await kubectl(['run', 'secret-9', '--image=busybox', '-n', 'default'], kc);
    assert.equal(refused.code, 1);
    assert.match(
      refused.stderr,
      /\(Forbidden\): gatehouse: dana may not create pods secret-9 in namespace default \(kube_resources\)/,
    );
    const generated = join(home, 'generated-pod.json');
    writeFileSync(
      generated,
      JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { generateName: 'web-' }, spec: { containers: [] } }),
    );
    const unnamed = await kubectl(['create', '--validate=false', '-f', generated, '-n', 'default'], kc);
    assert.equal(unnamed.code, 1);
    assert.match(unnamed.stderr, /gatehouse: dana may not create pods in namespace default \(kube_resources\)/);
    assert.ok(!fake.seen.slice(before).some((r) => r.method === 'POST'), 'neither reached the cluster');

    // Control: a name the rule reaches is created, body and all.
    const created = await kubectl(['run', 'web-9', '--image=busybox', '-n', 'default'], kc);
    assert.deepEqual([created.code, created.stdout], [0, 'pod/web-9 created\n'], created.stderr);
    assert.ok(
      fake.seen.slice(before).some((r) => r.method === 'POST' && /\/namespaces\/default\/pods(\?|$)/.test(r.path)),
    );
    assert.equal((await kubectl(['get', 'pod', 'web-9', '-o', 'name'], kc)).stdout, 'pod/web-9\n');
    // Answered requests' events are appended in batches (every 50 ms): wait for it.
    const event = await until('the kube.request of the create', async () =>
      (await events('kube.request')).find((e) => e.data.verb === 'create' && e.data.name === 'web-9'),
    );
    assert.deepEqual([event.success, event.data.response_code], [true, 201]);
  });
});

describe('kube_users', () => {
  test('one kube_users value is the user upstream; of several, --as picks one and nothing else', async () => {
    const one = await userWithRoles(gh, 'olga', ['kube-as-one']);
    const before = fake.seen.length;
    const run = await kubectl(['get', 'pods', '-o', 'name'], await kubeconfigFor(one.token, 'olga'));
    assert.equal(run.code, 0, run.stderr);
    assert.equal(fake.seen.slice(before).at(-1)?.impersonateUser, 'deployer');

    const two = await userWithRoles(gh, 'tom', ['kube-as-two']);
    const kc = await kubeconfigFor(two.token, 'tom');
    // --raw: kubectl's discovery would hide the message behind "unknown".
    const raw = ['get', '--raw', `/clusters/${clusterId}/api/v1/namespaces/default/pods`];
    const unchosen = await kubectl(raw, kc);
    assert.equal(unchosen.code, 1);
    assert.match(unchosen.stderr, /several Kubernetes users; choose one with kubectl --as \(reader, writer\)/);
    const other = await kubectl([...raw, '--as', 'system:admin'], kc);
    assert.match(other.stderr, /Forbidden.*impersonation is set by Gatehouse/);
    const mark = fake.seen.length;
    const chosen = await kubectl(['get', 'pods', '-o', 'name', '--as', 'writer'], kc);
    assert.equal(chosen.code, 0, chosen.stderr);
    assert.deepEqual(
      [fake.seen.slice(mark).at(-1)?.impersonateUser, fake.seen.slice(mark).at(-1)?.impersonateGroups],
      ['writer', ['ops']],
    );
  });
});

describe('the hostile review’s Kubernetes holes', () => {
  test('an agent named kubernetes-admin acts upstream as gatehouse:agent:<id>, never as the name its creator chose', async () => {
    const { id, token } = await newAgent('kubernetes-admin');
    const mark = fake.seen.length;
    const run = await kubectl(['get', 'pods', '-n', 'dev', '-o', 'name'], await kubeconfigFor(token, 'kadmin'));
    assert.equal(run.code, 0, run.stderr);
    const users = fake.seen.slice(mark).map((s) => s.impersonateUser);
    assert.ok(users.length > 0);
    assert.ok(
      users.every((u) => u === `gatehouse:agent:${id}`),
      users.join(),
    );
  });

  test('?watch=yes is a watch, as the API server reads it: refused to a role without watch; a list is the control', async () => {
    const lister = await userWithRoles(gh, 'lister', ['pods-list-only']);
    const kc = await kubeconfigFor(lister.token, 'lister');
    const base = `/clusters/${clusterId}/api/v1/namespaces/dev/pods`;
    for (const query of ['?watch=yes', '?watch=', '?watch', '?watch=TRUE', '?watch=f']) {
      const mark = fake.seen.length;
      const run = await kubectl(['get', '--raw', `${base}${query}`], kc);
      assert.equal(run.code, 1, `${query}: ${run.stdout}`);
      assert.match(run.stderr, /Forbidden.*may not watch pods in namespace dev/, query);
      assert.ok(
        !fake.seen.slice(mark).some((s) => s.path.includes('/namespaces/dev/pods')),
        'never reached the cluster',
      );
    }
    for (const query of ['', '?watch=false', '?watch=0']) {
      const run = await kubectl(['get', '--raw', `${base}${query}`], kc);
      assert.equal(run.code, 0, `${query}: ${run.stderr}`);
      assert.match(run.stdout, /"kind":"PodList"/);
    }
  });

  test('roles on two clusters do not pool: on the dev cluster only the dev role’s groups and rules apply', async () => {
    const devId = await registerCluster(fake, 'labeled-dev', { labels: { env: 'dev' } });
    await registerCluster(fake, 'labeled-lab', { labels: { env: 'lab' } });
    const both = await userWithRoles(gh, 'lena', ['labeled-dev-view', 'labeled-lab-admin']);
    const kc = await kubeconfigFor(both.token, 'lena', devId);
    const mark = fake.seen.length;
    const dev = await kubectl(['get', 'pods', '-n', 'dev', '-o', 'name'], kc);
    assert.deepEqual([dev.code, dev.stdout], [0, 'pod/api-1\npod/worker-1\n'], dev.stderr);
    assert.deepEqual(fake.seen.slice(mark).at(-1)?.impersonateGroups, ['ops'], 'not lab-admins');
    // The lab role names no kube_resources (every object), but it does not select this cluster.
    const prod = await kubectl(['get', 'pods', '-n', 'prod'], kc);
    assert.equal(prod.code, 1);
    assert.match(prod.stderr, /Forbidden.*lena may not list pods in namespace prod \(kube_resources\)/);
  });
});

describe('agents', () => {
  test('an agent’s kubeconfig acts as the agent; a delegated agent reaches only what the user reaches too', async () => {
    const { id: botId, token: botToken } = await newAgent('kube-bot');
    const own = await kubeconfigFor(botToken, 'bot');
    const mark = fake.seen.length;
    const prod = await kubectl(['get', 'pods', '-n', 'prod', '-o', 'name'], own);
    assert.deepEqual([prod.code, prod.stdout], [0, 'pod/db-1\n'], prod.stderr);
    assert.equal(fake.seen.slice(mark).at(-1)?.impersonateUser, `gatehouse:agent:${botId}`);
    const issued = (await events('kube.kubeconfig.issued')).find((e) => e.actor.name === 'kube-bot');
    assert.equal(issued?.actor.kind, 'agent');

    assert.equal((await as(dana.token, 'POST', `/v1/agents/${botId}/delegations`, {})).status, 201);
    const exchanged = await api(gh.url, 'POST', '/v1/auth/token', {
      body: { grant_type: EXCHANGE, subject_token: dana.token, actor_token: botToken },
    });
    assert.equal(exchanged.status, 200, exchanged.text);
    const forDana = await kubeconfigFor(exchanged.json.access_token, 'bot-for-dana');
    const refused = await kubectl(['get', 'pods', '-n', 'prod'], forDana);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /Forbidden.*may not list pods in namespace prod/);
    const dev = await kubectl(['get', 'pods', '-n', 'dev', '-o', 'name'], forDana);
    assert.deepEqual([dev.code, dev.stdout], [0, 'pod/api-1\n'], dev.stderr);
  });

  test('suspending an agent ends its running exec: kubectl is told, the session says terminated', async () => {
    const agent = await newAgent('exec-bot');
    const running = kubectl(['exec', 'web-1', '--', 'sleep'], await kubeconfigFor(agent.token, 'exec-bot'));
    const session = await until('the agent’s exec to be live', async () => {
      const list = (await admin('GET', `/v1/sessions?per_page=100&principal=${agent.id}`)).json.sessions;
      return (list as Array<{ id: string; status: string }>).find((s) => s.status === 'active');
    });
    const suspended = await admin('PATCH', `/v1/agents/${agent.id}`, { status: 'suspended' });
    assert.equal(suspended.status, 200, suspended.text);
    assert.ok(JSON.stringify(suspended.json.ended_sessions).includes(session.id), suspended.text);
    const run = await running;
    assert.notEqual(run.code, 0);
    assert.match(run.stderr, /session terminated|terminated/);
    const ended = await until('the record to end', async () => {
      const s = (await admin('GET', `/v1/sessions/${session.id}`)).json;
      return s.ended_at ? s : undefined;
    });
    assert.equal(ended.status, 'terminated');
  });
});
