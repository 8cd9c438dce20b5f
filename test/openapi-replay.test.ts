// The document cannot drift from the service: a walk through every operation of docs/openapi.json
// (successes and typical refusals, as clients meet them) is replayed over real HTTP and each
// exchange is checked against the committed document (helpers/openapi-conformance.ts).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { generateEd25519 } from '../src/lib/ssh-keygen.js';
import { ADMIN_KEY, startTestServer, type TestServer } from './helpers/gatehouse.js';
import { type Exchange, openApiChecker } from './helpers/openapi-conformance.js';

const doc = JSON.parse(readFileSync(new URL('../docs/openapi.json', import.meta.url), 'utf8'));
const exchanges: Exchange[] = [];
let gh: TestServer;
before(async () => {
  gh = await startTestServer();
});
after(() => gh.stop());

/** One request, recorded; answers the parsed JSON body (if any) and the status. */
async function call(method: string, url: string, opts: { token?: string | null; body?: unknown; raw?: string } = {}) {
  const headers: Record<string, string> = {};
  const token = opts.token === undefined ? gh.adminToken : opts.token;
  if (token) headers.authorization = `Bearer ${token}`;
  if (opts.body !== undefined || opts.raw !== undefined) headers['content-type'] = 'application/json';
  const body = opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body));
  const res = await fetch(`${gh.url}${url}`, { method, headers, ...(body === undefined ? {} : { body }) });
  const text = await res.text();
  exchanges.push({ method, url, requestBody: opts.body, status: res.status, headers: res.headers, text });
  let json: ReturnType<typeof JSON.parse>;
  try {
    json = text && /json/.test(res.headers.get('content-type') ?? '') ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, json };
}

async function walk(): Promise<void> {
  // Tokens: issue, refresh, introspect, revoke (with no body, and naming a token).
  const login = (await call('POST', '/v1/auth/token', { token: null, body: { api_key: ADMIN_KEY } })).json;
  await call('POST', '/v1/auth/token', { token: null, body: { api_key: 'ghk_wrong' } });
  const refreshed = (
    await call('POST', '/v1/auth/refresh', { token: null, body: { refresh_token: login.refresh_token } })
  ).json;
  await call('POST', '/v1/auth/introspect', { body: { token: refreshed.access_token } });
  await call('DELETE', '/v1/auth/revoke', { token: refreshed.access_token });
  await call('DELETE', '/v1/auth/revoke', { body: { token: login.access_token } });
  await call('GET', '/v1/auth/ssh-ca');
  await call('GET', '/v1/auth/whoami');
  await call('POST', '/v1/ssh/certificates', { body: { public_key: generateEd25519().public } });
  await call('POST', '/v1/ssh/certificates', { body: { public_key: 'ssh-rsa AAAA' } });
  await call('GET', '/.well-known/jwks.json', { token: null });
  await call('GET', '/healthz', { token: null });
  await call('GET', '/healthz?verbose=1', { token: null });
  await call('GET', '/readyz', { token: null });

  // Users, their API keys and SSH keys; defaults left out, names in paths, refusals.
  const user = (await call('POST', '/v1/users', { body: { name: 'replay-alice' } })).json;
  await call('POST', '/v1/users', { body: { name: 'replay-alice' } });
  await call('POST', '/v1/users', { body: { name: 'bad name' } });
  await call('GET', '/v1/users');
  await call('GET', '/v1/users?per_page=5&page=1&role=admin');
  await call('GET', '/v1/users', { token: null });
  await call('GET', '/v1/users', { token: 'gha_not-a-token' });
  await call('GET', `/v1/users/${user.id}`);
  await call('GET', '/v1/users/replay-alice');
  await call('GET', '/v1/users/user_doesnotexist000');
  await call('PATCH', `/v1/users/${user.id}`, { body: { roles: ['auditor'] } });
  const key = (await call('POST', `/v1/users/${user.id}/api-keys`, { body: {} })).json;
  await call('GET', `/v1/users/${user.id}/api-keys`);
  await call('GET', `/v1/users/${user.id}/api-keys?page=1`);
  await call('DELETE', `/v1/users/${user.id}/api-keys/${key.id}`);
  const sshKey = (
    await call('POST', `/v1/users/${user.id}/ssh-keys`, { body: { public_key: generateEd25519().public } })
  ).json;
  await call('GET', `/v1/users/${user.id}/ssh-keys`);
  await call('DELETE', `/v1/users/${user.id}/ssh-keys/${sshKey.id}`);
  // A person's own keys and what they reach (the caller is the admin, a user).
  const myKey = (await call('POST', '/v1/users/me/ssh-keys', { body: { public_key: generateEd25519().public } })).json;
  await call('GET', '/v1/users/me/ssh-keys');
  await call('DELETE', `/v1/users/me/ssh-keys/${myKey.id}`);
  const myApiKey = (await call('POST', '/v1/users/me/api-keys', { body: {} })).json;
  await call('GET', '/v1/users/me/api-keys');
  await call('DELETE', `/v1/users/me/api-keys/${myApiKey.id}`);
  // Signing out everywhere is walked as another person (replay-alice), not the walk's admin.
  const myApiKeySecret = (await call('POST', `/v1/users/${user.id}/api-keys`, { body: {} })).json.api_key;
  await call('GET', '/v1/users/me/access');
  await call('GET', `/v1/users/${user.id}/access`);
  // A person's own logins, with a login of the admin's own beside the walk's token (which stays).
  const other = (await call('POST', '/v1/auth/token', { token: null, body: { api_key: ADMIN_KEY } })).json;
  const mine = (await call('GET', '/v1/users/me/logins', { token: other.access_token })).json;
  const current = mine.logins.find((l: { current: boolean }) => l.current);
  await call('DELETE', '/v1/users/me/logins/AAAAAAAAAAAAAAAA', { token: other.access_token });
  await call('DELETE', `/v1/users/me/logins/${current.id}`, { token: other.access_token });
  const everywhere = (await call('POST', '/v1/auth/token', { token: null, body: { api_key: myApiKeySecret } })).json;
  await call('DELETE', '/v1/users/me/logins', { token: everywhere.access_token });
  // Approvals of held MCP tool calls (test/mcp-approvals.test.ts walks a real one): list, and
  // decisions on one that does not exist (404).
  await call('GET', '/v1/approvals?status=pending');
  await call('GET', '/v1/approvals/apr_doesnotexist00000');
  await call('POST', '/v1/approvals/apr_doesnotexist00000/approve');
  await call('POST', '/v1/approvals/apr_doesnotexist00000/deny');

  // Roles.
  const role = (
    await call('POST', '/v1/roles', {
      body: { name: 'replay-role', allow: { rules: [{ resources: ['sessions'], verbs: ['list'] }] } },
    })
  ).json;
  await call('GET', '/v1/roles');
  await call('GET', '/v1/roles/replay-role');
  await call('PUT', `/v1/roles/${role.id}`, { body: { name: 'replay-role', allow: {} } });
  await call('POST', `/v1/roles/${role.id}/preview`, { body: { name: 'replay-role', allow: { logins: ['x'] } } });
  await call('POST', '/v1/roles/replay-role/preview', { body: { name: 'replay-role' } });
  await call('DELETE', `/v1/roles/${role.id}`);
  await call('DELETE', '/v1/roles/admin');

  // Resources of every kind, their lists, relabelling, the host key reset.
  const server = (
    await call('POST', '/v1/resources', {
      body: { kind: 'server', name: 'replay-web', address: '127.0.0.1:22', labels: { env: 'dev' } },
    })
  ).json;
  const db = (
    await call('POST', '/v1/resources', {
      body: { kind: 'database', name: 'replay-db', address: '127.0.0.1:5432', protocol: 'postgres' },
    })
  ).json;
  await call('POST', '/v1/resources', { body: { kind: 'app', name: 'replay-app', uri: 'https://grafana.internal' } });
  await call('POST', '/v1/apps/launch', { body: { app: 'replay-app', state: 'replay-state-0123456789abcdef' } });
  await call('POST', '/v1/apps/launch', { body: { app: 'no-such-app', state: 'replay-state-0123456789abcdef' } });
  await call('POST', '/v1/resources', { body: { kind: 'toaster', name: 'x' } });
  for (const list of ['/v1/resources?kind=server', '/v1/servers?label=env=dev', '/v1/databases', '/v1/apps']) {
    await call('GET', list);
  }
  await call('GET', `/v1/resources/${server.id}`);
  await call('PATCH', `/v1/resources/${server.id}`, { body: { labels: { env: 'prod' } } });
  await call('DELETE', `/v1/resources/${server.id}/ssh-host-key`);
  await call('GET', `/v1/resources/${db.id}/kubeconfig`);

  // Sessions and tickets (the admin may reach the server as root).
  await call('POST', '/v1/sessions', { body: { server: 'replay-web', login: 'root' } });
  await call('GET', '/v1/sessions');
  await call('GET', '/v1/sessions/sess_doesnotexist00000000000');
  await call('DELETE', '/v1/sessions/sess_doesnotexist00000000000');
  // A person's own sessions (test/my-sessions.test.ts ends a real one): the list, an unknown one.
  await call('GET', '/v1/users/me/sessions');
  await call('GET', '/v1/users/me/sessions?status=active&per_page=5');
  await call('DELETE', '/v1/users/me/sessions/sess_doesnotexist00000000000');
  await call('GET', '/v1/sessions/sess_doesnotexist00000000000/recording');
  await call('GET', '/v1/sessions/sess_doesnotexist00000000000/stream');

  // Agents: credentials of each type, delegations, SSH keys, the kill switch.
  const agent = (await call('POST', '/v1/agents', { body: { name: 'replay-bot' } })).json;
  await call('GET', '/v1/agents?per_page=20&status=active');
  await call('GET', `/v1/agents/${agent.id}`);
  await call('GET', `/v1/agents/${agent.id}/access`);
  await call('GET', '/v1/agents/agent_doesnotexist000');
  const credential = (await call('POST', `/v1/agents/${agent.id}/credentials`, { body: {} })).json;
  await call('POST', `/v1/agents/${agent.id}/credentials`, { body: { type: 'jwt', audience: 'https://ci.internal' } });
  await call('POST', `/v1/agents/${agent.id}/credentials`, { body: { type: 'api_key' } });
  await call('GET', `/v1/agents/${agent.id}/credentials`);
  await call('DELETE', `/v1/agents/${agent.id}/credentials/${credential.id}`);
  await call('POST', `/v1/agents/${agent.id}/delegations`, { body: {} });
  await call('GET', `/v1/agents/${agent.id}/delegations`);
  const admin = (await call('GET', '/v1/users?name=admin')).json.users[0];
  await call('DELETE', `/v1/agents/${agent.id}/delegations/${admin.id}`);
  const agentKey = (
    await call('POST', `/v1/agents/${agent.id}/ssh-keys`, { body: { public_key: generateEd25519().public } })
  ).json;
  await call('GET', `/v1/agents/${agent.id}/ssh-keys`);
  await call('DELETE', `/v1/agents/${agent.id}/ssh-keys/${agentKey.id}`);
  await call('PATCH', `/v1/agents/${agent.id}`, { body: { status: 'suspended' } });
  await call('DELETE', `/v1/agents/${agent.id}`);

  // Webhooks.
  const hook = (
    await call('POST', '/v1/webhooks', {
      body: { name: 'replay-hook', url: 'https://example.com/hook', event_types: ['audit.pruned'] },
    })
  ).json;
  await call('GET', '/v1/webhooks');
  await call('GET', `/v1/webhooks/${hook.id}`);
  await call('GET', `/v1/webhooks/${hook.id}/deliveries`);
  await call('PATCH', `/v1/webhooks/${hook.id}`, { body: { description: 'replayed', status: 'disabled' } });
  await call('PATCH', `/v1/webhooks/${hook.id}`, { body: {} });
  await call('DELETE', `/v1/webhooks/${hook.id}`);

  // The cluster's proxies: a join token, the identities, removing one that is not there.
  await call('POST', '/v1/cluster/join-tokens', { body: { role: 'proxy', ttl: '10m' } });
  await call('POST', '/v1/cluster/join-tokens', { body: { role: 'proxy', uses: 0 } });
  await call('GET', '/v1/cluster/instances');
  await call('DELETE', '/v1/cluster/instances/prx_0000000000000000');

  // The audit trail: pages, NDJSON export, access decisions, sessions.
  await call('GET', '/v1/events?per_page=5');
  await call('GET', '/v1/events?format=ndjson&type=user.*');
  await call('GET', '/v1/audit/events?success=false');
  await call('GET', '/v1/audit/access');
  await call('GET', '/v1/audit/sessions');

  // Security keys: the caller's own (none yet), and an administrator's view of someone's.
  const me = (await call('GET', '/v1/users/me')).json;
  await call('GET', '/v1/users/me/mfa/devices');
  await call('POST', '/v1/users/me/mfa/devices/options', { body: {} });
  await call('POST', '/v1/users/me/mfa/devices', { body: { name: 'k', response: {} } });
  await call('PATCH', '/v1/users/me/mfa/devices/nokey', { body: { name: 'renamed' } });
  await call('DELETE', '/v1/users/me/mfa/devices/nokey');
  await call('GET', `/v1/users/${me?.id}/mfa/devices`);
  await call('DELETE', `/v1/users/${me?.id}/mfa/devices`);

  // Single sign-on connectors: list, a refused creation, and a connector that does not exist.
  await call('GET', '/v1/auth/connectors');
  await call('POST', '/v1/auth/connectors', { body: { kind: 'oidc' } });
  await call('GET', '/v1/auth/connectors/nowhere');
  await call('PUT', '/v1/auth/connectors/nowhere', { body: { kind: 'oidc' } });
  await call('DELETE', '/v1/auth/connectors/nowhere');

  // Cleanup and framework answers: 204s, 404/405/415/400 from outside any handler.
  await call('DELETE', `/v1/resources/${db.id}`);
  await call('DELETE', '/v1/users/replay-alice');
  await call('PUT', '/v1/users');
  await call('GET', '/v1/nowhere');
  await call('POST', '/v1/users', { raw: '{"name":' });
}

test('every answer of a walk through the API matches docs/openapi.json', async () => {
  await walk();
  const checker = openApiChecker(doc);
  const problems = exchanges.flatMap((x) => checker.check(x));
  assert.deepEqual(problems, [], `${problems.length} mismatches:\n${problems.join('\n')}`);
  assert.deepEqual(checker.unreached(exchanges), [], 'operations the walk never reached');
  // The walk saw the headers and media types the document promises, not only JSON successes.
  const seen = (re: RegExp) => exchanges.some((x) => re.test(x.headers.get('content-type') ?? ''));
  assert.ok(seen(/^application\/problem\+json/) && seen(/^application\/x-ndjson/));
  assert.ok(exchanges.some((x) => x.status === 401 && x.headers.get('www-authenticate')));
  assert.ok(exchanges.some((x) => x.status === 201 && x.headers.get('location')));
});

test('the document states what clients generate code from', () => {
  assert.equal(doc.jsonSchemaDialect, 'https://json-schema.org/draft/2020-12/schema');
  const list = doc.paths['/v1/agents'].get;
  for (const name of ['page', 'per_page']) {
    assert.equal(list.parameters.find((p: { name: string }) => p.name === name).required, false, name);
  }
  assert.equal(doc.paths['/v1/auth/revoke'].delete.requestBody.required, false);
  const required = (path: string, method: string) =>
    doc.paths[path][method].requestBody.content['application/json'].schema.required ?? [];
  assert.deepEqual(required('/v1/users', 'post'), ['name']);
  assert.deepEqual(required('/v1/agents', 'post'), ['name']);
  assert.deepEqual(required('/v1/agents/{id}/credentials', 'post'), []);
  assert.deepEqual(required('/v1/users/{id}/api-keys', 'post'), []);
  assert.ok(list.responses['4XX'].content['application/problem+json']);
  assert.ok(!list.responses['4XX'].content['application/json']);
  assert.deepEqual(Object.keys(doc.paths['/v1/sessions/{id}/recording'].get.responses['200'].content), [
    'application/x-asciicast',
    'text/plain',
  ]);
  const labels = doc.paths['/v1/agents'].post.requestBody.content['application/json'].schema.properties.labels;
  assert.equal(labels.propertyNames.pattern, '^[A-Za-z0-9][A-Za-z0-9._/-]*$');
  const url = doc.paths['/v1/webhooks'].post.requestBody.content['application/json'].schema.properties.url;
  assert.match(url.pattern, /\[Ss\]\?:/);
});
