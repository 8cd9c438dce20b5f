// Changes larger than one etcd transaction (128 operations, etcd's default --max-txn-ops) on a real
// etcd: a principal with many tokens suspended, deleted or stripped of a credential, and webhook
// deliveries for many events and webhooks at once. Each was refused before as if etcd had lost quorum
// (503 state_unavailable, and no retry could help; the dispatcher stalled); now the decisive record
// goes first and the rest follows in parts. Every token is asserted to work before and to be refused
// after, and the events say how many were revoked.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { keys, prefixes } from '../src/auth/records.js';
import { type EtcdCluster, startEtcd } from './helpers/etcd.js';
import { api, requestsTo, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';

const keyDir = mkdtempSync(join(tmpdir(), 'gatehouse-seal-'));
const sealKey = join(keyDir, 'seal.key');
writeFileSync(sealKey, randomBytes(32), { mode: 0o600 });

let etcd: EtcdCluster;
let server: TestServer;
const { admin, as } = requestsTo(() => server);
// A webhook receiver on loopback: hits by path.
const hits = new Map<string, number>();
const receiver = createServer((req, res) => {
  req.resume().on('end', () => {
    hits.set(req.url ?? '/', (hits.get(req.url ?? '/') ?? 0) + 1);
    res.end('thanks');
  });
});

before(async () => {
  etcd = await startEtcd(1);
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  server = await startTestServer({
    backend_url: etcd.url('/large-writes/'),
    seal_key_file: sealKey,
    'webhooks.deliver': true,
    webhook_allowed_hosts: ['127.0.0.1'],
    // Slow enough that a burst of events is read in one step.
    'webhooks.poll_interval': '1s',
  });
});

after(async () => {
  await server?.stop();
  await etcd?.close();
  receiver.closeAllConnections();
  receiver.close();
  rmSync(keyDir, { recursive: true, force: true });
});

// 70 logins hold 140 tokens: with the records they belong to, more than one etcd write takes.
const LOGINS = 70;

async function logins(apiKey: string, n = LOGINS): Promise<string[]> {
  const tokens: string[] = [];
  for (let i = 0; i < n; i++) {
    const reply = await api(server.url, 'POST', '/v1/auth/token', { body: { api_key: apiKey } });
    assert.equal(reply.status, 200, reply.text);
    tokens.push(reply.json.access_token);
  }
  return tokens;
}

/** Every token answers `status` on a read it could make before. */
async function allAnswer(tokens: string[], path: string, status: number, code?: string) {
  const replies = await Promise.all(tokens.map((t) => as(t, 'GET', path)));
  const wrong = replies.filter((r) => r.status !== status || (code !== undefined && r.json?.code !== code));
  assert.equal(wrong.length, 0, `${wrong.length} of ${tokens.length} answered ${wrong[0]?.status} ${wrong[0]?.text}`);
}

async function lastEvent(type: string) {
  const reply = await admin('GET', `/v1/events?type=${type}&per_page=1`);
  assert.equal(reply.status, 200, reply.text);
  return reply.json.events[0];
}

async function agent(name: string): Promise<string> {
  const created = await admin('POST', '/v1/agents', { name, roles: ['auditor'] });
  assert.equal(created.status, 201, created.text);
  return created.json.id;
}

async function agentWithKey(name: string) {
  const agent = await admin('POST', '/v1/agents', { name, roles: ['auditor'] });
  assert.equal(agent.status, 201, agent.text);
  const credential = await admin('POST', `/v1/agents/${agent.json.id}/credentials`, { type: 'api_key' });
  assert.equal(credential.status, 201, credential.text);
  return { id: agent.json.id as string, credentialId: credential.json.id as string, apiKey: credential.json.api_key };
}

test('an agent with 140 tokens is suspended: every token refused, all of them revoked', async () => {
  const agent = await agentWithKey('many-logins-suspended');
  const tokens = await logins(agent.apiKey);
  await allAnswer(tokens, '/v1/events?per_page=1', 200);

  const suspended = await admin('PATCH', `/v1/agents/${agent.id}`, { status: 'suspended' });
  assert.equal(suspended.status, 200, suspended.text);
  await allAnswer(tokens, '/v1/events?per_page=1', 401, 'agent_suspended');
  const event = await lastEvent('agent.suspended');
  assert.equal(event.target.id, agent.id);
  assert.equal(event.data.revoked_tokens, 2 * LOGINS);
  // Every token record says so (not only refused through the agent's status).
  const login = await api(server.url, 'POST', '/v1/auth/token', { body: { api_key: agent.apiKey } });
  assert.equal(login.status, 401, 'its API key went with it');
});

test('a credential whose key made 70 logins is revoked: its tokens refused, the agent unharmed', async () => {
  const agent = await agentWithKey('many-logins-credential');
  const other = await admin('POST', `/v1/agents/${agent.id}/credentials`, {});
  assert.equal(other.status, 201, other.text);
  const tokens = await logins(agent.apiKey);
  await allAnswer(tokens, '/v1/events?per_page=1', 200);

  const revoked = await admin('DELETE', `/v1/agents/${agent.id}/credentials/${agent.credentialId}`);
  assert.equal(revoked.status, 200, revoked.text);
  assert.equal(revoked.json.revoked_tokens, 2 * LOGINS);
  await allAnswer(tokens, '/v1/events?per_page=1', 401, 'token_revoked');
  await allAnswer([other.json.access_token], '/v1/events?per_page=1', 200);
});

test('a user with 140 tokens is deleted: every token refused', async () => {
  const user = await admin('POST', '/v1/users', { name: 'many-logins-user', roles: ['auditor'] });
  assert.equal(user.status, 201, user.text);
  const key = await admin('POST', `/v1/users/${user.json.id}/api-keys`, {});
  assert.equal(key.status, 201, key.text);
  const tokens = await logins(key.json.api_key);
  await allAnswer(tokens, '/v1/events?per_page=1', 200);

  const deleted = await admin('DELETE', `/v1/users/${user.json.id}`);
  assert.ok(deleted.status === 200 || deleted.status === 204, deleted.text);
  await allAnswer(tokens, '/v1/events?per_page=1', 401);
  const event = await lastEvent('user.deleted');
  assert.equal(event.target.id, user.json.id);
  assert.equal(event.data.revoked_tokens, 2 * LOGINS);
});

test('a token whose credential is revoked is refused by the revoked record alone', async () => {
  // As when a revocation in parts stopped after its first write: the credential marked, its token not.
  const agent = await admin('POST', '/v1/agents', { name: 'credential-record-only', roles: ['auditor'] });
  assert.equal(agent.status, 201, agent.text);
  const credential = await admin('POST', `/v1/agents/${agent.json.id}/credentials`, {});
  const other = await admin('POST', `/v1/agents/${agent.json.id}/credentials`, {});
  await allAnswer([credential.json.access_token, other.json.access_token], '/v1/events?per_page=1', 200);
  const { state } = server.gatehouse.services;
  const item = state.get<Record<string, unknown>>(keys.credential(agent.json.id, credential.json.id));
  assert.ok(item);
  await state.write(
    [{ key: item.key, revision: item.revision }],
    [{ type: 'put', key: item.key, value: JSON.stringify({ ...item.value, revoked_at: new Date().toISOString() }) }],
  );
  await allAnswer([credential.json.access_token], '/v1/events?per_page=1', 401, 'token_revoked');
  await allAnswer([other.json.access_token], '/v1/events?per_page=1', 200);
});

test('five webhooks and a burst of 100 events: every delivery is recorded and sent', async () => {
  const HOOKS = 5;
  for (let i = 0; i < HOOKS; i++) {
    const hook = await admin('POST', '/v1/webhooks', {
      name: `burst-${i}`,
      url: `http://127.0.0.1:${(receiver.address() as { port: number }).port}/burst-${i}`,
      event_types: ['auth.token.issued'],
    });
    assert.equal(hook.status, 201, hook.text);
  }
  const user = await admin('POST', '/v1/users', { name: 'burst-user', roles: ['auditor'] });
  const key = await admin('POST', `/v1/users/${user.json.id}/api-keys`, {});
  // In parallel, well within one poll: one step reads them all, 500 deliveries for one write.
  const burst = await Promise.all(
    Array.from({ length: 100 }, () =>
      api(server.url, 'POST', '/v1/auth/token', { body: { api_key: key.json.api_key } }),
    ),
  );
  assert.deepEqual(new Set(burst.map((r) => r.status)), new Set([200]));
  const deadline = Date.now() + 20_000;
  const sent = () => Array.from({ length: HOOKS }, (_, i) => hits.get(`/burst-${i}`) ?? 0);
  while (sent().some((n) => n < 100) && Date.now() < deadline) await sleep(50);
  assert.deepEqual(sent(), Array(HOOKS).fill(100), 'each webhook got each login once');
});

test('a user owning more agents than one write can revoke is refused with the reason; with fewer, deleted', async () => {
  const role = await admin('POST', '/v1/roles', {
    name: 'bulk-agent-maker',
    allow: { rules: [{ resources: ['agents'], verbs: ['*'] }] },
  });
  assert.equal(role.status, 201, role.text);
  const owner = await userWithRoles(server, 'bulk-owner', ['bulk-agent-maker', 'auditor']);
  const agents: string[] = [];
  for (let i = 0; i < 130; i++) {
    const agent = await as(owner.token, 'POST', '/v1/agents', { name: `bulk-${i}`, roles: ['auditor'] });
    assert.equal(agent.status, 201, agent.text);
    agents.push(agent.json.id);
  }
  const refused = await admin('DELETE', `/v1/users/${owner.id}`);
  assert.equal(refused.status, 409, refused.text);
  assert.match(refused.json.detail, /owns 130 agents, more than can be revoked with it in one write; delete or revoke/);
  assert.equal((await admin('GET', `/v1/users/${owner.id}`)).status, 200, 'nothing was deleted');

  for (const id of agents.slice(0, 10))
    assert.equal((await admin('PATCH', `/v1/agents/${id}`, { status: 'revoked' })).status, 200);
  const deleted = await admin('DELETE', `/v1/users/${owner.id}`);
  assert.ok(deleted.status === 200 || deleted.status === 204, deleted.text);
  const after = await Promise.all(agents.slice(10).map((id) => admin('GET', `/v1/agents/${id}`)));
  assert.deepEqual(new Set(after.map((r) => r.json.status)), new Set(['revoked']));
});

/**
 * Undoes the revocation of a credential and its token, as if the part of a write in parts that
 * marked them had never been written.
 */
async function unrevoke(agentId: string, credentialId: string): Promise<void> {
  const { state } = server.gatehouse.services;
  const token = state
    .list<{ credential_id?: string; revoked_at?: number }>(prefixes.tokens)
    .find((t) => t.value.credential_id === credentialId);
  const credential = state.get<{ revoked_at?: string }>(keys.credential(agentId, credentialId));
  assert.ok(token?.value.revoked_at && credential?.value.revoked_at, 'both were revoked');
  const { revoked_at: _t, revoked_reason: _tr, ...liveToken } = token.value as Record<string, unknown>;
  const { revoked_at: _c, revoked_reason: _cr, ...liveCredential } = credential.value as Record<string, unknown>;
  await state.write(
    [
      { key: token.key, revision: token.revision },
      { key: credential.key, revision: credential.revision },
    ],
    [
      { type: 'put', key: token.key, value: JSON.stringify(liveToken) },
      { type: 'put', key: credential.key, value: JSON.stringify(liveCredential) },
    ],
  );
}

test('reactivating an agent first writes what its suspension left unwritten: no token comes back', async () => {
  const id = await agent('leftover-suspended');
  const credential = await admin('POST', `/v1/agents/${id}/credentials`, {});
  assert.equal((await admin('PATCH', `/v1/agents/${id}`, { status: 'suspended' })).status, 200);
  await unrevoke(id, credential.json.id);
  await allAnswer([credential.json.access_token], '/v1/events?per_page=1', 401, 'agent_suspended');

  assert.equal((await admin('PATCH', `/v1/agents/${id}`, { status: 'active' })).status, 200);
  await allAnswer([credential.json.access_token], '/v1/events?per_page=1', 401, 'token_revoked');
  const fresh = await admin('POST', `/v1/agents/${id}/credentials`, {});
  await allAnswer([fresh.json.access_token], '/v1/events?per_page=1', 200);
});

test('a new consent does not bring back what the agent held for the user under the last one', async () => {
  const user = await userWithRoles(server, 'leftover-user', ['auditor']);
  const id = await agent('leftover-delegated');
  const actor = (await admin('POST', `/v1/agents/${id}/credentials`, {})).json.access_token;
  const exchange = () =>
    api(server.url, 'POST', '/v1/auth/token', {
      body: {
        grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
        subject_token: user.token,
        actor_token: actor,
      },
    });
  assert.equal((await as(user.token, 'POST', `/v1/agents/${id}/delegations`, {})).status, 201);
  const delegated = await exchange();
  assert.equal(delegated.status, 200, delegated.text);
  const credentialId = (await admin('GET', `/v1/agents/${id}/credentials?per_page=100`)).json.credentials.find(
    (c: { on_behalf_of: string | null }) => c.on_behalf_of === user.id,
  ).id;
  assert.equal((await as(user.token, 'DELETE', `/v1/agents/${id}/delegations/${user.id}`)).status, 200);
  await unrevoke(id, credentialId);

  assert.equal((await as(user.token, 'POST', `/v1/agents/${id}/delegations`, {})).status, 201);
  await allAnswer([delegated.json.access_token], '/v1/events?per_page=1', 401, 'token_revoked');
  const again = await exchange();
  assert.equal(again.status, 200, again.text);
  await allAnswer([again.json.access_token], '/v1/events?per_page=1', 200);
});
