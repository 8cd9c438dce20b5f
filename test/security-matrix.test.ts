// Every registered route × every way a caller can be wrong. Built from the live route table, so a
// new route is covered (or fails the suite) without anyone remembering to add it here.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ADMIN_KEY, api, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';

let server: TestServer;
let nobody: { token: string; id: string };
let expired: string;
let revoked: string;

// Sample path parameters that pass the schema patterns (the objects need not exist).
const SAMPLE_IDS: Record<string, string> = {
  users: 'user_0000000000000000000000zzzz',
  agents: 'agent_0000000000000000000000zzzz',
  roles: 'no-such-role',
  resources: 'srv_0000000000000000000000zzzz',
  sessions: 'sess_0000000000000000000000zzzz',
  webhooks: 'whk_0000000000000000000000zzzz',
  'api-keys': 'key_0000000000000000000000zzzz',
  'ssh-keys': 'sshkey_0000000000000000000000zzzz',
  credentials: 'cred_0000000000000000000000zzzz',
  delegations: 'user_0000000000000000000000zzzz',
};

function concretePath(url: string): string {
  const parts = url.split('/');
  return parts
    .map((p, i) => {
      if (p === ':id') return SAMPLE_IDS[parts[i - 1] as string] ?? 'x';
      if (p === ':key_id') return SAMPLE_IDS[parts[i - 1] as string] ?? SAMPLE_IDS['api-keys'];
      if (p === ':credential_id' || p === ':user_id') return SAMPLE_IDS[parts[i - 1] as string] ?? 'x';
      return p;
    })
    .join('/');
}

const login = async () =>
  (await api(server.url, 'POST', '/v1/auth/token', { body: { api_key: ADMIN_KEY } })).json.access_token as string;

before(async () => {
  server = await startTestServer({ 'login_throttle.max_failures': 100000 });
  const created = await api(server.url, 'POST', '/v1/roles', {
    token: server.adminToken,
    body: { name: 'nothing', allow: {} },
  });
  assert.equal(created.status, 201);
  nobody = await userWithRoles(server, 'nobody', ['nothing']);
  expired = await login();
  revoked = await login();
  assert.equal((await api(server.url, 'DELETE', '/v1/auth/revoke', { token: revoked })).status, 200);
});
after(() => server.stop());

const PUBLIC_ROUTES = new Set([
  'POST /v1/auth/token',
  'POST /v1/auth/refresh',
  'GET /healthz',
  'GET /readyz',
  'GET /v1/openapi.json',
  // Public keys of agent JWTs: third parties fetch them without credentials to verify tokens (RFC 7517).
  'GET /.well-known/jwks.json',
]);

describe('route table', () => {
  test('every route declares a permission; only token, health and API description routes are public', () => {
    assert.ok(server.gatehouse.routes.length > 20);
    for (const r of server.gatehouse.routes) {
      assert.ok(r.permission !== undefined, `${r.method} ${r.url} declares no permission`);
      if (r.permission === 'public' && !r.url.startsWith('/v1/docs')) {
        assert.ok(PUBLIC_ROUTES.has(`${r.method} ${r.url}`), `${r.method} ${r.url} is public`);
      }
    }
  });

  test('a route without a declaration cannot even be registered', async () => {
    const { default: Fastify } = await import('fastify');
    const { installSecurity } = await import('../src/api/plugins/security.js');
    const app = Fastify();
    installSecurity(app, server.gatehouse.services);
    assert.throws(() => app.get('/v1/undeclared', async () => ({})), /declares no permission/);
  });

  test("a route's own onRequest hook runs only once the caller is authenticated and allowed", async () => {
    const { default: Fastify } = await import('fastify');
    const { installSecurity } = await import('../src/api/plugins/security.js');
    const { installAgentRateLimit } = await import('../src/api/plugins/agent-rate-limit.js');
    const { GatehouseError } = await import('../src/lib/errors.js');
    const app = Fastify();
    // As the API answers errors: the status the security step chose.
    app.setErrorHandler((error, _request, reply) => {
      reply
        .code(error instanceof GatehouseError ? error.status : 500)
        .send({ code: (error as { code?: string }).code });
    });
    installSecurity(app, server.gatehouse.services);
    installAgentRateLimit(app, server.gatehouse.services);
    const seen: Array<string | undefined> = [];
    app.get(
      '/v1/own-hook',
      {
        config: { permission: { resource: 'users', verb: 'list' } },
        onRequest: (request, _reply, done) => {
          seen.push(request.principal?.name);
          done();
        },
      },
      async () => ({ ok: true }),
    );
    await app.ready();
    const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
    // A caller of its own: its access.denied event must not count among the matrix's caller's.
    const refused = await userWithRoles(server, 'nobody-own-hook', ['nothing']);
    assert.equal((await app.inject({ url: '/v1/own-hook' })).statusCode, 401);
    assert.equal((await app.inject({ url: '/v1/own-hook', headers: bearer(revoked) })).statusCode, 401);
    assert.equal((await app.inject({ url: '/v1/own-hook', headers: bearer(refused.token) })).statusCode, 403);
    // The HEAD route Fastify adds beside every GET gets the same steps.
    assert.equal((await app.inject({ method: 'HEAD', url: '/v1/own-hook' })).statusCode, 401);
    assert.deepEqual(seen, [], "the route's hook ran for a caller who was refused");
    // Positive control: an allowed caller reaches the route's hook, authenticated.
    const allowed = await app.inject({ url: '/v1/own-hook', headers: bearer(server.adminToken) });
    assert.equal(allowed.statusCode, 200);
    assert.equal(seen.length, 1);
    assert.ok(seen[0], 'the hook saw the principal');
    await app.close();
  });
});

describe('security matrix', () => {
  const protectedRoutes = () => server.gatehouse.routes.filter((r) => r.permission !== 'public');

  test('each protected route answers 401 for no, malformed, unknown, expired and revoked tokens', async () => {
    const routes = protectedRoutes();
    assert.ok(routes.length >= 18, `only ${routes.length} protected routes`);
    for (const r of routes) {
      const path = concretePath(r.url);
      const tries: Array<[string, Record<string, string>, string]> = [
        ['no token', {}, 'unauthenticated'],
        ['malformed', { authorization: 'Bearer %%%' }, 'invalid_token'],
        ['unknown', { authorization: `Bearer gha_${'A'.repeat(43)}` }, 'invalid_token'],
        ['revoked', { authorization: `Bearer ${revoked}` }, 'token_revoked'],
      ];
      for (const [label, headers, code] of tries) {
        const res = await api(server.url, r.method, path, { headers, ...(r.method === 'GET' ? {} : { body: {} }) });
        assert.equal(res.status, 401, `${label}: ${r.method} ${path} → ${res.status}`);
        assert.equal(res.json.code, code, `${label}: ${r.method} ${path}`);
        assert.ok(res.headers.get('www-authenticate'), `${label}: ${r.method} ${path} lacks WWW-Authenticate`);
      }
    }
    server.clockOffset.ms = 2 * 3600_000;
    try {
      for (const r of routes) {
        const path = concretePath(r.url);
        const res = await api(server.url, r.method, path, {
          token: expired,
          ...(r.method === 'GET' ? {} : { body: {} }),
        });
        assert.equal(res.status, 401, `expired: ${r.method} ${path}`);
        assert.equal(res.json.code, 'token_expired', `expired: ${r.method} ${path}`);
      }
    } finally {
      server.clockOffset.ms = 0;
    }
  });

  test('each route needing a permission answers 403 to a valid token without it, and records the denial', async () => {
    const routes = protectedRoutes().filter((r) => r.permission !== 'authenticated');
    for (const r of routes) {
      const path = concretePath(r.url);
      const res = await api(server.url, r.method, path, {
        token: nobody.token,
        ...(r.method === 'GET' ? {} : { body: {} }),
      });
      assert.equal(res.status, 403, `${r.method} ${path} → ${res.status} ${res.text}`);
      assert.equal(res.json.code, 'forbidden');
    }
    const denied = await api(server.url, 'GET', `/v1/events?type=access.denied&actor=${nobody.id}&per_page=100`, {
      token: server.adminToken,
    });
    assert.equal(denied.json.pagination.total, routes.length);
  });

  test('positive control: the same calls with a permitted token pass authentication and authorization', async () => {
    for (const r of protectedRoutes()) {
      const path = concretePath(r.url);
      // Revoking would end the admin's own login; use a throwaway token for it.
      const token = r.url === '/v1/auth/revoke' ? await login() : server.adminToken;
      const res = await api(server.url, r.method, path, { token, ...(r.method === 'GET' ? {} : { body: {} }) });
      assert.ok(![401, 403].includes(res.status), `${r.method} ${path} → ${res.status} ${res.text}`);
      assert.ok(res.status < 500, `${r.method} ${path} → ${res.status}`);
      // Signing out everywhere ends every login of the admin, the shared token too: sign in again.
      if (r.method === 'DELETE' && r.url.startsWith('/v1/users/me/logins') && res.status < 300)
        server.adminToken = await login();
    }
  });
});
