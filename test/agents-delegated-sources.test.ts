// A delegated token (RFC 8693 token exchange) dies with either of the tokens it was exchanged from:
// the user's (their logout, the deletion of the API key it came from) and the agent's (the
// revocation of the credential it came from). Each case has its twin whose sources are intact.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { tokenId } from '../src/lib/secrets.js';
import { api, requestsTo, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';

const EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';

let server: TestServer;
const { admin, as } = requestsTo(() => server);
let agent: { id: string };

const exchange = async (subject: string, actor: string): Promise<string> => {
  const res = await api(server.url, 'POST', '/v1/auth/token', {
    body: { grant_type: EXCHANGE, subject_token: subject, actor_token: actor },
  });
  assert.equal(res.status, 200, res.text);
  return res.json.access_token;
};
const works = async (token: string) => (await as(token, 'GET', '/v1/events?per_page=1')).status;

/** A user who allowed the agent, with a token of their own from an API key. */
async function consentingUser(name: string) {
  const user = await userWithRoles(server, name, ['auditor']);
  assert.equal((await as(user.token, 'POST', `/v1/agents/${agent.id}/delegations`, {})).status, 201);
  return user;
}
/** An agent credential (a token) to act with. */
async function actorCredential(): Promise<{ id: string; token: string }> {
  const issued = await admin('POST', `/v1/agents/${agent.id}/credentials`, {});
  assert.equal(issued.status, 201, issued.text);
  return { id: issued.json.id, token: issued.json.access_token };
}

before(async () => {
  server = await startTestServer({ 'login_throttle.max_failures': 100_000 });
  agent = (await admin('POST', '/v1/agents', { name: 'helper', roles: ['auditor'] })).json;
});
after(() => server.stop());

describe('a delegated token dies with its sources', () => {
  test("the user's logout ends the tokens exchanged from that login; another login's keep working", async () => {
    const user = await consentingUser('logs-out');
    const actor = await actorCredential();
    const delegated = await exchange(user.token, actor.token);
    // The twin: the same user's other login, exchanged by the same agent credential.
    const other = await api(server.url, 'POST', '/v1/auth/token', { body: { api_key: user.apiKey } });
    const twin = await exchange(other.json.access_token, actor.token);
    assert.equal(await works(delegated), 200);

    const out = await as(user.token, 'DELETE', '/v1/auth/revoke');
    assert.equal(out.status, 200, out.text);
    const refused = await as(delegated, 'GET', '/v1/events?per_page=1');
    assert.equal(refused.status, 401);
    assert.equal(refused.json.code, 'token_revoked');
    assert.equal(await works(twin), 200, 'positive control: a delegated token of another login');
  });

  test("deleting the user's API key ends the tokens exchanged from its logins; another key's keep working", async () => {
    const user = await consentingUser('loses-key');
    const actor = await actorCredential();
    const keys = (await admin('GET', `/v1/users/${user.id}/api-keys`)).json.api_keys;
    const second = await admin('POST', `/v1/users/${user.id}/api-keys`, { name: 'second' });
    const otherLogin = await api(server.url, 'POST', '/v1/auth/token', { body: { api_key: second.json.api_key } });
    const delegated = await exchange(user.token, actor.token);
    const twin = await exchange(otherLogin.json.access_token, actor.token);
    assert.equal(await works(delegated), 200);

    const deleted = await admin('DELETE', `/v1/users/${user.id}/api-keys/${keys[0].id}`);
    assert.equal(deleted.status, 204, deleted.text);
    const refused = await as(delegated, 'GET', '/v1/events?per_page=1');
    assert.equal(refused.status, 401);
    assert.equal(refused.json.code, 'token_revoked');
    assert.equal(await works(twin), 200, 'positive control: a delegated token of the other key');
  });

  test("revoking the agent's credential ends the tokens exchanged with it; another credential's keep working", async () => {
    const user = await consentingUser('keeps-login');
    const actor = await actorCredential();
    const otherActor = await actorCredential();
    const delegated = await exchange(user.token, actor.token);
    const twin = await exchange(user.token, otherActor.token);
    assert.equal(await works(delegated), 200);

    const revoked = await admin('DELETE', `/v1/agents/${agent.id}/credentials/${actor.id}`);
    assert.equal(revoked.status, 200, revoked.text);
    assert.equal(revoked.json.revoked_tokens, 2, "the credential's own token and the one exchanged with it");
    const refused = await as(delegated, 'GET', '/v1/events?per_page=1');
    assert.equal(refused.status, 401);
    assert.equal(refused.json.code, 'token_revoked');
    assert.equal(await works(twin), 200, 'positive control: a delegated token of the other credential');
  });

  test('a delegated JWT introspects inactive once a token it came from is revoked; its twin stays active', async () => {
    const user = await consentingUser('third-party');
    const actor = await actorCredential();
    const jwtOf = async (subject: string) => {
      const res = await api(server.url, 'POST', '/v1/auth/token', {
        body: {
          grant_type: EXCHANGE,
          subject_token: subject,
          actor_token: actor.token,
          requested_token_type: 'urn:ietf:params:oauth:token-type:jwt',
          audience: 'https://crm.example',
        },
      });
      assert.equal(res.status, 200, res.text);
      return res.json.access_token as string;
    };
    const active = async (token: string) => (await admin('POST', '/v1/auth/introspect', { token })).json.active;
    const jwt = await jwtOf(user.token);
    const other = await api(server.url, 'POST', '/v1/auth/token', { body: { api_key: user.apiKey } });
    const twin = await jwtOf(other.json.access_token);
    assert.equal(await active(jwt), true);
    assert.equal((await as(user.token, 'DELETE', '/v1/auth/revoke')).status, 200);
    assert.equal(await active(jwt), false);
    assert.equal(await active(twin), true, "positive control: exchanged from the user's other login");
  });

  test('a source ended without its tokens marked yet (a write still in parts) already refuses them', async () => {
    const user = await consentingUser('half-written');
    const actor = await actorCredential();
    const delegated = await exchange(user.token, actor.token);
    const other = await api(server.url, 'POST', '/v1/auth/token', { body: { api_key: user.apiKey } });
    const twin = await exchange(other.json.access_token, actor.token);
    // Only the user's token is marked revoked, as the first part of a logout on etcd would be: the
    // delegated token's own record is untouched, and must be refused all the same.
    const state = server.gatehouse.services.state;
    const key = `tokens/${tokenId(user.token)}`;
    const item = state.get<Record<string, unknown>>(key);
    assert.ok(item);
    await state.replace(key, item.revision, { ...item.value, revoked_at: Date.now() });
    const refused = await as(delegated, 'GET', '/v1/events?per_page=1');
    assert.equal(refused.status, 401);
    assert.equal(refused.json.code, 'token_revoked');
    assert.equal(await works(twin), 200, "positive control: exchanged from the user's other login");
  });
});
