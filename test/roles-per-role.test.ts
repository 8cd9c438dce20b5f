// Each role is an allow unit: a login, database user or name of one role never reaches a resource
// only another role selects (the hole: alice with dev-ssh and lab-root got root on dev). Tried
// through the API's tickets (the same access checker SSH, PostgreSQL and Kubernetes use), through
// what a role writer may grant, and through role validation (kube_resources kinds).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { requestsTo, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';

let gh: TestServer;
const { admin, as } = requestsTo(() => gh);
let alice: { id: string; token: string };
const TICKETS = { resources: ['sessions'], verbs: ['create'] } as const;

before(async () => {
  gh = await startTestServer();
  const roles = [
    {
      name: 'dev-ssh',
      allow: { rules: [TICKETS], resources: [{ kinds: ['server'], labels: { env: 'dev' } }], logins: ['ubuntu'] },
    },
    {
      name: 'lab-root',
      allow: { rules: [TICKETS], resources: [{ kinds: ['server'], labels: { env: 'lab' } }], logins: ['root'] },
    },
    {
      name: 'reports-ro',
      allow: {
        rules: [TICKETS],
        resources: [{ kinds: ['database'], labels: { env: 'dev' } }],
        db_users: ['reader'],
        db_names: ['reports'],
      },
    },
    {
      name: 'orders-rw',
      allow: {
        rules: [TICKETS],
        resources: [{ kinds: ['database'], labels: { env: 'dev' } }],
        db_users: ['writer'],
        db_names: ['orders'],
      },
    },
  ];
  for (const role of roles) assert.equal((await admin('POST', '/v1/roles', role)).status, 201);
  for (const [name, env] of [
    ['dev-1', 'dev'],
    ['lab-1', 'lab'],
  ] as const) {
    const res = await admin('POST', '/v1/resources', {
      kind: 'server',
      name,
      address: '127.0.0.1:22',
      labels: { env },
    });
    assert.equal(res.status, 201, res.text);
  }
  const db = await admin('POST', '/v1/resources', {
    kind: 'database',
    name: 'pg-dev',
    protocol: 'postgres',
    address: '127.0.0.1:5432',
    labels: { env: 'dev' },
  });
  assert.equal(db.status, 201, db.text);
  alice = await userWithRoles(gh, 'alice', ['dev-ssh', 'lab-root', 'reports-ro', 'orders-rw']);
});

after(async () => {
  await gh?.stop();
});

describe('connections: one role must select the resource and allow the login', () => {
  test('root on dev is refused (only lab-root allows root, on lab); ubuntu on dev and root on lab are allowed', async () => {
    const refused = await as(alice.token, 'POST', '/v1/sessions', { server: 'dev-1', login: 'root' });
    assert.equal(refused.status, 403, refused.text);
    assert.match(refused.json.detail, /login root is not allowed on dev-1 \(allowed: ubuntu\)/);
    const ubuntu = await as(alice.token, 'POST', '/v1/sessions', { server: 'dev-1', login: 'ubuntu' });
    assert.equal(ubuntu.status, 201, ubuntu.text);
    const labRoot = await as(alice.token, 'POST', '/v1/sessions', { server: 'lab-1', login: 'root' });
    assert.equal(labRoot.status, 201, labRoot.text);
    const labUbuntu = await as(alice.token, 'POST', '/v1/sessions', { server: 'lab-1', login: 'ubuntu' });
    assert.equal(labUbuntu.status, 403, labUbuntu.text);
  });

  test('a database user of one role with a database name of another is refused; each role’s own pair works', async () => {
    const ticket = (db_user: string, db_name: string) =>
      as(alice.token, 'POST', '/v1/sessions', { database: 'pg-dev', db_user, db_name });
    const crossed = await ticket('writer', 'reports');
    assert.equal(crossed.status, 403, crossed.text);
    assert.match(crossed.json.detail, /no one role allows database user writer with database name reports on pg-dev/);
    assert.equal((await ticket('writer', 'orders')).status, 201);
    assert.equal((await ticket('reader', 'reports')).status, 201);
  });
});

describe('granting: a role writer covers a login only on the resources it holds it on', () => {
  test('a manager holding root on lab cannot create a role with root on dev; root on lab it can', async () => {
    const mgrRole = {
      name: 'lab-mgr',
      allow: {
        rules: [{ resources: ['roles'], verbs: ['create', 'read', 'list'] }],
        resources: [
          { kinds: ['server'], labels: { env: 'lab' } },
          { kinds: ['server'], labels: { env: 'dev' } },
        ],
        logins: ['root'],
      },
    };
    // The manager's own root reaches both; a second manager holds dev only as ubuntu.
    assert.equal((await admin('POST', '/v1/roles', mgrRole)).status, 201);
    const split = await userWithRoles(gh, 'split-mgr', ['dev-ssh', 'lab-root']);
    await admin('POST', '/v1/roles', {
      name: 'roles-writer',
      allow: { rules: [{ resources: ['roles'], verbs: ['create', 'read', 'list'] }] },
    });
    await admin('PATCH', `/v1/users/${split.id}`, { roles: ['dev-ssh', 'lab-root', 'roles-writer'] });
    const devRoot = {
      name: 'dev-root',
      allow: { resources: [{ kinds: ['server'], labels: { env: 'dev' } }], logins: ['root'] },
    };
    const refused = await as(split.token, 'POST', '/v1/roles', devRoot);
    assert.equal(refused.status, 403, refused.text);
    assert.match(refused.json.detail, /login root on server env=dev/);
    const labRoot = {
      name: 'lab-root-2',
      allow: { resources: [{ kinds: ['server'], labels: { env: 'lab' } }], logins: ['root'] },
    };
    const allowed = await as(split.token, 'POST', '/v1/roles', labRoot);
    assert.equal(allowed.status, 201, allowed.text);
  });
});

describe('role validation', () => {
  test('kube_resources kind "pod" (singular) is refused naming "pods"; "pods" and a custom plural are stored', async () => {
    const role = (kind: string) => ({
      name: `k-${kind.replace(/\W/g, '')}`,
      allow: {
        resources: [{ kinds: ['kube_cluster'] }],
        kube_groups: ['g'],
        kube_resources: [{ kind, verbs: ['get'] }],
      },
    });
    const singular = await admin('POST', '/v1/roles', role('pod'));
    assert.equal(singular.status, 400, singular.text);
    assert.equal(singular.json.errors?.[0]?.path, '/allow/kube_resources/0/kind');
    assert.match(singular.json.detail, /write pods/);
    const short = await admin('POST', '/v1/roles', role('deploy'));
    assert.equal(short.status, 400);
    assert.match(short.json.detail, /write deployments/);
    assert.equal((await admin('POST', '/v1/roles', role('pods'))).status, 201);
    assert.equal((await admin('POST', '/v1/roles', role('widgets.example.com'))).status, 201);
  });
});
