// GET /v1/users/{id}/access, /v1/users/me/access and /v1/agents/{id}/access against the doors'
// decisions: for a set of roles and resources, every (resource, as whom) the API lists is admitted by
// the SSH and PostgreSQL ticket doors and the kubeconfig door, and every one it does not list is
// refused — walked over every combination of the values any role names, for users and an agent.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type FakeKube, startFakeKube } from './helpers/fake-kube-apiserver.js';
import { api, requestsTo, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';

let gh: TestServer;
let fake: FakeKube;
const { admin, as } = requestsTo(() => gh);
const TICKETS = [{ resources: ['sessions'], verbs: ['create'] }];

const ROLES = [
  {
    name: 'dev-ssh',
    allow: { rules: TICKETS, resources: [{ kinds: ['server'], labels: { env: 'dev' } }], logins: ['ubuntu', 'deploy'] },
  },
  {
    name: 'prod-ssh',
    allow: { rules: TICKETS, resources: [{ kinds: ['server'], labels: { env: 'prod' } }], logins: ['ops'] },
  },
  {
    name: 'own-login',
    allow: { resources: [{ kinds: ['server'], labels: { env: 'dev' } }], logins: ['{{traits.logins}}'] },
  },
  { name: 'no-deploy', allow: {}, deny: { logins: ['deploy'] } },
  {
    name: 'db-dev',
    allow: {
      rules: TICKETS,
      resources: [{ kinds: ['database'], labels: { env: 'dev' } }],
      db_users: ['app', 'reader'],
      db_names: ['appdb'],
    },
  },
  { name: 'db-any', allow: { resources: [{ kinds: ['database'] }], db_users: ['analyst'], db_names: ['warehouse'] } },
  {
    name: 'kube-dev',
    allow: { resources: [{ kinds: ['kube_cluster'], labels: { env: 'dev' } }], kube_groups: ['dev-team'] },
  },
  {
    name: 'kube-prod',
    allow: {
      resources: [{ kinds: ['kube_cluster'], labels: { env: 'prod' } }],
      kube_users: ['viewer'],
      kube_groups: ['viewers'],
    },
  },
];
const LOGINS = ['ubuntu', 'deploy', 'ops', 'alice', 'root'];
const DB_USERS = ['app', 'reader', 'analyst', 'postgres'];
const DB_NAMES = ['appdb', 'warehouse', 'postgres'];

interface Grant {
  role: string;
  logins: string[];
  db_users: string[];
  db_names: string[];
  kube_users: string[];
  kube_groups: string[];
}
interface Listed extends Omit<Grant, 'role'> {
  id: string;
  kind: string;
  name: string;
  grants: Grant[];
}

const resources: Array<{ id: string; kind: string; name: string }> = [];
let alice: Awaited<ReturnType<typeof userWithRoles>>;
let bob: Awaited<ReturnType<typeof userWithRoles>>;
let agent: { id: string; token: string };

before(async () => {
  gh = await startTestServer();
  fake = await startFakeKube();
  for (const role of ROLES) assert.equal((await admin('POST', '/v1/roles', role)).status, 201, role.name);
  const register = async (body: Record<string, unknown>) => {
    const created = await admin('POST', '/v1/resources', body);
    assert.equal(created.status, 201, created.text);
    resources.push({ id: created.json.id, kind: created.json.kind, name: created.json.name });
  };
  for (const env of ['dev', 'prod']) {
    await register({ kind: 'server', name: `web-${env}`, address: '127.0.0.1:22', labels: { env } });
    await register({
      kind: 'database',
      name: `pg-${env}`,
      address: '127.0.0.1:5432',
      protocol: 'postgres',
      labels: { env },
    });
    const kube = { ca_pem: fake.caPem, token: fake.token };
    await register({ kind: 'kube_cluster', name: `k8s-${env}`, address: fake.url, labels: { env }, kube });
  }
  alice = await userWithRoles(gh, 'alice', ['dev-ssh', 'own-login', 'db-dev', 'db-any', 'kube-dev'], {
    logins: ['alice'],
  });
  bob = await userWithRoles(gh, 'bob', ['dev-ssh', 'prod-ssh', 'no-deploy', 'kube-prod']);
  const bot = await admin('POST', '/v1/agents', { name: 'alice-bot', owner: alice.id, roles: ['dev-ssh', 'db-dev'] });
  assert.equal(bot.status, 201, bot.text);
  const credential = await admin('POST', `/v1/agents/${bot.json.id}/credentials`, { ttl: 600 });
  agent = { id: bot.json.id, token: credential.json.access_token };
});
after(async () => {
  await gh?.stop();
  await fake?.close();
});

const accessOf = async (token: string, path: string): Promise<Listed[]> => {
  const res = await as(token, 'GET', path);
  assert.equal(res.status, 200, res.text);
  return res.json.resources as Listed[];
};

/** Every (resource, as whom) through the doors: admitted exactly when the API listed it. */
async function walk(token: string, listed: Listed[], who: string): Promise<number> {
  const find = (id: string) => listed.find((r) => r.id === id);
  let checked = 0;
  for (const r of resources) {
    const mine = find(r.id);
    if (r.kind === 'server') {
      for (const login of LOGINS) {
        const ticket = await as(token, 'POST', '/v1/sessions', { server: r.name, login });
        const expected = mine?.logins.includes(login) ?? false;
        assert.equal(ticket.status === 201, expected, `${who} ${login}@${r.name}: ${ticket.status} ${ticket.text}`);
        if (!expected) assert.ok([403, 404].includes(ticket.status), ticket.text);
        checked++;
      }
    }
    if (r.kind === 'database') {
      for (const db_user of DB_USERS) {
        for (const db_name of DB_NAMES) {
          const ticket = await as(token, 'POST', '/v1/sessions', { database: r.name, db_user, db_name });
          // A role is the allow unit: a pair is listed when one role's grant holds both values.
          const expected =
            mine?.grants.some((g) => g.db_users.includes(db_user) && g.db_names.includes(db_name)) ?? false;
          assert.equal(ticket.status === 201, expected, `${who} ${db_user}/${db_name} on ${r.name}: ${ticket.text}`);
          checked++;
        }
      }
    }
    if (r.kind === 'kube_cluster') {
      for (const ref of [r.id, r.name]) {
        const res = await as(token, 'GET', `/v1/resources/${ref}/kubeconfig`);
        assert.equal(res.status === 200, mine !== undefined, `${who} kubeconfig of ${ref}: ${res.status} ${res.text}`);
        if (!mine) assert.equal(res.status, 404);
        checked++;
      }
    }
  }
  return checked;
}

describe('effective access', () => {
  test('alice: her own access lists per-role grants, never pooling one role’s values with another’s', async () => {
    const mine = await accessOf(alice.token, '/v1/users/me/access');
    assert.deepEqual(await accessOf(alice.token, `/v1/users/${alice.id}/access`), mine);
    assert.deepEqual(await accessOf(gh.adminToken, '/v1/users/alice/access'), mine, 'by name too, for an admin');
    assert.deepEqual(
      mine.map((r) => r.name),
      ['pg-dev', 'pg-prod', 'k8s-dev', 'web-dev'],
    );
    const web = mine.find((r) => r.name === 'web-dev');
    assert.deepEqual(web?.logins, ['alice', 'deploy', 'ubuntu']);
    assert.deepEqual(
      web?.grants.map((g) => [g.role, g.logins]),
      [
        ['dev-ssh', ['deploy', 'ubuntu']],
        ['own-login', ['alice']],
      ],
    );
    const pg = mine.find((r) => r.name === 'pg-dev');
    assert.deepEqual(
      pg?.grants.map((g) => [g.role, g.db_users, g.db_names]),
      [
        ['db-dev', ['app', 'reader'], ['appdb']],
        ['db-any', ['analyst'], ['warehouse']],
      ],
    );
    const kube = mine.find((r) => r.name === 'k8s-dev');
    assert.deepEqual([kube?.kube_users, kube?.kube_groups], [['gatehouse:user:alice'], ['dev-team']]);
  });

  test('bob: a deny in one role removes the login every other role grants; prod cluster as viewer', async () => {
    const listed = await accessOf(bob.token, '/v1/users/me/access');
    assert.deepEqual(listed.find((r) => r.name === 'web-dev')?.logins, ['ubuntu']);
    assert.deepEqual(listed.find((r) => r.name === 'web-prod')?.logins, ['ops']);
    const kube = listed.find((r) => r.name === 'k8s-prod');
    assert.deepEqual([kube?.kube_users, kube?.kube_groups], [['viewer'], ['viewers']]);
  });

  test('what the API lists is exactly what the SSH, PostgreSQL and kubeconfig doors admit (alice, bob, an agent)', async () => {
    let checked = 0;
    checked += await walk(alice.token, await accessOf(alice.token, '/v1/users/me/access'), 'alice');
    checked += await walk(bob.token, await accessOf(gh.adminToken, `/v1/users/${bob.id}/access`), 'bob');
    const agentAccess = await accessOf(agent.token, `/v1/agents/${agent.id}/access`);
    assert.deepEqual(
      agentAccess.map((r) => r.name),
      ['pg-dev', 'web-dev'],
      'the agent: its roles within its owner’s',
    );
    assert.deepEqual(agentAccess.find((r) => r.name === 'web-dev')?.logins, ['deploy', 'ubuntu']);
    checked += await walk(agent.token, agentAccess, 'alice-bot');
    assert.equal(checked, 3 * (2 * LOGINS.length + 2 * DB_USERS.length * DB_NAMES.length + 4));
  });

  test('another’s access needs users:read or agents:read (403); one’s own and an admin’s are the controls', async () => {
    const other = await as(alice.token, 'GET', `/v1/users/${bob.id}/access`);
    assert.equal(other.status, 403, other.text);
    assert.equal((await as(alice.token, 'GET', `/v1/agents/${agent.id}/access`)).status, 403);
    assert.equal((await as(agent.token, 'GET', `/v1/users/${alice.id}/access`)).status, 403);
    assert.equal((await as(alice.token, 'GET', `/v1/users/${alice.id}/access`)).status, 200);
    assert.equal((await as(agent.token, 'GET', `/v1/agents/${agent.id}/access`)).status, 200);
    assert.equal((await admin('GET', `/v1/agents/${agent.id}/access`)).status, 200);
    assert.equal((await admin('GET', '/v1/users/user_0000000000000000000000zzzz/access')).status, 404);
    assert.equal((await api(gh.url, 'GET', '/v1/users/me/access')).status, 401);
  });

  test('a suspended agent reaches nothing: answered as inactive with no resources (active is the control)', async () => {
    const bot = await admin('POST', '/v1/agents', { name: 'idle-bot', owner: alice.id, roles: ['dev-ssh'] });
    assert.equal(bot.status, 201, bot.text);
    const before = await admin('GET', `/v1/agents/${bot.json.id}/access`);
    assert.deepEqual([before.json.active, before.json.resources.length], [true, 1]);
    assert.equal((await admin('PATCH', `/v1/agents/${bot.json.id}`, { status: 'suspended' })).status, 200);
    const res = await admin('GET', `/v1/agents/${bot.json.id}/access`);
    assert.deepEqual([res.json.active, res.json.resources], [false, []]);
  });
});
