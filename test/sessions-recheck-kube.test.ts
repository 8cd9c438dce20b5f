// A running `kubectl exec` is re-checked as the Kubernetes identity it was opened with, not only as
// the cluster's visibility: with the real kubectl through the proxy, one ends within about a second
// when its role (replaced through PUT /v1/roles/{id}) no longer gives the user it impersonates — its
// kube_groups gone (the implicit gatehouse:user:<name>), or its kube_users no longer naming it — while
// one whose role changed but keeps the identity goes on (the positive control).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type FakeKube, startFakeKube } from './helpers/fake-kube-apiserver.js';
import { kubectl } from './helpers/fake-kube-apiserver-kubectl.js';
import { startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';
import { kubeClusterClient, SEE } from './helpers/kube-cluster.js';
import { until } from './helpers/until.js';

let gh: TestServer;
let fake: FakeKube;
const { admin, events, registerCluster, kubeconfigFor, removeHome } = kubeClusterClient(() => gh, 'kube-recheck-');

interface SessionRow {
  id: string;
  status: string;
  login: string;
  ended_at: string | null;
  end_reason?: string;
}

/** A role of its own per user, so replacing it touches no one else. */
const roleFor = (name: string, allow: Record<string, unknown>) => ({ name, allow: { ...SEE, ...allow } });

before(async () => {
  fake = await startFakeKube({ rbac: { ops: '*' }, pods: [['default', 'web-1']] });
  gh = await startTestServer();
  await registerCluster(fake, 'recheck-cluster');
  for (const role of [
    roleFor('exec-groups', { kube_groups: ['ops'] }),
    roleFor('exec-user', { kube_groups: ['ops'], kube_users: ['deployer'] }),
    roleFor('exec-kept', { kube_groups: ['ops'] }),
  ]) {
    const res = await admin('POST', '/v1/roles', role);
    assert.equal(res.status, 201, res.text);
  }
});

after(async () => {
  await gh?.stop();
  await fake?.close();
  removeHome();
});

/** Starts `kubectl exec web-1 -- sleep` as the user; resolves once its session is live. */
async function runningExec(name: string, role: string) {
  const user = await userWithRoles(gh, name, [role]);
  const run = kubectl(['exec', 'web-1', '--', 'sleep'], {
    ...(await kubeconfigFor(user.token, name)),
    timeoutMs: 60_000,
  });
  const session = await until(`${name}'s exec to be live`, async () => {
    const list = (await admin('GET', `/v1/sessions?status=active&principal=${user.id}`)).json.sessions;
    return (list as SessionRow[])[0];
  });
  return { user, run, session };
}

const replaceRole = async (name: string, allow: Record<string, unknown>) => {
  const res = await admin('PUT', `/v1/roles/${name}`, roleFor(name, allow));
  assert.equal(res.status, 200, res.text);
};

test('a running kubectl exec ends within a second when its role no longer gives its Kubernetes user; a change that keeps it goes on', async () => {
  const byGroups = await runningExec('kube-gail', 'exec-groups');
  const byUser = await runningExec('kube-uma', 'exec-user');
  const kept = await runningExec('kube-kim', 'exec-kept');
  assert.equal(byGroups.session.login, 'gatehouse:user:kube-gail');
  assert.equal(byUser.session.login, 'deployer');

  // The role still shows the cluster (the session's old check passes): only the identity is gone.
  await replaceRole('exec-kept', { kube_groups: ['ops'], kube_resources: [{ kind: 'pods', verbs: ['*'] }] });
  await replaceRole('exec-groups', {});
  await replaceRole('exec-user', { kube_groups: ['ops'], kube_users: ['reader'] });
  const since = Date.now();
  for (const { run, session } of [byGroups, byUser]) {
    const ended = await until(`session ${session.id} to be terminated`, async () => {
      const s = (await admin('GET', `/v1/sessions/${session.id}`)).json as SessionRow;
      return s.status === 'active' ? undefined : s;
    });
    assert.equal(ended.status, 'terminated');
    assert.equal(ended.end_reason, 'access_revoked');
    assert.ok(Date.parse(ended.ended_at ?? '') - since <= 1000, 'terminated within a second');
    const result = await run;
    assert.notEqual(result.code, 0);
    assert.match(result.stderr, /session terminated \(access_revoked\)/);
    const event = (await events('session.terminated')).find((e) => e.session_id === session.id);
    assert.match(String(event?.data.detail), new RegExp(`Kubernetes user ${session.login} is not allowed`));
  }

  const still = (await admin('GET', `/v1/sessions/${kept.session.id}`)).json as SessionRow;
  assert.equal(still.status, 'active', "positive control: kim's role changed but still gives her user");
  kept.run.kill();
  await kept.run;
});
