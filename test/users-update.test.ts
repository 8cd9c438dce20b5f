// PATCH /v1/users/{id}: roles and traits change and take effect on the user's next request; unknown
// roles are refused at their path; the last active admin keeps `admin`; each change is an event.
// Who may change whom is walked by test/escalation.test.ts.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { requestsTo, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';

let gh: TestServer;
const { admin, as } = requestsTo(() => gh);
before(async () => {
  gh = await startTestServer();
});
after(() => gh.stop());

test('new roles apply to the user’s next request, with the token it already holds', async () => {
  const bob = await userWithRoles(gh, 'bob', ['auditor']);
  assert.equal((await as(bob.token, 'GET', '/v1/users')).status, 403);
  const res = await admin('PATCH', `/v1/users/${bob.id}`, {
    roles: ['auditor', 'editor'],
    traits: { logins: ['ubuntu'] },
  });
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(res.json.roles, ['auditor', 'editor']);
  assert.deepEqual(res.json.traits, { logins: ['ubuntu'] });
  assert.equal((await as(bob.token, 'GET', '/v1/users')).status, 200);
  const events = await admin('GET', `/v1/events?type=user.updated&target=${bob.id}`);
  assert.equal(events.json.events.length, 1);
  assert.deepEqual(events.json.events[0].data.changed, ['roles', 'traits']);
  assert.deepEqual(events.json.events[0].data.previous_roles, ['auditor']);
  // Taking the role back narrows at once.
  await admin('PATCH', `/v1/users/${bob.id}`, { roles: ['auditor'] });
  assert.equal((await as(bob.token, 'GET', '/v1/users')).status, 403);
});

test('unknown roles, unknown fields and an empty body are refused at their path', async () => {
  const carol = await userWithRoles(gh, 'carol', []);
  const unknown = await admin('PATCH', `/v1/users/${carol.id}`, { roles: ['auditor', 'no-such-role'] });
  assert.equal(unknown.status, 400);
  assert.equal(unknown.json.errors[0].path, '/body/roles/1');
  const rename = await admin('PATCH', `/v1/users/${carol.id}`, { name: 'karol' });
  assert.equal(rename.status, 400);
  assert.equal(rename.json.errors[0].path, '/body/name');
  assert.equal((await admin('PATCH', `/v1/users/${carol.id}`, {})).status, 400);
  assert.equal((await admin('PATCH', '/v1/users/user_00000000000000000000000000', { roles: [] })).status, 404);
});

test('the last active admin keeps admin (409); an admin who is not the last can lose it (control)', async () => {
  const me = (await admin('GET', '/v1/users?name=admin')).json.users[0];
  const refused = await admin('PATCH', `/v1/users/${me.id}`, { roles: ['editor'] });
  assert.equal(refused.status, 409);
  assert.match(refused.json.detail, /last active admin/);
  const second = await userWithRoles(gh, 'second-admin', ['admin']);
  const dropped = await admin('PATCH', `/v1/users/${second.id}`, { roles: ['editor'] });
  assert.equal(dropped.status, 200, dropped.text);
});
