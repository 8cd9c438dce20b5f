// PATCH /v1/resources/{id}: description, labels and where the resource is change; kind, name and the
// host-key pin do not; fields of another kind are refused at their path; each change is an event.
// Relabelling beyond what the caller sees is refused (test/escalation.test.ts walks that). And the
// list's server-side search.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { requestsTo, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';

let gh: TestServer;
const { admin, as } = requestsTo(() => gh);
before(async () => {
  gh = await startTestServer();
});
after(() => gh.stop());

test('a server’s description, labels and address change; the event names what changed', async () => {
  const srv = await admin('POST', '/v1/resources', { kind: 'server', name: 'edit-1', address: '10.0.0.1:22' });
  assert.equal(srv.status, 201);
  const res = await admin('PATCH', `/v1/resources/${srv.json.id}`, {
    description: 'the build box',
    labels: { env: 'dev' },
    address: '10.0.0.2:2222',
  });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.json.description, 'the build box');
  assert.deepEqual(res.json.labels, { env: 'dev' });
  assert.equal(res.json.address, '10.0.0.2:2222');
  assert.equal(res.json.ssh_public_key, srv.json.ssh_public_key, 'the upstream key stays');
  assert.equal((await admin('GET', `/v1/resources/${srv.json.id}`)).json.address, '10.0.0.2:2222');
  const events = await admin('GET', `/v1/events?type=resource.updated&target=${srv.json.id}`);
  assert.equal(events.json.events.length, 1);
  assert.deepEqual(events.json.events[0].data.changed.sort(), ['address', 'description', 'labels']);
  // The same values again change nothing and record nothing.
  await admin('PATCH', `/v1/resources/${srv.json.id}`, { labels: { env: 'dev' } });
  assert.equal((await admin('GET', `/v1/events?type=resource.updated&target=${srv.json.id}`)).json.events.length, 1);
});

test('fields of another kind, unknown fields and an empty body are refused at their path', async () => {
  const app = await admin('POST', '/v1/resources', { kind: 'app', name: 'edit-app', uri: 'https://a.internal' });
  const wrongKind = await admin('PATCH', `/v1/resources/${app.json.id}`, { address: 'db:5432' });
  assert.equal(wrongKind.status, 400);
  assert.equal(wrongKind.json.errors[0].path, '/body/address');
  const rename = await admin('PATCH', `/v1/resources/${app.json.id}`, { name: 'other' });
  assert.equal(rename.status, 400);
  assert.equal(rename.json.errors[0].path, '/body/name');
  assert.equal((await admin('PATCH', `/v1/resources/${app.json.id}`, {})).status, 400);
  const ok = await admin('PATCH', `/v1/resources/${app.json.id}`, { uri: 'https://b.internal' });
  assert.equal(ok.status, 200);
  assert.equal(ok.json.uri, 'https://b.internal');
});

test('a resource the caller cannot see is 404; one it can see and may update changes (control)', async () => {
  const hidden = await admin('POST', '/v1/resources', {
    kind: 'server',
    name: 'edit-prod',
    address: '10.0.0.3:22',
    labels: { env: 'prod' },
  });
  const role = await admin('POST', '/v1/roles', {
    name: 'dev-resources',
    allow: {
      rules: [{ resources: ['resources'], verbs: ['list', 'read', 'update'] }],
      resources: [{ kinds: ['server'], labels: { env: 'dev' } }],
    },
  });
  assert.equal(role.status, 201, role.text);
  const dev = await userWithRoles(gh, 'dev-editor', ['dev-resources']);
  assert.equal((await as(dev.token, 'PATCH', `/v1/resources/${hidden.json.id}`, { description: 'x' })).status, 404);
  const visible = await admin('POST', '/v1/resources', {
    kind: 'server',
    name: 'edit-dev',
    address: '10.0.0.4:22',
    labels: { env: 'dev' },
  });
  const changed = await as(dev.token, 'PATCH', `/v1/resources/${visible.json.id}`, { description: 'mine now' });
  assert.equal(changed.status, 200, changed.text);
});

test('search finds resources by any part of name, description, address or a label, on the server', async () => {
  for (const [name, labels] of [
    ['search-alpha', { team: 'Payments' }],
    ['search-beta', { team: 'infra' }],
  ] as const) {
    const r = await admin('POST', '/v1/resources', { kind: 'server', name, address: `${name}.internal:22`, labels });
    assert.equal(r.status, 201, r.text);
  }
  const names = async (query: string) =>
    ((await admin('GET', `/v1/resources?${query}`)).json.resources as Array<{ name: string }>).map((r) => r.name);
  assert.deepEqual(await names('search=ALPHA'), ['search-alpha']);
  assert.deepEqual(await names('search=team%3Dpayments'), ['search-alpha']);
  assert.deepEqual((await names('search=search-')).sort(), ['search-alpha', 'search-beta']);
  assert.deepEqual(await names('search=beta.internal&kind=server'), ['search-beta']);
  assert.deepEqual(await names('search=no-such-thing'), []);
  const servers = await admin('GET', '/v1/servers?search=alpha');
  assert.deepEqual(
    servers.json.servers.map((r: { name: string }) => r.name),
    ['search-alpha'],
  );
});
