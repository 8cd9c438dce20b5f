// What one agent holds of credential records is bounded (agents.max_credentials, 5 here): an
// issuance over the bound removes the agent's oldest records that let nobody in any more (expired or
// revoked) in its own write, and is refused — saying why and what to do — when every record held is
// still live. Token exchange counts the same way. Each refusal has its allowed twin.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { keys, prefixes } from '../src/auth/records.js';
import { requestsTo, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';

let server: TestServer;
const { admin, as } = requestsTo(() => server);
before(async () => {
  server = await startTestServer({ 'agents.max_credentials': 5, 'agents.credentials_per_minute': 1000 });
});
after(() => server.stop());

async function agent(name: string): Promise<string> {
  const created = await admin('POST', '/v1/agents', { name, roles: ['auditor'] });
  assert.equal(created.status, 201, created.text);
  return created.json.id;
}
const issue = (id: string, ttl = 3600) => admin('POST', `/v1/agents/${id}/credentials`, { ttl });
const held = async (id: string) => (await admin('GET', `/v1/agents/${id}/credentials?per_page=100`)).json.credentials;

test('the sixth live credential is refused; revoking one makes room, and the revoked record goes', async () => {
  const id = await agent('bound-live');
  const issued = [];
  for (let i = 0; i < 5; i++) {
    const reply = await issue(id);
    assert.equal(reply.status, 201, reply.text);
    issued.push(reply.json);
  }
  const refused = await issue(id);
  assert.equal(refused.status, 409, refused.text);
  assert.match(
    refused.json.detail,
    /holds 5 credentials, none of them expired or revoked \(agents\.max_credentials is 5\)/,
  );
  assert.equal((await held(id)).length, 5, 'nothing was written');
  assert.equal((await as(issued[0].access_token, 'GET', '/v1/events?per_page=1')).status, 200, 'none was ended');

  const revoked = await admin('DELETE', `/v1/agents/${id}/credentials/${issued[1].id}`);
  assert.equal(revoked.status, 200, revoked.text);
  const allowed = await issue(id);
  assert.equal(allowed.status, 201, allowed.text);
  const now = (await held(id)).map((c: { id: string }) => c.id).sort();
  assert.deepEqual(now, [issued[0].id, issued[2].id, issued[3].id, issued[4].id, allowed.json.id].sort());
  assert.equal((await as(issued[1].access_token, 'GET', '/v1/events?per_page=1')).status, 401);
  assert.equal((await as(allowed.json.access_token, 'GET', '/v1/events?per_page=1')).status, 200);
});

test('expired records make room, oldest first and only as many as needed, with their tokens', async () => {
  const id = await agent('bound-expired');
  const short = [];
  for (let i = 0; i < 3; i++) short.push((await issue(id, 60)).json);
  for (let i = 0; i < 2; i++) assert.equal((await issue(id)).status, 201);
  const { state } = server.gatehouse.services;
  const tokensOf = (credentialId: string) =>
    state.list<{ credential_id?: string }>(prefixes.tokens).filter((t) => t.value.credential_id === credentialId);
  assert.equal(tokensOf(short[0].id).length, 1, 'the positive control: its token is there');
  server.clockOffset.ms += 120_000; // the three short ones have expired
  try {
    const first = await issue(id);
    assert.equal(first.status, 201, first.text);
    assert.equal(state.get(keys.credential(id, short[0].id)), undefined, 'the oldest expired record went');
    assert.ok(state.get(keys.credential(id, short[1].id)), 'only as many as needed');
    assert.equal(tokensOf(short[0].id).length, 0, "the removed credential's token went with it");
    assert.equal(tokensOf(short[1].id).length, 1);
    const listed = (await held(id)).map((c: { id: string }) => c.id);
    assert.equal(listed.length, 5, 'at the bound: the two expired ones left, the two long ones, the new one');
    assert.ok(!listed.includes(short[0].id));
  } finally {
    server.clockOffset.ms -= 120_000;
  }
});

test('token exchange is bounded by the same count', async () => {
  const user = await userWithRoles(server, 'bound-user', ['auditor']);
  const id = await agent('bound-exchange');
  const grant = await as(user.token, 'POST', `/v1/agents/${id}/delegations`, {});
  assert.equal(grant.status, 201, grant.text);
  const actor = (await issue(id)).json.access_token;
  const exchange = () =>
    as(user.token, 'POST', '/v1/auth/token', {
      grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
      subject_token: user.token,
      actor_token: actor,
    });
  for (let i = 0; i < 4; i++) assert.equal((await exchange()).status, 200);
  const refused = await exchange();
  assert.equal(refused.status, 409, refused.text);
  assert.match(refused.json.detail, /agents\.max_credentials is 5/);
});
