// Custom kinds through the Kubernetes proxy with the real kubectl: the proxy learns a kind's scope
// from the cluster's discovery (the fake serves a CRD-like group with a namespaced kind, widgets, and
// a cluster-scoped one, clusterwidgets). kube_resources govern the namespaced kind as they govern
// pods; the cluster-scoped kind is left to the cluster's RBAC, as nodes are — a role whose rules name
// only pods still lists clusterwidgets, and a group the cluster does not let list them is refused by
// the cluster, not by Gatehouse.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type FakeKube, startFakeKube } from './helpers/fake-kube-apiserver.js';
import { kubectl } from './helpers/fake-kube-apiserver-kubectl.js';
import { startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';
import { kubeClusterClient, SEE, type UserKubeconfig } from './helpers/kube-cluster.js';
import { until } from './helpers/until.js';

let gh: TestServer;
let fake: FakeKube;
const { admin, events, registerCluster, kubeconfigFor, removeHome } = kubeClusterClient(() => gh, 'kube-custom-');
let cara: UserKubeconfig;
let devin: UserKubeconfig;

before(async () => {
  fake = await startFakeKube({ rbac: { ops: '*', devs: ['dev'] } });
  gh = await startTestServer();
  await registerCluster(fake, 'custom-cluster');
  for (const role of [
    {
      name: 'dev-objects',
      allow: {
        ...SEE,
        kube_groups: ['ops'],
        kube_resources: [
          { kind: 'pods', namespace: 'dev', verbs: ['*'] },
          { kind: 'widgets', namespace: 'dev', verbs: ['get', 'list'] },
        ],
      },
    },
    { name: 'devs-group', allow: { ...SEE, kube_groups: ['devs'] } },
  ]) {
    const res = await admin('POST', '/v1/roles', role);
    assert.equal(res.status, 201, res.text);
  }
  cara = await kubeconfigFor((await userWithRoles(gh, 'cara', ['dev-objects'])).token, 'cara');
  devin = await kubeconfigFor((await userWithRoles(gh, 'devin', ['devs-group'])).token, 'devin');
});

after(async () => {
  await gh?.stop();
  await fake?.close();
  removeHome();
});

describe('custom kinds', () => {
  test('a cluster-scoped custom kind is the cluster’s RBAC’s: listed and read though the rules name only pods and widgets', async () => {
    const list = await kubectl(['get', 'clusterwidgets', '-o', 'name'], cara);
    assert.deepEqual(
      [list.code, list.stdout],
      [0, 'clusterwidget.example.gatehouse.dev/small\nclusterwidget.example.gatehouse.dev/big\n'],
      list.stderr,
    );
    const one = await kubectl(['get', 'clusterwidget', 'big', '-o', 'name'], cara);
    assert.deepEqual([one.code, one.stdout], [0, 'clusterwidget.example.gatehouse.dev/big\n'], one.stderr);
    const event = await until('the clusterwidgets event', async () =>
      (await events('kube.request')).find((e) => e.data.resource === 'clusterwidgets' && e.data.name === 'big'),
    );
    assert.deepEqual(
      [event.success, event.actor.name, event.data.api_group, event.data.verb, event.data.response_code],
      [true, 'cara', 'example.gatehouse.dev', 'get', 200],
    );
  });

  test('the cluster refuses a group it does not let list the kind (its Forbidden, not Gatehouse’s); cara’s list above is the control', async () => {
    const refused = await kubectl(['get', 'clusterwidgets', '-o', 'name'], devin);
    assert.equal(refused.code, 1);
    assert.match(
      refused.stderr,
      /Error from server \(Forbidden\): clusterwidgets\.example\.gatehouse\.dev is forbidden: User "gatehouse:user:devin" cannot list resource "clusterwidgets" in API group "example\.gatehouse\.dev" at the cluster scope/,
    );
    // Not Gatehouse's own refusal (which reads "Forbidden): gatehouse: …"); the user's name is gatehouse:user:devin.
    assert.doesNotMatch(refused.stderr, /\): gatehouse: /);
  });

  test('a namespaced custom kind stays governed by kube_resources: prod refused by Gatehouse, dev (the control) listed', async () => {
    const mark = fake.seen.length;
    const refused = await kubectl(['get', 'widgets', '-n', 'prod', '-o', 'name'], cara);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /gatehouse: cara may not list widgets in namespace prod \(kube_resources\)/);
    assert.ok(!fake.seen.slice(mark).some((s) => s.path.includes('/namespaces/prod/widgets')), 'never reached');
    const allowed = await kubectl(['get', 'widgets', '-n', 'dev', '-o', 'name'], cara);
    assert.deepEqual([allowed.code, allowed.stdout], [0, 'widget.example.gatehouse.dev/w-dev\n'], allowed.stderr);
  });

  test('the scope is learned once per group version and cached: one discovery fetch as Gatehouse for every request', async () => {
    for (let i = 0; i < 3; i++) assert.equal((await kubectl(['get', 'clusterwidgets', '-o', 'name'], cara)).code, 0);
    const fetches = fake.seen.filter(
      (s) => s.path === '/apis/example.gatehouse.dev/v1' && s.user === 'system:serviceaccount:gatehouse:proxy',
    );
    assert.equal(fetches.length, 1);
    assert.equal(fetches[0]?.impersonateUser, undefined, 'fetched with Gatehouse’s own identity');
  });
});
