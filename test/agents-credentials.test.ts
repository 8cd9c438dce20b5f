// Agent credentials over real HTTP: privilege-escalation attempts (each with its positive control),
// lifetime bounds, listing and revoking one credential, and JWTs checked by an independent verifier
// that knows only the published JWKS — across a key rotation.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createRemoteJWKSet, decodeProtectedHeader, errors as joseErrors, jwtVerify } from 'jose';
import type { UserRecord } from '../src/auth/records.js';
import { api, requestsTo, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';

let server: TestServer;
const { admin, as } = requestsTo(() => server);
before(async () => {
  server = await startTestServer({ 'login_throttle.max_failures': 100_000 });
  const role = await admin('POST', '/v1/roles', {
    name: 'agent-maker',
    allow: { rules: [{ resources: ['agents'], verbs: ['*'] }] },
  });
  assert.equal(role.status, 201, role.text);
});
after(() => server.stop());

describe('privilege escalation, each refused next to its allowed twin', () => {
  test('a user cannot create an agent with a role they lack', async () => {
    const maker = await userWithRoles(server, 'maker-1', ['agent-maker', 'auditor']);
    const refused = await as(maker.token, 'POST', '/v1/agents', { name: 'esc-1', roles: ['access'] });
    assert.equal(refused.status, 403);
    assert.match(refused.json.detail, /agent roles \[access\]: it needs .*sessions:create/);
    const allowed = await as(maker.token, 'POST', '/v1/agents', { name: 'esc-1', roles: ['auditor'] });
    assert.equal(allowed.status, 201, allowed.text);
  });

  test('nobody adds a role they lack by PATCH, even to an agent whose owner holds it', async () => {
    const maker = await userWithRoles(server, 'maker-2', ['agent-maker', 'auditor']);
    // The admin owns this agent; the maker may update agents but does not hold admin.
    const agent = (await admin('POST', '/v1/agents', { name: 'esc-2', roles: [] })).json;
    const refused = await as(maker.token, 'PATCH', `/v1/agents/${agent.id}`, { roles: ['admin'] });
    assert.equal(refused.status, 403);
    const allowed = await as(maker.token, 'PATCH', `/v1/agents/${agent.id}`, { roles: ['auditor'] });
    assert.equal(allowed.status, 200, allowed.text);
    assert.deepEqual(allowed.json.roles, ['auditor']);
    // Narrowing needs no holding: the maker can drop a role it does not hold.
    await admin('PATCH', `/v1/agents/${agent.id}`, { roles: ['auditor', 'access'] });
    const narrowed = await as(maker.token, 'PATCH', `/v1/agents/${agent.id}`, { roles: ['auditor'] });
    assert.equal(narrowed.status, 200);
  });

  test('whoever issues a credential must hold every role it carries', async () => {
    const maker = await userWithRoles(server, 'maker-3', ['agent-maker', 'auditor']);
    const agent = (await admin('POST', '/v1/agents', { name: 'admin-bot', roles: ['admin', 'auditor'] })).json;
    const refused = await as(maker.token, 'POST', `/v1/agents/${agent.id}/credentials`, {});
    assert.equal(refused.status, 403, 'an admin-role credential from someone without admin');
    const scoped = await as(maker.token, 'POST', `/v1/agents/${agent.id}/credentials`, { roles: ['auditor'] });
    assert.equal(scoped.status, 201, scoped.text);
    assert.deepEqual(scoped.json.roles, ['auditor']);
    assert.equal((await as(scoped.json.access_token, 'GET', '/v1/users')).status, 403, 'the scope holds');
    assert.equal((await as(scoped.json.access_token, 'GET', '/v1/events?per_page=1')).status, 200);
    const full = await admin('POST', `/v1/agents/${agent.id}/credentials`, {});
    assert.equal(full.status, 201);
    assert.equal((await as(full.json.access_token, 'GET', '/v1/users')).status, 200);
  });

  test('a credential carries only roles of the agent', async () => {
    const agent = (await admin('POST', '/v1/agents', { name: 'scoped-bot', roles: ['auditor', 'access'] })).json;
    const refused = await admin('POST', `/v1/agents/${agent.id}/credentials`, { roles: ['editor'] });
    assert.equal(refused.status, 403);
    const scoped = await admin('POST', `/v1/agents/${agent.id}/credentials`, { roles: ['auditor'] });
    assert.equal(scoped.status, 201);
    assert.equal((await as(scoped.json.access_token, 'GET', '/v1/resources')).status, 403);
    assert.equal((await as(scoped.json.access_token, 'GET', '/v1/events?per_page=1')).status, 200);
    const unscoped = await admin('POST', `/v1/agents/${agent.id}/credentials`, {});
    assert.equal((await as(unscoped.json.access_token, 'GET', '/v1/resources')).status, 200);
    // A scoped API key yields scoped tokens.
    const key = await admin('POST', `/v1/agents/${agent.id}/credentials`, { type: 'api_key', roles: ['auditor'] });
    const pair = (await api(server.url, 'POST', '/v1/auth/token', { body: { api_key: key.json.api_key } })).json;
    assert.equal((await as(pair.access_token, 'GET', '/v1/resources')).status, 403);
    const refreshed = (
      await api(server.url, 'POST', '/v1/auth/refresh', { body: { refresh_token: pair.refresh_token } })
    ).json;
    assert.equal((await as(refreshed.access_token, 'GET', '/v1/resources')).status, 403, 'refresh keeps the scope');
    assert.equal((await as(refreshed.access_token, 'GET', '/v1/events?per_page=1')).status, 200);
  });

  test('an agent cannot be issued a role its owner no longer holds, and loses it at once', async () => {
    const owner = await userWithRoles(server, 'demoted-owner', ['agent-maker', 'auditor', 'access']);
    const agent = (await as(owner.token, 'POST', '/v1/agents', { name: 'demote-bot', roles: ['auditor', 'access'] }))
      .json;
    const held = (await admin('POST', `/v1/agents/${agent.id}/credentials`, {})).json.access_token as string;
    assert.equal((await as(held, 'GET', '/v1/resources')).status, 200);
    // No user-update route exists yet: demote the owner in the state store, as one would.
    const { state } = server.gatehouse.services;
    const item = state.get<UserRecord>(`users/${owner.id}`);
    assert.ok(item);
    await state.write(
      [],
      [{ type: 'put', key: item.key, value: JSON.stringify({ ...item.value, roles: ['agent-maker', 'auditor'] }) }],
    );
    assert.equal((await as(held, 'GET', '/v1/resources')).status, 403, 'narrowed at the next request');
    const refused = await admin('POST', `/v1/agents/${agent.id}/credentials`, { roles: ['access'] });
    assert.equal(refused.status, 403);
    assert.match(refused.json.detail, /owner no longer holds role access/);
    const allowed = await admin('POST', `/v1/agents/${agent.id}/credentials`, { roles: ['auditor'] });
    assert.equal(allowed.status, 201);
    const jwt = await admin('POST', `/v1/agents/${agent.id}/credentials`, { type: 'jwt', audience: 'svc' });
    assert.deepEqual(jwt.json.roles, ['auditor'], "a JWT's scope leaves out what the owner lost");
  });

  test("an agent's own token cannot create an agent with more than the agent holds", async () => {
    const bot = (await admin('POST', '/v1/agents', { name: 'maker-bot', roles: ['agent-maker'] })).json;
    const token = (await admin('POST', `/v1/agents/${bot.id}/credentials`, {})).json.access_token as string;
    const refused = await as(token, 'POST', '/v1/agents', { name: 'child-bot', roles: ['auditor'] });
    assert.equal(refused.status, 403);
    const allowed = await as(token, 'POST', '/v1/agents', { name: 'child-bot', roles: ['agent-maker'] });
    assert.equal(allowed.status, 201, allowed.text);
  });
});

describe('lifetimes, listing and revoking', () => {
  test("ttl is bounded by the agent's max_credential_ttl and defaults within it", async () => {
    const agent = (await admin('POST', '/v1/agents', { name: 'short-lived', max_credential_ttl: 600 })).json;
    const tooLong = await admin('POST', `/v1/agents/${agent.id}/credentials`, { ttl: 601 });
    assert.equal(tooLong.status, 400);
    assert.equal(tooLong.json.errors[0].path, '/body/ttl');
    assert.equal((await admin('POST', `/v1/agents/${agent.id}/credentials`, { ttl: 600 })).status, 201);
    const dflt = await admin('POST', `/v1/agents/${agent.id}/credentials`, {});
    assert.equal(dflt.json.expires_in, 600);
    const unbounded = (await admin('POST', '/v1/agents', { name: 'default-lived' })).json;
    assert.equal((await admin('POST', `/v1/agents/${unbounded.id}/credentials`, {})).json.expires_in, 3600);
    const overCluster = await admin('POST', `/v1/agents/${unbounded.id}/credentials`, { ttl: 25 * 3600 });
    assert.equal(overCluster.status, 400, 'agents.max_credential_ttl (24h) bounds every agent');
    server.clockOffset.ms = 601_000;
    try {
      const expired = await as(dflt.json.access_token, 'GET', '/v1/agents');
      assert.equal(expired.json.code, 'token_expired');
    } finally {
      server.clockOffset.ms = 0;
    }
  });

  test('the list shows metadata only; revoking one credential ends its tokens and no others', async () => {
    const agent = (await admin('POST', '/v1/agents', { name: 'list-bot', roles: ['auditor'] })).json;
    const a = (await admin('POST', `/v1/agents/${agent.id}/credentials`, {})).json;
    const b = (await admin('POST', `/v1/agents/${agent.id}/credentials`, {})).json;
    const k = (await admin('POST', `/v1/agents/${agent.id}/credentials`, { type: 'api_key' })).json;
    const j = (await admin('POST', `/v1/agents/${agent.id}/credentials`, { type: 'jwt', audience: 'x' })).json;
    const pair = (await api(server.url, 'POST', '/v1/auth/token', { body: { api_key: k.api_key } })).json;
    const list = await admin('GET', `/v1/agents/${agent.id}/credentials`);
    assert.equal(list.status, 200);
    assert.deepEqual(
      list.json.credentials.map((c: { id: string; type: string }) => [c.id, c.type]),
      [
        [a.id, 'token'],
        [b.id, 'token'],
        [k.id, 'api_key'],
        [j.id, 'jwt'],
      ],
    );
    for (const secret of [a.access_token, b.access_token, k.api_key, j.jwt]) assert.ok(!list.text.includes(secret));
    assert.equal((await admin('GET', `/v1/agents/${agent.id}/credentials?type=jwt`)).json.pagination.total, 1);

    const del = await admin('DELETE', `/v1/agents/${agent.id}/credentials/${a.id}`);
    assert.equal(del.status, 200);
    assert.equal(del.json.revoked_tokens, 1);
    assert.equal((await as(a.access_token, 'GET', '/v1/events?per_page=1')).json.code, 'token_revoked');
    assert.equal((await as(b.access_token, 'GET', '/v1/events?per_page=1')).status, 200, 'the other one works');
    const delKey = await admin('DELETE', `/v1/agents/${agent.id}/credentials/${k.id}`);
    assert.equal(delKey.json.revoked_tokens, 2, 'the access and refresh token from the key');
    assert.equal((await as(pair.access_token, 'GET', '/v1/events?per_page=1')).status, 401);
    assert.equal((await api(server.url, 'POST', '/v1/auth/token', { body: { api_key: k.api_key } })).status, 401);
    const after = (await admin('GET', `/v1/agents/${agent.id}/credentials`)).json.credentials;
    assert.notEqual(after[0].revoked_at, null);
    assert.equal(after[1].revoked_at, null);
    assert.equal(
      (await admin('DELETE', `/v1/agents/${agent.id}/credentials/cred_0000000000000000000000zzzz`)).status,
      404,
    );
    const events = await admin('GET', `/v1/events?type=agent.credential.revoked&target=${agent.id}`);
    assert.equal(events.json.events.length, 2);
  });
});

describe('JWTs for third parties', () => {
  test('verified by an independent verifier with only the published JWKS', async () => {
    const agent = (await admin('POST', '/v1/agents', { name: 'jwt-bot', roles: ['auditor', 'access'] })).json;
    const issued = await admin('POST', `/v1/agents/${agent.id}/credentials`, {
      type: 'jwt',
      audience: 'https://billing.example',
      ttl: 300,
      roles: ['auditor'],
    });
    assert.equal(issued.status, 201, issued.text);
    assert.equal(issued.headers.get('cache-control'), 'no-store');
    const { jwt, kid } = issued.json;
    assert.equal(decodeProtectedHeader(jwt).alg, 'EdDSA');
    assert.equal(decodeProtectedHeader(jwt).kid, kid);

    const jwksRes = await fetch(`${server.url}/.well-known/jwks.json`);
    assert.equal(jwksRes.status, 200);
    const jwks = (await jwksRes.json()) as { keys: Array<{ kid: string; kty: string; d?: string }> };
    assert.ok(jwks.keys.some((k) => k.kid === kid));
    assert.ok(
      jwks.keys.every((k) => k.kty === 'OKP' && k.d === undefined),
      'no private parts',
    );
    const web = await fetch(`${server.webUrl}/.well-known/jwks.json`);
    assert.deepEqual(await web.json(), jwks, 'the web listener publishes the same keys');

    const keySet = createRemoteJWKSet(new URL(`${server.url}/.well-known/jwks.json`));
    const { payload } = await jwtVerify(jwt, keySet, { issuer: 'gatehouse', audience: 'https://billing.example' });
    assert.equal(payload.sub, agent.id);
    assert.equal(payload.jti, issued.json.id);
    assert.equal(payload.scope, 'auditor');
    assert.equal((payload.exp as number) - (payload.iat as number), 300);
    assert.equal(payload.act, undefined, 'not delegated');

    await assert.rejects(
      jwtVerify(jwt, keySet, { issuer: 'gatehouse', audience: 'https://other.example' }),
      joseErrors.JWTClaimValidationFailed,
    );
    const [h, p, sig] = jwt.split('.');
    const forged = Buffer.from(JSON.stringify({ ...payload, scope: 'admin' })).toString('base64url');
    await assert.rejects(jwtVerify(`${h}.${forged}.${sig}`, keySet), joseErrors.JWSSignatureVerificationFailed);
    assert.ok(p);
    // Gatehouse's own API takes only its opaque tokens.
    const own = await as(jwt, 'GET', '/v1/events');
    assert.equal(own.status, 401);
    assert.equal(own.json.code, 'invalid_token');
    assert.equal((await admin('POST', `/v1/agents/${agent.id}/credentials`, { type: 'jwt' })).status, 400);
  });
});

describe('introspection (RFC 7662)', () => {
  test('a JWT is active until its credential or its agent is revoked; an opaque token until it would fail', async () => {
    const make = async (name: string) => {
      const agent = (await admin('POST', '/v1/agents', { name, roles: ['auditor'] })).json;
      const jwt = await admin('POST', `/v1/agents/${agent.id}/credentials`, { type: 'jwt', audience: 'svc' });
      const token = await admin('POST', `/v1/agents/${agent.id}/credentials`, {});
      return { id: agent.id as string, jwt: jwt.json, token: token.json };
    };
    const a = await make('introspect-a');
    const b = await make('introspect-b');
    const introspect = async (token: string) => {
      const res = await admin('POST', '/v1/auth/introspect', { token });
      assert.equal(res.status, 200, res.text);
      return res.json;
    };
    const active = await introspect(a.jwt.jwt);
    assert.equal(active.active, true);
    assert.equal(active.token_type, 'jwt');
    assert.equal(active.sub, a.id);
    assert.equal(active.jti, a.jwt.id);
    assert.equal(active.scope, 'auditor');
    const opaque = await introspect(a.token.access_token);
    assert.equal(opaque.active, true);
    assert.equal(opaque.sub, a.id);

    assert.equal((await admin('PATCH', `/v1/agents/${a.id}`, { status: 'suspended' })).status, 200);
    assert.deepEqual(await introspect(a.jwt.jwt), { active: false }, "the suspended agent's JWT");
    assert.deepEqual(await introspect(a.token.access_token), { active: false });
    assert.equal((await introspect(b.jwt.jwt)).active, true, 'positive control: another agent');
    assert.equal((await admin('DELETE', `/v1/agents/${b.id}/credentials/${b.jwt.id}`)).status, 200);
    assert.deepEqual(await introspect(b.jwt.jwt), { active: false }, 'a revoked JWT credential');
    assert.equal((await introspect(b.token.access_token)).active, true);
    const [h, p] = (b.jwt.jwt as string).split('.');
    assert.deepEqual(await introspect(`${h}.${p}.AAAA`), { active: false }, 'a bad signature');
    assert.deepEqual(await introspect('gha_nonsense'), { active: false });
    const noPermission = await userWithRoles(server, 'cannot-introspect', ['auditor']);
    assert.equal((await as(noPermission.token, 'POST', '/v1/auth/introspect', { token: b.jwt.jwt })).status, 403);
  });
});

describe('signing key rotation', () => {
  let rotating: TestServer;
  before(async () => {
    rotating = await startTestServer({ 'agents.jwt_key_rotation': '30m', 'agents.max_credential_ttl': '1h' });
  });
  after(() => rotating.stop());

  const jwksAt = async () =>
    (
      (await (await fetch(`${rotating.url}/.well-known/jwks.json`)).json()) as { keys: Array<{ kid: string }> }
    ).keys.map((k) => k.kid);
  async function issueJwt(): Promise<{ jwt: string; kid: string }> {
    const token = (
      await api(rotating.url, 'POST', '/v1/auth/token', {
        body: { api_key: 'test-bootstrap-key-0123456789-abcdefghijklmnop' },
      })
    ).json.access_token as string;
    const agents = (await api(rotating.url, 'GET', '/v1/agents?name=rot-bot', { token })).json.agents;
    const id =
      agents[0]?.id ?? (await api(rotating.url, 'POST', '/v1/agents', { token, body: { name: 'rot-bot' } })).json.id;
    const res = await api(rotating.url, 'POST', `/v1/agents/${id}/credentials`, {
      token,
      body: { type: 'jwt', audience: 'svc', ttl: 3600 },
    });
    assert.equal(res.status, 201, res.text);
    return res.json;
  }
  /** An independent verifier, fetching the JWKS afresh, whose clock is the server's. */
  const verify = (jwt: string) =>
    jwtVerify(jwt, createRemoteJWKSet(new URL(`${rotating.url}/.well-known/jwks.json`)), {
      audience: 'svc',
      currentDate: new Date(Date.now() + rotating.clockOffset.ms),
    });

  test('the next key is published ahead; old tokens stay verifiable until they expire; then the old key goes', async () => {
    // Keys live by 30-minute generations of the wall clock: the steps below hold from a minute into
    // one. Started where the wall clock happened to be, the last step failed when the test began in a
    // generation's last minute (the second key's last token, plus skew, had then expired).
    const rotation = 30 * 60_000;
    const start = rotation - (Date.now() % rotation) + 60_000;
    const at = (minutes: number) => {
      rotating.clockOffset.ms = start + minutes * 60_000;
    };
    at(0);
    const first = await issueJwt();
    const published = await jwksAt();
    assert.equal(published.length, 2, 'the signing key and the next one');
    assert.equal(published[1], first.kid);

    at(30); // the next generation
    const second = await issueJwt();
    assert.notEqual(second.kid, first.kid, 'a new key signs');
    assert.equal(second.kid, published[0], 'the one published a generation ahead');
    const now = await jwksAt();
    assert.ok(now.includes(first.kid) && now.includes(second.kid));
    assert.equal((await verify(first.jwt)).payload.aud, 'svc', 'the old token still verifies');
    assert.equal((await verify(second.jwt)).payload.aud, 'svc');

    at(61); // the first token has expired; its key may still be listed
    await assert.rejects(verify(first.jwt), joseErrors.JWTExpired);
    assert.ok((await jwksAt()).includes(second.kid));

    at(96); // past the first key's last possible token (+ skew)
    const later = await jwksAt();
    assert.ok(!later.includes(first.kid), 'the retired key is no longer published');
    assert.ok(later.includes(second.kid), 'the second key still covers its tokens');
  });
});
