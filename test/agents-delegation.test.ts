// Delegation (RFC 8693 token exchange) and per-agent limits over real HTTP: consent, the
// intersection of agent and user, the audit trail naming both, withdrawal, and 429s with events.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { api, requestsTo, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';

const EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS = 'urn:ietf:params:oauth:token-type:access_token';
const JWT = 'urn:ietf:params:oauth:token-type:jwt';

let server: TestServer;
const { admin, as } = requestsTo(() => server);
let alice: { id: string; token: string };
let bob: { id: string; token: string };
let agent: { id: string; name: string };
let agentToken: string;

const exchange = (body: Record<string, unknown>) =>
  api(server.url, 'POST', '/v1/auth/token', { body: { grant_type: EXCHANGE, ...body } });

before(async () => {
  server = await startTestServer({ 'login_throttle.max_failures': 100_000 });
  // Alice may manage resources and read events, nothing else; the agent (the admin's) may edit.
  const role = await admin('POST', '/v1/roles', {
    name: 'resource-admin',
    allow: {
      rules: [
        { resources: ['resources'], verbs: ['*'] },
        { resources: ['events'], verbs: ['list', 'read'] },
      ],
      resources: [{ kinds: ['*'], labels: { '*': '*' } }],
    },
  });
  assert.equal(role.status, 201);
  alice = await userWithRoles(server, 'alice', ['resource-admin']);
  bob = await userWithRoles(server, 'bob', ['resource-admin']);
  agent = (await admin('POST', '/v1/agents', { name: 'assistant', roles: ['editor', 'auditor'] })).json;
  agentToken = (await admin('POST', `/v1/agents/${agent.id}/credentials`, {})).json.access_token;
});
after(() => server.stop());

describe('token exchange', () => {
  test('needs the user to allow the agent; only the user (or users:update) speaks for them, never an agent', async () => {
    const denied = await exchange({ subject_token: alice.token, actor_token: agentToken });
    assert.equal(denied.status, 403);
    assert.match(denied.json.detail, /has not allowed/);
    assert.equal(
      (await as(bob.token, 'POST', `/v1/agents/${agent.id}/delegations`, { user: alice.id })).status,
      403,
      'bob cannot consent for alice',
    );
    assert.equal(
      (await as(agentToken, 'POST', `/v1/agents/${agent.id}/delegations`, {})).status,
      403,
      'an agent cannot consent for anyone',
    );
    const granted = await as(alice.token, 'POST', `/v1/agents/${agent.id}/delegations`, {});
    assert.equal(granted.status, 201, granted.text);
    assert.equal(granted.json.user_id, alice.id);
    const listed = (await admin('GET', `/v1/agents/${agent.id}/delegations`)).json.delegations;
    assert.deepEqual(
      listed.map((d: { user_id: string }) => d.user_id),
      [alice.id],
    );
    const ok = await exchange({
      subject_token: alice.token,
      subject_token_type: ACCESS,
      actor_token: agentToken,
      actor_token_type: ACCESS,
    });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.json.issued_token_type, ACCESS);
    assert.equal(ok.json.token_type, 'Bearer');
    assert.equal(ok.json.refresh_token, undefined, 'delegated tokens are not refreshable');
    assert.match(ok.json.access_token, /^gha_/);
    assert.ok(ok.json.expires_in > 0 && ok.json.expires_in <= 3600);
    // An admin (users:update) may consent on a user's behalf.
    assert.equal((await admin('POST', `/v1/agents/${agent.id}/delegations`, { user: bob.id })).status, 201);
  });

  test('the delegated token has the intersection of agent and user; the audit trail names both', async () => {
    const delegated = (await exchange({ subject_token: alice.token, actor_token: agentToken })).json.access_token;
    // Both may manage resources: allowed, and recorded as the agent acting for alice.
    const created = await as(delegated, 'POST', '/v1/resources', {
      kind: 'server',
      name: 'made-by-agent',
      address: 'h',
    });
    assert.equal(created.status, 201, created.text);
    const [event] = (await admin('GET', `/v1/events?type=resource.created&target=${created.json.id}`)).json.events;
    assert.equal(event.actor.kind, 'agent');
    assert.equal(event.actor.id, agent.id);
    assert.deepEqual(event.data.on_behalf_of, { kind: 'user', id: alice.id, name: 'alice' });
    // The agent alone may list users; alice may not, so the delegated token may not.
    assert.equal((await as(agentToken, 'GET', '/v1/users')).status, 200, 'positive control: the agent itself');
    const beyond = await as(delegated, 'GET', '/v1/users');
    assert.equal(beyond.status, 403, "beyond the user's rights");
    const [denial] = (await admin('GET', `/v1/events?type=access.denied&actor=${agent.id}`)).json.events;
    assert.equal(denial.data.on_behalf_of.id, alice.id);
    const [exchanged] = (await admin('GET', `/v1/events?type=auth.token.exchanged&actor=${agent.id}`)).json.events;
    assert.equal(exchanged.data.on_behalf_of.id, alice.id);
    // Narrowing the scope: only the agent's roles, and fewer of them.
    const narrow = await exchange({ subject_token: alice.token, actor_token: agentToken, scope: 'auditor' });
    assert.equal(narrow.status, 200);
    assert.equal(narrow.json.scope, 'auditor');
    assert.equal((await as(narrow.json.access_token, 'GET', '/v1/resources')).status, 403);
    assert.equal((await as(narrow.json.access_token, 'GET', '/v1/events?per_page=1')).status, 200);
    const wider = await exchange({ subject_token: alice.token, actor_token: agentToken, scope: 'admin' });
    assert.equal(wider.status, 403);
  });

  test('a delegated JWT carries sub = the user and act.sub = the agent, verifiable with the JWKS', async () => {
    const res = await exchange({
      subject_token: alice.token,
      actor_token: agentToken,
      requested_token_type: JWT,
      audience: 'https://crm.example',
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.issued_token_type, JWT);
    const { payload } = await jwtVerify(
      res.json.access_token,
      createRemoteJWKSet(new URL(`${server.url}/.well-known/jwks.json`)),
      { audience: 'https://crm.example', issuer: 'gatehouse' },
    );
    assert.equal(payload.sub, alice.id);
    assert.deepEqual(payload.act, { sub: agent.id });
    assert.equal(payload.scope, '', "alice holds neither of the agent's roles, so the JWT carries none");
    const noAudience = await exchange({
      subject_token: alice.token,
      actor_token: agentToken,
      requested_token_type: JWT,
    });
    assert.equal(noAudience.status, 400);
  });

  test('malformed exchanges are refused with the field named; bad tokens count as failed logins', async () => {
    const cases: Array<[Record<string, unknown>, number, string]> = [
      [{ actor_token: agentToken }, 400, '/body/subject_token'],
      [{ subject_token: alice.token }, 400, '/body/actor_token'],
      [{ subject_token: agentToken, actor_token: agentToken }, 400, '/body/subject_token'],
      [{ subject_token: alice.token, actor_token: bob.token }, 400, '/body/actor_token'],
      [
        { subject_token: alice.token, actor_token: agentToken, subject_token_type: JWT },
        400,
        '/body/subject_token_type',
      ],
      [{ subject_token: alice.token, actor_token: agentToken, api_key: 'x' }, 400, '/body/api_key'],
    ];
    for (const [body, status, path] of cases) {
      const res = await exchange(body);
      assert.equal(res.status, status, JSON.stringify(body));
      assert.equal(res.json.errors?.[0]?.path, path, JSON.stringify(body));
    }
    const bogus = await exchange({ subject_token: `gha_${'A'.repeat(43)}`, actor_token: agentToken });
    assert.equal(bogus.status, 401);
    assert.match(bogus.json.detail, /^subject_token:/);
    const noGrant = await api(server.url, 'POST', '/v1/auth/token', { body: { subject_token: alice.token } });
    assert.equal(noGrant.json.errors?.[0]?.path, '/body/subject_token', 'exchange fields need grant_type');
  });

  test('withdrawing consent, suspending the agent or deleting the user ends delegated tokens at once', async () => {
    const carol = await userWithRoles(server, 'carol', ['resource-admin']);
    assert.equal((await as(carol.token, 'POST', `/v1/agents/${agent.id}/delegations`, {})).status, 201);
    const first = (await exchange({ subject_token: carol.token, actor_token: agentToken })).json.access_token;
    assert.equal((await as(first, 'GET', '/v1/resources')).status, 200);
    const withdrawn = await as(carol.token, 'DELETE', `/v1/agents/${agent.id}/delegations/${carol.id}`);
    assert.equal(withdrawn.status, 200);
    assert.equal(withdrawn.json.revoked_tokens, 1);
    assert.equal((await as(first, 'GET', '/v1/resources')).json.code, 'token_revoked');
    assert.equal((await exchange({ subject_token: carol.token, actor_token: agentToken })).status, 403);

    assert.equal((await as(carol.token, 'POST', `/v1/agents/${agent.id}/delegations`, {})).status, 201);
    const second = (await exchange({ subject_token: carol.token, actor_token: agentToken })).json.access_token;
    assert.equal((await as(second, 'GET', '/v1/resources')).status, 200);
    assert.equal((await admin('DELETE', `/v1/users/${carol.id}`)).status, 200);
    assert.equal((await as(second, 'GET', '/v1/resources')).status, 401);

    const other = (await admin('POST', '/v1/agents', { name: 'assistant-2', roles: ['auditor'] })).json;
    const otherToken = (await admin('POST', `/v1/agents/${other.id}/credentials`, {})).json.access_token;
    assert.equal((await as(alice.token, 'POST', `/v1/agents/${other.id}/delegations`, {})).status, 201);
    const third = (await exchange({ subject_token: alice.token, actor_token: otherToken })).json.access_token;
    assert.equal((await as(third, 'GET', '/v1/events?per_page=1')).status, 200);
    assert.equal((await admin('PATCH', `/v1/agents/${other.id}`, { status: 'suspended' })).status, 200);
    assert.equal((await as(third, 'GET', '/v1/events?per_page=1')).json.code, 'agent_suspended');
    const suspendedActor = await exchange({ subject_token: alice.token, actor_token: otherToken });
    assert.equal(suspendedActor.status, 401);
    assert.equal(suspendedActor.json.code, 'agent_suspended');
  });
});

describe('per-agent limits', () => {
  test('requests beyond the per-minute limit are 429 with Retry-After, and one event', async () => {
    const limited = (
      await admin('POST', '/v1/agents', { name: 'chatty', roles: ['auditor'], rate_limit: { requests_per_minute: 5 } })
    ).json;
    const other = (await admin('POST', '/v1/agents', { name: 'quiet', roles: ['auditor'] })).json;
    const t = (await admin('POST', `/v1/agents/${limited.id}/credentials`, {})).json.access_token;
    const t2 = (await admin('POST', `/v1/agents/${other.id}/credentials`, {})).json.access_token;
    for (let i = 0; i < 5; i++) assert.equal((await as(t, 'GET', '/v1/events?per_page=1')).status, 200, `request ${i}`);
    const refused = await as(t, 'GET', '/v1/events?per_page=1');
    assert.equal(refused.status, 429);
    assert.equal(refused.json.code, 'rate_limited');
    assert.ok(Number(refused.headers.get('retry-after')) >= 1);
    assert.equal(refused.headers.get('ratelimit-limit'), '5');
    assert.equal(refused.headers.get('ratelimit-remaining'), '0');
    for (let i = 0; i < 3; i++) assert.equal((await as(t, 'GET', '/v1/events?per_page=1')).status, 429);
    assert.equal((await as(t2, 'GET', '/v1/events?per_page=1')).status, 200, 'another agent is not affected');
    assert.equal((await admin('GET', '/v1/events?per_page=1')).status, 200, 'users are not affected');
    const events = (await admin('GET', `/v1/events?type=agent.rate_limited&target=${limited.id}`)).json.events;
    assert.equal(events.length, 1, 'one event per agent and minute, not one per refusal');
    assert.equal(events[0].data.limit, 'requests_per_minute');
    // Raising the limit takes effect at once.
    await admin('PATCH', `/v1/agents/${limited.id}`, { rate_limit: { requests_per_minute: 1000 } });
    assert.equal((await as(t, 'GET', '/v1/events?per_page=1')).status, 200);
  });

  test('credential issuance beyond the per-minute limit is 429 and an event', async () => {
    const a = (await admin('POST', '/v1/agents', { name: 'greedy-issuer', rate_limit: { credentials_per_minute: 2 } }))
      .json;
    assert.equal((await admin('POST', `/v1/agents/${a.id}/credentials`, {})).status, 201);
    assert.equal((await admin('POST', `/v1/agents/${a.id}/credentials`, {})).status, 201);
    const refused = await admin('POST', `/v1/agents/${a.id}/credentials`, {});
    assert.equal(refused.status, 429);
    assert.ok(refused.headers.get('retry-after'));
    const events = (await admin('GET', `/v1/events?type=agent.rate_limited&target=${a.id}`)).json.events;
    assert.equal(events.length, 1);
    assert.equal(events[0].data.limit, 'credentials_per_minute');
    server.clockOffset.ms = 31_000; // half a minute refills one
    try {
      const token = (
        await api(server.url, 'POST', '/v1/auth/token', {
          body: { api_key: 'test-bootstrap-key-0123456789-abcdefghijklmnop' },
        })
      ).json.access_token;
      assert.equal((await as(token, 'POST', `/v1/agents/${a.id}/credentials`, {})).status, 201);
    } finally {
      server.clockOffset.ms = 0;
    }
  });
});
