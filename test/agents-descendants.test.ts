// What an agent starts ends with it: an agent created by an agent records it as its creator, and the
// kill switch suspends or revokes the whole line below it — agents, their credentials, tokens and
// sessions — counted per kind in the receipt. Reactivating the agent does not wake them; each is
// reactivated on its own. Agents that the same user created directly are the positive controls.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { SessionRecord } from '../src/sessions/session-registry.js';
import { api, requestsTo, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';

let server: TestServer;
const { admin, as } = requestsTo(() => server);
let bob: { id: string; token: string };

const login = async (apiKey: string): Promise<string> => {
  const res = await api(server.url, 'POST', '/v1/auth/token', { body: { api_key: apiKey } });
  assert.equal(res.status, 200, res.text);
  return res.json.access_token;
};
const works = async (token: string) => (await as(token, 'GET', '/v1/agents?per_page=1')).status;

/** Creates an agent as `token` (a user's or an agent's) with the agent-making role. */
async function agentBy(token: string, name: string): Promise<{ id: string; created_by: unknown }> {
  const res = await as(token, 'POST', '/v1/agents', { name, roles: ['agent-maker'] });
  assert.equal(res.status, 201, res.text);
  return res.json;
}
async function credentialBy(token: string, agentId: string, body: Record<string, unknown> = {}) {
  const res = await as(token, 'POST', `/v1/agents/${agentId}/credentials`, body);
  assert.equal(res.status, 201, res.text);
  return res.json;
}
/** A live session record of the agent, as a proxy would hold it (no proxy holds it here). */
async function sessionOf(agentId: string, name: string): Promise<string> {
  const id = `sess_${name.padEnd(26, '0').slice(0, 26)}`;
  const record: SessionRecord = {
    id,
    kind: 'ssh',
    type: 'shell',
    principal: { kind: 'agent', id: agentId, name },
    resource: { kind: 'server', id: 'srv_x', name: 'x' },
    login: 'ubuntu',
    remote_addr: '127.0.0.1',
    status: 'active',
    started_at: new Date().toISOString(),
    ended_at: null,
    bytes_in: 0,
    bytes_out: 0,
    recorded: false,
  };
  await server.gatehouse.services.state.insert(`sessions/${id}`, record);
  return id;
}
const statusOf = async (id: string) => (await admin('GET', `/v1/agents/${id}`)).json.status;

/**
 * P (bob's) creates C and gives it an API key; C issues itself another key and creates G with a
 * token. Answers every token each of them holds.
 */
async function family(prefix: string) {
  const p = await agentBy(bob.token, `${prefix}-p`);
  const pToken = (await credentialBy(bob.token, p.id)).access_token as string;
  const c = await agentBy(pToken, `${prefix}-c`);
  const cKey = (await credentialBy(pToken, c.id, { type: 'api_key' })).api_key as string;
  const cToken = await login(cKey);
  const cOwnKey = (await credentialBy(cToken, c.id, { type: 'api_key' })).api_key as string;
  const cOwnToken = await login(cOwnKey);
  const g = await agentBy(cOwnToken, `${prefix}-g`);
  const gToken = (await credentialBy(cOwnToken, g.id)).access_token as string;
  const gSession = await sessionOf(g.id, `${prefix}g`);
  return { p, pToken, c, cKey, cToken, cOwnKey, cOwnToken, g, gToken, gSession };
}

before(async () => {
  server = await startTestServer({ 'login_throttle.max_failures': 100_000 });
  const role = await admin('POST', '/v1/roles', {
    name: 'agent-maker',
    allow: { rules: [{ resources: ['agents'], verbs: ['*'] }] },
  });
  assert.equal(role.status, 201, role.text);
  bob = await userWithRoles(server, 'bob', ['agent-maker']);
});
after(() => server.stop());

describe('the kill switch reaches what an agent started', () => {
  test('an agent created by an agent names it as creator; the owner stays the accountable user', async () => {
    const p = await agentBy(bob.token, 'lineage-p');
    const pToken = (await credentialBy(bob.token, p.id)).access_token as string;
    const c = await agentBy(pToken, 'lineage-c');
    assert.deepEqual(c.created_by, { kind: 'agent', id: p.id });
    assert.equal((await admin('GET', `/v1/agents/${c.id}`)).json.owner, bob.id);
    assert.deepEqual(p.created_by, { kind: 'user', id: bob.id });
    // Nobody grants what they do not hold: an agent cannot make an agent with more than it has.
    const wider = await as(pToken, 'POST', '/v1/agents', { name: 'lineage-admin', roles: ['admin'] });
    assert.equal(wider.status, 403, wider.text);
  });

  test('suspending P suspends C and G and ends every credential, token and session they hold', async () => {
    const f = await family('susp');
    const sibling = await agentBy(bob.token, 'susp-sibling');
    const siblingToken = (await credentialBy(bob.token, sibling.id)).access_token as string;
    for (const t of [f.pToken, f.cToken, f.cOwnToken, f.gToken, siblingToken]) assert.equal(await works(t), 200);

    const res = await as(bob.token, 'PATCH', `/v1/agents/${f.p.id}`, { status: 'suspended' });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual([...res.json.ended_agents].sort(), [f.c.id, f.g.id].sort());
    // C: two API-key credentials, each with one login (access and refresh token); G: one token credential.
    assert.deepEqual(res.json.descendants, { agents: 2, credentials: 3, tokens: 5, sessions: 1 });
    assert.deepEqual(res.json.ended_sessions, [f.gSession], 'the totals include what the descendants held');
    assert.equal(res.json.revoked_tokens, 6, "P's own token and the descendants' five");
    assert.equal(res.json.revoked_credentials, 4);

    for (const t of [f.pToken, f.cToken, f.cOwnToken, f.gToken]) {
      const refused = await as(t, 'GET', '/v1/agents?per_page=1');
      assert.equal(refused.status, 401, refused.text);
    }
    for (const key of [f.cKey, f.cOwnKey]) {
      const refused = await api(server.url, 'POST', '/v1/auth/token', { body: { api_key: key } });
      assert.equal(refused.status, 401, 'its API keys are gone');
    }
    assert.equal(await statusOf(f.c.id), 'suspended');
    assert.equal(await statusOf(f.g.id), 'suspended');
    const session = server.gatehouse.services.state.get<SessionRecord>(`sessions/${f.gSession}`)?.value;
    assert.equal(session?.status, 'terminated');
    const events = (await admin('GET', `/v1/events?type=agent.suspended&target=${f.g.id}`)).json.events;
    assert.equal(events.length, 1);
    assert.equal(events[0].data.reason, 'creator_suspended');
    assert.equal(await works(siblingToken), 200, 'positive control: an agent bob created himself');
  });

  test('reactivating P does not wake C and G; each is reactivated on its own, and not before P', async () => {
    const f = await family('wake');
    assert.equal((await as(bob.token, 'PATCH', `/v1/agents/${f.p.id}`, { status: 'suspended' })).status, 200);
    const early = await as(bob.token, 'PATCH', `/v1/agents/${f.c.id}`, { status: 'active' });
    assert.equal(early.status, 409, 'C cannot wake while the agent that created it is suspended');
    assert.match(early.json.detail, /suspended/);

    assert.equal((await as(bob.token, 'PATCH', `/v1/agents/${f.p.id}`, { status: 'active' })).status, 200);
    assert.equal(await statusOf(f.p.id), 'active');
    assert.equal(await statusOf(f.c.id), 'suspended', 'descendants stay suspended until reactivated explicitly');
    assert.equal(await statusOf(f.g.id), 'suspended');
    const pToken = (await credentialBy(bob.token, f.p.id)).access_token as string;
    assert.equal(await works(pToken), 200, 'positive control: P works again with a new credential');

    assert.equal((await as(bob.token, 'PATCH', `/v1/agents/${f.c.id}`, { status: 'active' })).status, 200);
    const cToken = (await credentialBy(bob.token, f.c.id)).access_token as string;
    assert.equal(await works(cToken), 200);
    assert.equal(await statusOf(f.g.id), 'suspended');
  });

  test('revoking P revokes C and G (terminal); deleting an agent revokes what it created', async () => {
    const f = await family('rev');
    const res = await as(bob.token, 'PATCH', `/v1/agents/${f.p.id}`, { status: 'revoked' });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.descendants.agents, 2);
    assert.equal(await statusOf(f.c.id), 'revoked');
    assert.equal(await statusOf(f.g.id), 'revoked');
    assert.equal((await as(f.gToken, 'GET', '/v1/agents?per_page=1')).status, 401);

    const d = await family('del');
    const deleted = await as(bob.token, 'DELETE', `/v1/agents/${d.p.id}`);
    assert.equal(deleted.status, 200, deleted.text);
    assert.deepEqual([...deleted.json.ended_agents].sort(), [d.c.id, d.g.id].sort());
    assert.equal(await statusOf(d.c.id), 'revoked');
    assert.equal((await as(d.cOwnToken, 'GET', '/v1/agents?per_page=1')).status, 401);
  });

  test("deleting the owner revokes its agents and their lines at once, each agent's part written once", async () => {
    const carol = await userWithRoles(server, 'carol', ['agent-maker']);
    const saved = bob;
    bob = carol;
    try {
      const f = await family('owner');
      const res = await admin('DELETE', `/v1/users/${carol.id}`);
      assert.equal(res.status, 200, res.text);
      for (const id of [f.p.id, f.c.id, f.g.id]) assert.equal(await statusOf(id), 'revoked');
      assert.deepEqual(res.json.ended_sessions, [f.gSession]);
      assert.equal((await as(f.gToken, 'GET', '/v1/agents?per_page=1')).status, 401);
    } finally {
      bob = saved;
    }
    assert.equal((await as(bob.token, 'GET', '/v1/agents?per_page=1')).status, 200, 'positive control: bob');
  });

  test("a descendant is refused as soon as its creator's status changes, before its own record is marked", async () => {
    const f = await family('atonce');
    const state = server.gatehouse.services.state;
    const item = state.get<Record<string, unknown>>(`agents/${f.c.id}`);
    assert.ok(item);
    // Only C's record changes, as the first write of a kill switch in parts on etcd would: G's status
    // and tokens are untouched.
    await state.replace(item.key, item.revision, { ...item.value, status: 'suspended' });
    const refused = await as(f.gToken, 'GET', '/v1/agents?per_page=1');
    assert.equal(refused.status, 401);
    assert.equal(refused.json.code, 'agent_suspended');
    assert.equal(await works(f.pToken), 200, 'positive control: the creator above is not affected');
  });
});
