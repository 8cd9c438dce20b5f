// The kube door reuses what it admitted a request with (src/proxy/kube/kube-admissions.ts): a client
// repeating the same GET over one keep-alive connection is not decided anew each time. What a user
// must still see: a revoked login, a narrowed role, a role taken away or a suspended agent (the kill
// switch) is refused on the very next request, however warm that reuse is — well inside the
// documented second.
import assert from 'node:assert/strict';
import { Agent, request } from 'node:https';
import { after, before, test } from 'node:test';
import { type FakeKube, startFakeKube } from './helpers/fake-kube-apiserver.js';
import { startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';
import { kubeClusterClient } from './helpers/kube-cluster.js';

let gh: TestServer;
let fake: FakeKube;
let clusterId: string;
let ca: Buffer;
const { admin, as, registerCluster, kubeconfigFor, removeHome } = kubeClusterClient(() => gh, 'kube-admissions-');

const ROLE = {
  rules: [{ resources: ['resources'], verbs: ['list', 'read'] }],
  resources: [{ kinds: ['kube_cluster'], labels: { env: 'dev' } }],
  kube_groups: ['dev-team'],
};

before(async () => {
  fake = await startFakeKube({ rbac: { 'dev-team': ['default', 'dev'] } });
  gh = await startTestServer();
  clusterId = await registerCluster(fake, 'dev-cluster', { labels: { env: 'dev' } });
  for (const name of ['kube-a', 'kube-b', 'kube-c']) {
    const role = await admin('POST', '/v1/roles', { name, allow: ROLE });
    assert.equal(role.status, 201, role.text);
  }
  const probe = await userWithRoles(gh, 'probe', ['kube-a']);
  const yaml = (await kubeconfigFor(probe.token, 'probe')).yaml;
  ca = Buffer.from(yaml.match(/certificate-authority-data: (\S+)/)?.[1] as string, 'base64');
});

after(async () => {
  await gh?.stop();
  await fake?.close();
  removeHome();
});

/** GET pods in `namespace` over one keep-alive connection (the agent), as kubectl's client does. */
function getPods(agent: Agent, token: string, namespace = 'default'): Promise<{ status: number; body: string }> {
  const port = gh.gatehouse.kubeAddr?.port as number;
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: `/clusters/${clusterId}/api/v1/namespaces/${namespace}/pods`,
        headers: { authorization: `Bearer ${token}` },
        ca,
        agent,
      },
      (res) => {
        let body = '';
        res.on('data', (d: Buffer) => {
          body += d.toString();
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** Many of the same request, so whatever the door reuses is reused. */
async function warm(agent: Agent, token: string, namespace = 'default'): Promise<void> {
  for (let i = 0; i < 20; i++) {
    const res = await getPods(agent, token, namespace);
    assert.equal(res.status, 200, `control: request ${i} is answered: ${res.body}`);
  }
}

test('a revoked login is refused on the next request, however often the same GET was admitted just before', async () => {
  const dana = await userWithRoles(gh, 'dana', ['kube-a']);
  const erin = await userWithRoles(gh, 'erin', ['kube-a']);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    await warm(agent, dana.token);
    await warm(agent, erin.token);
    assert.equal((await as(dana.token, 'DELETE', '/v1/auth/revoke')).status, 200);
    const after = await getPods(agent, dana.token);
    assert.equal(after.status, 401, after.body);
    assert.equal(JSON.parse(after.body).kind, 'Status');
    // Control: another principal's admissions are untouched by it.
    assert.equal((await getPods(agent, erin.token)).status, 200);
  } finally {
    agent.destroy();
  }
});

test('a role narrowed by kube_resources or taken from the user is refused on the next request; the unchanged role is the control', async () => {
  const fay = await userWithRoles(gh, 'fay', ['kube-b']);
  const gus = await userWithRoles(gh, 'gus', ['kube-c']);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    await warm(agent, fay.token);
    await warm(agent, gus.token);
    // kube-b now reaches pods in dev only: default is Gatehouse's Forbidden from the next request on.
    const narrowed = await admin('PUT', '/v1/roles/kube-b', {
      name: 'kube-b',
      allow: { ...ROLE, kube_resources: [{ kind: 'pods', namespace: 'dev', verbs: ['get', 'list'] }] },
    });
    assert.equal(narrowed.status, 200, narrowed.text);
    const refused = await getPods(agent, fay.token);
    assert.equal(refused.status, 403, refused.body);
    assert.match(JSON.parse(refused.body).message, /kube_resources/);
    assert.equal((await getPods(agent, fay.token, 'dev')).status, 200, 'control: what the narrowed role keeps');
    assert.equal((await getPods(agent, gus.token)).status, 200, 'control: the unchanged role');
    // The role taken from the user: the cluster is no longer visible to gus (NotFound), at once.
    const taken = await admin('PATCH', `/v1/users/${gus.id}`, { roles: [] });
    assert.equal(taken.status, 200, taken.text);
    assert.equal((await getPods(agent, gus.token)).status, 404);
  } finally {
    agent.destroy();
  }
});

test('a suspended agent (the kill switch) is refused on the next request, however warm the admission; another agent is the control', async () => {
  const owner = await userWithRoles(gh, 'olga', ['kube-a']);
  const agentOf = async (name: string) => {
    const agent = (await admin('POST', '/v1/agents', { name, roles: ['kube-a'], owner: owner.id })).json;
    assert.ok(agent.id, JSON.stringify(agent));
    const token = (await admin('POST', `/v1/agents/${agent.id}/credentials`, {})).json.access_token as string;
    return { id: agent.id as string, token };
  };
  const [stopped, running] = [await agentOf('kube-bot-1'), await agentOf('kube-bot-2')];
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    await warm(agent, stopped.token);
    await warm(agent, running.token);
    const suspended = await admin('PATCH', `/v1/agents/${stopped.id}`, { status: 'suspended' });
    assert.equal(suspended.status, 200, suspended.text);
    const after = await getPods(agent, stopped.token);
    assert.equal(after.status, 401, after.body);
    assert.equal(JSON.parse(after.body).kind, 'Status');
    assert.equal((await getPods(agent, running.token)).status, 200, 'control: the other agent’s admissions stand');
  } finally {
    agent.destroy();
  }
});
