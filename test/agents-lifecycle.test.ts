// AI agents over real HTTP: PATCH/DELETE, every status transition and the forbidden ones, the kill
// switch (what it ends, how fast, on another instance through the watch), owner deletion, last use.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openSqliteAuditStore } from '../src/audit/sqlite.js';
import type { Principal } from '../src/auth/principal.js';
import { openSqliteBackend } from '../src/backend/sqlite.js';
import { loadConfig } from '../src/config/load.js';
import { BUILTIN_ROLES } from '../src/rbac/builtin-roles.js';
import { compilePolicy } from '../src/rbac/policy.js';
import { createServices } from '../src/services.js';
import { api, requestsTo, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';

let server: TestServer;
const { admin, as } = requestsTo(() => server);
before(async () => {
  server = await startTestServer({ 'login_throttle.max_failures': 100_000 });
});
after(() => server.stop());

async function newAgent(name: string, extra: Record<string, unknown> = {}) {
  const res = await admin('POST', '/v1/agents', { name, roles: ['auditor'], ...extra });
  assert.equal(res.status, 201, res.text);
  return res.json as { id: string; name: string };
}
async function credential(agentId: string, body: Record<string, unknown> = {}) {
  const res = await admin('POST', `/v1/agents/${agentId}/credentials`, body);
  assert.equal(res.status, 201, res.text);
  return res.json;
}
async function eventsOf(type: string, target: string) {
  return (await admin('GET', `/v1/events?type=${type}&target=${target}&per_page=100`)).json.events as Array<{
    actor: { id: string };
    data: Record<string, unknown>;
  }>;
}

describe('PATCH and list filters', () => {
  test('name, description, labels, roles and limits change; an event names the fields; filters find them', async () => {
    const agent = await newAgent('patch-me');
    const res = await admin('PATCH', `/v1/agents/${agent.id}`, {
      name: 'patched',
      description: 'now documented',
      labels: { team: 'infra', env: 'dev' },
      roles: ['auditor', 'access'],
      max_credential_ttl: 900,
      rate_limit: { requests_per_minute: 100 },
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.name, 'patched');
    assert.deepEqual(res.json.labels, { team: 'infra', env: 'dev' });
    assert.deepEqual(res.json.roles, ['auditor', 'access']);
    assert.equal(res.json.max_credential_ttl, 900);
    assert.deepEqual(res.json.rate_limit, { requests_per_minute: 100, credentials_per_minute: null });
    assert.equal(res.json.revoked_tokens, undefined, 'no kill-switch report without a status change');
    assert.ok(res.json.updated_at >= res.json.created_at);
    const updated = await eventsOf('agent.updated', agent.id);
    assert.equal(updated.length, 1);
    const fields = updated[0]?.data.fields as string[];
    assert.deepEqual([...fields].sort(), [
      'description',
      'labels',
      'max_credential_ttl',
      'name',
      'rate_limit',
      'roles',
    ]);
    // The old name is free again, the new one is taken.
    assert.equal((await admin('POST', '/v1/agents', { name: 'patch-me' })).status, 201);
    const other = await newAgent('other-name');
    assert.equal((await admin('PATCH', `/v1/agents/${other.id}`, { name: 'patched' })).status, 409);
    assert.equal((await admin('PATCH', `/v1/agents/${other.id}`, {})).status, 400, 'an empty PATCH is refused');

    assert.equal((await admin('GET', '/v1/agents?label=team=infra&label=env=dev')).json.agents[0].id, agent.id);
    assert.equal((await admin('GET', '/v1/agents?label=team=other')).json.pagination.total, 0);
    assert.equal((await admin('GET', '/v1/agents?name=patched')).json.agents.length, 1);
    const me = (await admin('GET', `/v1/agents/${agent.id}`)).json.owner;
    assert.ok((await admin('GET', `/v1/agents?owner=${me}`)).json.pagination.total >= 3);
    assert.equal((await admin('GET', '/v1/agents?owner=user_0000000000000000000000zzzz')).json.pagination.total, 0);
    await admin('PATCH', `/v1/agents/${other.id}`, { status: 'suspended' });
    const suspended = (await admin('GET', '/v1/agents?status=suspended')).json.agents;
    assert.deepEqual(
      suspended.map((a: { id: string }) => a.id),
      [other.id],
    );
  });
});

describe('lifecycle', () => {
  test('active → suspended ends every token and credential; held tokens answer agent_suspended', async () => {
    const agent = await newAgent('lifecycle-1');
    const token = (await credential(agent.id)).access_token as string;
    const key = (await credential(agent.id, { type: 'api_key' })).api_key as string;
    const pair = (await api(server.url, 'POST', '/v1/auth/token', { body: { api_key: key } })).json;
    assert.equal((await as(token, 'GET', '/v1/events?per_page=1')).status, 200);
    assert.equal((await as(pair.access_token, 'GET', '/v1/events?per_page=1')).status, 200);

    const res = await admin('PATCH', `/v1/agents/${agent.id}`, { status: 'suspended' });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.status, 'suspended');
    assert.equal(res.json.revoked_tokens, 3, 'the token credential, and the access and refresh token of the key');
    assert.equal(res.json.revoked_credentials, 2);
    assert.deepEqual(res.json.ended_sessions, []);

    for (const t of [token, pair.access_token]) {
      const held = await as(t, 'GET', '/v1/events?per_page=1');
      assert.equal(held.status, 401);
      assert.equal(held.json.code, 'agent_suspended');
      assert.match(held.headers.get('www-authenticate') ?? '', /invalid_token/);
    }
    assert.equal((await api(server.url, 'POST', '/v1/auth/token', { body: { api_key: key } })).status, 401);
    assert.equal(
      (await api(server.url, 'POST', '/v1/auth/refresh', { body: { refresh_token: pair.refresh_token } })).status,
      401,
    );
    const refused = await admin('POST', `/v1/agents/${agent.id}/credentials`, {});
    assert.equal(refused.status, 409, 'a suspended agent is issued nothing');
    const list = (await admin('GET', `/v1/agents/${agent.id}/credentials`)).json.credentials;
    assert.equal(list.length, 2);
    assert.ok(list.every((c: { revoked_at: string | null }) => c.revoked_at !== null));
    const [event] = await eventsOf('agent.suspended', agent.id);
    assert.equal(event?.data.revoked_tokens, 3);

    // Suspending again changes nothing and reports nothing.
    const again = await admin('PATCH', `/v1/agents/${agent.id}`, { status: 'suspended' });
    assert.equal(again.status, 200);
    assert.equal(again.json.revoked_tokens, undefined);
    assert.equal((await eventsOf('agent.suspended', agent.id)).length, 1);
  });

  test('suspended → active: old tokens stay dead, new credentials work; → revoked is terminal (409 back)', async () => {
    const agent = await newAgent('lifecycle-2');
    const old = (await credential(agent.id)).access_token as string;
    assert.equal((await admin('PATCH', `/v1/agents/${agent.id}`, { status: 'suspended' })).status, 200);
    const back = await admin('PATCH', `/v1/agents/${agent.id}`, { status: 'active' });
    assert.equal(back.status, 200);
    assert.equal(back.json.status, 'active');
    assert.equal((await eventsOf('agent.reactivated', agent.id)).length, 1);
    const oldNow = await as(old, 'GET', '/v1/events?per_page=1');
    assert.equal(oldNow.status, 401);
    assert.equal(oldNow.json.code, 'token_revoked', 'reactivation does not revive revoked tokens');
    const fresh = (await credential(agent.id)).access_token as string;
    assert.equal((await as(fresh, 'GET', '/v1/events?per_page=1')).status, 200);

    const revoked = await admin('PATCH', `/v1/agents/${agent.id}`, { status: 'revoked' });
    assert.equal(revoked.status, 200);
    assert.equal(revoked.json.status, 'revoked');
    assert.equal(revoked.json.revoked_tokens, 1);
    assert.equal(revoked.json.revoked_credentials, 1);
    const dead = await as(fresh, 'GET', '/v1/events?per_page=1');
    assert.equal(dead.status, 401);
    assert.equal(dead.json.code, 'token_revoked');
    assert.equal((await eventsOf('agent.revoked', agent.id)).length, 1);

    for (const body of [{ status: 'active' }, { status: 'suspended' }, { name: 'renamed' }, { roles: [] }]) {
      const res = await admin('PATCH', `/v1/agents/${agent.id}`, body);
      assert.equal(res.status, 409, `revoked → ${JSON.stringify(body)}`);
      assert.equal(res.json.code, 'conflict');
    }
    assert.equal((await admin('PATCH', `/v1/agents/${agent.id}`, { status: 'revoked' })).status, 200, 'idempotent');
    assert.equal((await admin('POST', `/v1/agents/${agent.id}/credentials`, {})).status, 409);
    assert.equal((await admin('GET', `/v1/agents/${agent.id}`)).json.status, 'revoked');
  });

  test('suspended → revoked directly; active → revoked directly', async () => {
    const a = await newAgent('lifecycle-3');
    assert.equal((await admin('PATCH', `/v1/agents/${a.id}`, { status: 'suspended' })).status, 200);
    const r = await admin('PATCH', `/v1/agents/${a.id}`, { status: 'revoked' });
    assert.equal(r.status, 200);
    assert.equal(r.json.status, 'revoked');
    const b = await newAgent('lifecycle-4');
    const t = (await credential(b.id)).access_token as string;
    const r2 = await admin('PATCH', `/v1/agents/${b.id}`, { status: 'revoked' });
    assert.equal(r2.json.status, 'revoked');
    assert.equal(r2.json.revoked_tokens, 1);
    assert.equal((await as(t, 'GET', '/v1/events')).status, 401);
  });

  test('DELETE revokes everything, answers what it ended, and removes the agent', async () => {
    const agent = await newAgent('delete-me');
    const t1 = (await credential(agent.id)).access_token as string;
    await credential(agent.id, { type: 'api_key' });
    const res = await admin('DELETE', `/v1/agents/${agent.id}`);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.json, {
      id: agent.id,
      revoked_tokens: 1,
      revoked_credentials: 2,
      ended_sessions: [],
      confirmed_ended_sessions: [],
      revoked_issued_for_others: { api_keys: 0, ssh_keys: 0, credentials: 0, tokens: 0 },
      ended_agents: [],
      descendants: { agents: 0, credentials: 0, tokens: 0, sessions: 0 },
    });
    assert.equal((await as(t1, 'GET', '/v1/events')).status, 401);
    assert.equal((await admin('GET', `/v1/agents/${agent.id}`)).status, 404);
    assert.equal((await admin('DELETE', `/v1/agents/${agent.id}`)).status, 404);
    assert.equal((await admin('GET', `/v1/agents/${agent.id}/credentials`)).status, 404);
    assert.equal((await eventsOf('agent.deleted', agent.id)).length, 1);
    assert.equal((await admin('POST', '/v1/agents', { name: 'delete-me' })).status, 201, 'the name is free again');
  });

  test('the kill switch ends the live sessions of the agent and lists them', async () => {
    const agent = await newAgent('has-sessions');
    const other = await newAgent('has-no-sessions');
    const session = (id: string, principalId: string, status: string) => ({
      type: 'put' as const,
      key: `sessions/${id}`,
      value: JSON.stringify({
        id,
        kind: 'ssh',
        principal: { kind: 'agent', id: principalId, name: 'x' },
        resource: { kind: 'server', id: 'srv_0000000000000000000000abcd', name: 'web-1' },
        type: 'shell',
        login: 'ubuntu',
        remote_addr: '127.0.0.1',
        status,
        started_at: new Date().toISOString(),
        ended_at: null,
        bytes_in: 0,
        bytes_out: 0,
        recorded: true,
      }),
    });
    // Records as the proxy writes them, without a live connection (test/ssh-proxy.test.ts has one).
    await server.gatehouse.services.state.write(
      [],
      [
        session('sess_00000000000000000000000001', agent.id, 'active'),
        session('sess_00000000000000000000000002', agent.id, 'ended'),
        session('sess_00000000000000000000000003', other.id, 'active'),
      ],
    );
    const res = await admin('PATCH', `/v1/agents/${agent.id}`, { status: 'suspended' });
    assert.deepEqual(res.json.ended_sessions, ['sess_00000000000000000000000001']);
    const terminated1 = (await admin('GET', '/v1/sessions?status=terminated')).json.sessions;
    assert.deepEqual(
      terminated1.map((s: { id: string }) => s.id),
      ['sess_00000000000000000000000001'],
    );
    assert.notEqual(terminated1[0].ended_at, null);
    const active = (await admin('GET', '/v1/sessions?status=active')).json.sessions;
    assert.deepEqual(
      active.map((s: { id: string }) => s.id),
      ['sess_00000000000000000000000003'],
    );
    const terminated = await admin('GET', '/v1/events?type=session.terminated&per_page=10');
    assert.equal(terminated.json.events[0].session_id, 'sess_00000000000000000000000001');
  });

  test("a suspended agent's held token is refused within 1 s of the PATCH", async () => {
    const agent = await newAgent('fast-kill');
    const token = (await credential(agent.id)).access_token as string;
    let stop = false;
    let firstRefusal = 0;
    const poller = (async () => {
      while (!stop) {
        const res = await as(token, 'GET', '/v1/agents?per_page=1');
        if (res.status === 401) {
          firstRefusal = performance.now();
          assert.equal(res.json.code, 'agent_suspended');
          return;
        }
      }
    })();
    // The agent's token lacks agents:list (403) until the suspension; let it run a little first.
    await new Promise((r) => setTimeout(r, 50));
    const started = performance.now();
    const patch = await admin('PATCH', `/v1/agents/${agent.id}`, { status: 'suspended' });
    assert.equal(patch.status, 200);
    await Promise.race([poller, new Promise((r) => setTimeout(r, 2000))]);
    stop = true;
    assert.ok(firstRefusal > 0, 'the held token was never refused');
    const latency = firstRefusal - started;
    assert.ok(latency < 1000, `refused after ${latency.toFixed(0)} ms`);
  });

  test('another instance sharing the backend refuses the token at once, through the watch', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gatehouse-two-'));
    const backend = openSqliteBackend({ path: join(dir, 'state.db') });
    const auditStore = openSqliteAuditStore({ path: join(dir, 'audit.db') });
    const config = loadConfig({ env: {}, overrides: { data_dir: dir, log_level: 'silent' } });
    const one = await createServices({ config, backend, auditStore, clock: Date.now });
    const two = await createServices({ config, backend, auditStore, clock: Date.now });
    try {
      const owner = await one.users.create(
        { remoteAddr: 'test', requestId: 'test', system: 'test' },
        {
          name: 'owner',
          roles: ['admin'],
        },
      );
      const caller: Principal = {
        kind: 'user',
        id: owner.id,
        name: owner.name,
        roles: owner.roles,
        policy: compilePolicy(BUILTIN_ROLES.filter((r) => r.name === 'admin')),
      };
      const ctx = { principal: caller, remoteAddr: 'test', requestId: 'test' };
      const agent = await one.agents.create(ctx, { name: 'shared', roles: ['auditor'] });
      const issued = await one.agentCredentials.issue(ctx, agent.id, { type: 'token' });
      assert.equal(two.tokens.authenticate(issued.access_token as string).id, agent.id, 'instance two knows the token');
      await one.agents.update(ctx, agent.id, { status: 'suspended' });
      const deadline = Date.now() + 1000;
      let code: string | undefined;
      while (Date.now() < deadline && code === undefined) {
        try {
          two.tokens.authenticate(issued.access_token as string);
          await new Promise((r) => setTimeout(r, 1));
        } catch (error) {
          code = (error as { code?: string }).code;
        }
      }
      assert.equal(code, 'agent_suspended');
    } finally {
      one.close();
      two.close();
      await auditStore.close();
      await backend.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('owner deletion and last use', () => {
  test("deleting a user revokes the agents they own, with every token, in the user's deletion", async () => {
    const owner = await userWithRoles(server, 'doomed-owner', ['editor', 'auditor']);
    const created = await as(owner.token, 'POST', '/v1/agents', { name: 'orphan', roles: ['auditor'] });
    assert.equal(created.status, 201, created.text);
    const agentId = created.json.id as string;
    const token = (await credential(agentId)).access_token as string;
    assert.equal((await as(token, 'GET', '/v1/events?per_page=1')).status, 200);
    const del = await admin('DELETE', `/v1/users/${owner.id}`);
    assert.equal(del.status, 200, del.text);
    const after = await as(token, 'GET', '/v1/events?per_page=1');
    assert.equal(after.status, 401);
    assert.equal(after.json.code, 'token_revoked');
    const agent = (await admin('GET', `/v1/agents/${agentId}`)).json;
    assert.equal(agent.status, 'revoked', 'kept as revoked for the audit trail');
    const [revoked] = await eventsOf('agent.revoked', agentId);
    assert.equal(revoked?.data.reason, 'owner_deleted');
    assert.equal(revoked?.data.revoked_tokens, 1);
    const [deleted] = await eventsOf('user.deleted', owner.id);
    assert.deepEqual(deleted?.data.revoked_agents, [agentId]);
  });

  test('last_used_at of the agent and of the credential follow use (within about a second)', async () => {
    const agent = await newAgent('used-bot');
    const issued = await credential(agent.id);
    assert.equal((await admin('GET', `/v1/agents/${agent.id}`)).json.last_used_at, null);
    const before = Date.now();
    assert.equal((await as(issued.access_token, 'GET', '/v1/events?per_page=1')).status, 200);
    let lastUsed: string | null = null;
    for (let i = 0; i < 40 && lastUsed === null; i++) {
      await new Promise((r) => setTimeout(r, 100));
      lastUsed = (await admin('GET', `/v1/agents/${agent.id}`)).json.last_used_at;
    }
    assert.ok(lastUsed !== null, 'last_used_at was never set');
    assert.ok(Date.parse(lastUsed) >= before - 1000);
    const [cred] = (await admin('GET', `/v1/agents/${agent.id}/credentials`)).json.credentials;
    assert.equal(cred.id, issued.id);
    assert.ok(cred.last_used_at !== null, 'the credential was used too');
    assert.ok(Math.abs(Date.parse(cred.last_used_at) - Date.parse(lastUsed)) < 1000);
  });
});
