// More of what a careless or hostile client sends, and what it must see: 404 for an id of the right
// kind that names nothing, ports out of range, forbidden keys named as such, enum errors that list
// the allowed values, unknown query parameters refused on every API route, users by name, and the
// metrics listener answering like the others.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { api, startTestServer, type TestServer } from './helpers/gatehouse.js';

let gh: TestServer;
before(async () => {
  gh = await startTestServer();
});
after(() => gh.stop());

const as = (method: string, path: string, body?: unknown) =>
  api(gh.url, method, path, { token: gh.adminToken, ...(body === undefined ? {} : { body }) });

const raw = (path: string, text: string) =>
  fetch(`${gh.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gh.adminToken}`, 'content-type': 'application/json' },
    body: text,
  }).then(async (r) => ({ status: r.status, type: r.headers.get('content-type'), json: await r.json() }));

test('a well-formed id that names nothing is 404; an id of another kind is 400', async () => {
  const agent = (await as('POST', '/v1/agents', { name: 'strict-404-bot' })).json;
  for (const path of [
    '/v1/agents/agent_doesnotexist000',
    '/v1/users/user_doesnotexist000',
    '/v1/resources/srv_doesnotexist000',
    '/v1/servers/srv_doesnotexist000',
    '/v1/webhooks/whk_doesnotexist000',
    '/v1/roles/role_doesnotexist000',
    `/v1/agents/${agent.id}/credentials/cred_doesnotexist000`,
  ]) {
    const method = path.includes('/credentials/') ? 'DELETE' : 'GET';
    const r = await as(method, path);
    assert.equal(r.status, 404, `${path}: ${r.text}`);
    assert.equal(r.json.code, 'not_found');
  }
  const wrongKind = await as('GET', '/v1/agents/user_doesnotexist000');
  assert.equal(wrongKind.status, 400, wrongKind.text);
  assert.equal(wrongKind.json.errors[0].path, '/path/id');
  // Positive control: the agent itself is found.
  assert.equal((await as('GET', `/v1/agents/${agent.id}`)).status, 200);
});

test('ports in resource addresses are 1–65535', async () => {
  let n = 0;
  const register = (address: string) => as('POST', '/v1/resources', { kind: 'server', name: `port-${n++}`, address });
  for (const address of ['10.0.0.1:0', '10.0.0.1:65536', '10.0.0.1:70000', 'db:99999']) {
    const r = await register(address);
    assert.equal(r.status, 400, `${address}: ${r.text}`);
    assert.equal(r.json.errors[0].path, '/body/address');
    assert.match(r.json.errors[0].message, /port from 1 to 65535/);
  }
  for (const address of ['10.0.0.1:1', '10.0.0.1:65535', '[::1]:22', 'web-1']) {
    assert.equal((await register(address)).status, 201, address);
  }
  const patch = await as('POST', '/v1/resources', {
    kind: 'database',
    name: 'port-db',
    address: 'db:5432',
    protocol: 'postgres',
  });
  const moved = await as('PATCH', `/v1/resources/${patch.json.id}`, { address: 'db:65536' });
  assert.equal(moved.status, 400, moved.text);
});

test('NUL and lone surrogates are refused in names and logins, at the field', async () => {
  const cases: Array<[string, string, (bad: string) => unknown, string]> = [
    ['POST', '/v1/users', (bad) => ({ name: `a${bad}` }), '/body/name'],
    ['POST', '/v1/users', (bad) => ({ name: 'nul-login', traits: { logins: [`u${bad}`] } }), '/body/traits/logins/0'],
    ['POST', '/v1/agents', (bad) => ({ name: `a${bad}` }), '/body/name'],
    ['POST', '/v1/resources', (bad) => ({ kind: 'server', name: `a${bad}`, address: 'h:22' }), '/body/name'],
    ['POST', '/v1/roles', (bad) => ({ name: `a${bad}`, allow: {} }), '/body/name'],
    ['POST', '/v1/roles', (bad) => ({ name: 'nul-role', allow: { logins: [`u${bad}`] } }), '/body/allow/logins/0'],
    ['POST', '/v1/users/admin/api-keys', (bad) => ({ name: `k${bad}` }), '/body/name'],
    ['POST', '/v1/users/admin/ssh-keys', (bad) => ({ public_key: 'ssh-ed25519 AAAA', name: `k${bad}` }), '/body/name'],
  ];
  for (const [method, path, body, field] of cases) {
    for (const bad of ['\u0000', '\ud800', '\udfff']) {
      const r = await as(method, path, body(bad));
      assert.equal(r.status, 400, `${path} ${JSON.stringify(bad)}: ${r.text}`);
      assert.ok(
        r.json.errors.some((e: { path: string }) => e.path === field),
        `${path} ${JSON.stringify(bad)}: ${r.text}`,
      );
    }
  }
});

test('empty label keys are refused on agents, on relabelling and in label filters', async () => {
  const agent = await as('POST', '/v1/agents', { name: 'empty-key-bot', labels: { '': 'x' } });
  assert.equal(agent.status, 400, agent.text);
  assert.equal(agent.json.errors[0].path, '/body/labels/');
  const res = await as('POST', '/v1/resources', { kind: 'server', name: 'empty-key', address: 'h:22' });
  const patch = await as('PATCH', `/v1/resources/${res.json.id}`, { labels: { '': 'x' } });
  assert.equal(patch.status, 400, patch.text);
  const filter = await as('GET', '/v1/servers?label==x');
  assert.equal(filter.status, 400, filter.text);
  assert.equal(filter.json.errors[0].path, '/query/label/0');
});

test('a __proto__ or constructor.prototype key is named, not called invalid JSON', async () => {
  const top = await raw('/v1/users', '{"name":"proto-1","__proto__":{"admin":true}}');
  assert.equal(top.status, 400);
  assert.match(String(top.type), /^application\/problem\+json/);
  assert.deepEqual(
    top.json.errors.map((e: { path: string }) => e.path),
    ['/body/__proto__'],
  );
  assert.doesNotMatch(top.json.detail, /not valid JSON/);
  const nested = await raw('/v1/agents', '{"name":"proto-2","labels":{"constructor":{"prototype":{"x":1}}}}');
  assert.equal(nested.status, 400);
  assert.equal(nested.json.errors[0].path, '/body/labels/constructor/prototype');
  const escaped = await raw('/v1/users', '{"name":"proto-3","\\u005f_proto__":{}}');
  assert.equal(escaped.status, 400);
  assert.equal(escaped.json.errors[0].path, '/body/__proto__');
  // Still JSON errors where the JSON is broken; a "constructor" field of its own is just unknown.
  const broken = await raw('/v1/users', '{"name":');
  assert.equal(broken.json.detail, 'the body is not valid JSON');
  const plain = await raw('/v1/users', '{"name":"proto-4","constructor":1}');
  assert.equal(plain.json.errors[0].path, '/body/constructor');
  assert.equal(plain.json.errors[0].message, 'is not a known field');
});

test('enum errors list the allowed values', async () => {
  const body = await as('POST', '/v1/resources', { kind: 'toaster', name: 'enum-1', address: 'h:22' });
  assert.equal(body.status, 400);
  assert.deepEqual(body.json.errors, [
    { path: '/body/kind', message: 'must be one of: database, server, app, kube_cluster' },
  ]);
  const query = await as('GET', '/v1/agents?status=bogus');
  assert.equal(query.status, 400);
  assert.equal(query.json.errors[0].path, '/query/status');
  assert.match(query.json.errors[0].message, /^must be one of: .*active.*suspended.*revoked/);
});

test('unknown query parameters are refused on routes that take none', async () => {
  const admin = (await as('GET', '/v1/users?name=admin')).json.users[0];
  for (const path of [
    `/v1/users/${admin.id}/api-keys?page=1`,
    `/v1/users/${admin.id}?verbose=1`,
    '/v1/roles/admin?x=1',
  ]) {
    const r = await as('GET', path);
    assert.equal(r.status, 400, `${path}: ${r.text}`);
    assert.equal(r.json.errors[0].path, `/query/${new URLSearchParams(path.split('?')[1]).keys().next().value}`);
  }
  const health = await api(gh.url, 'GET', '/healthz?verbose=1');
  assert.equal(health.status, 400, health.text);
  assert.equal(health.json.errors[0].path, '/query/verbose');
  // Positive controls.
  assert.equal((await api(gh.url, 'GET', '/healthz')).status, 200);
  assert.equal((await as('GET', `/v1/users/${admin.id}/api-keys`)).status, 200);
});

test('users are addressed by name like roles; an id wins, an unknown name is 404', async () => {
  const alice = await as('POST', '/v1/users', { name: 'alice-by-name', roles: ['auditor'] });
  assert.equal(alice.status, 201);
  const got = await as('GET', '/v1/users/alice-by-name');
  assert.equal(got.status, 200, got.text);
  assert.equal(got.json.id, alice.json.id);
  const key = await as('POST', '/v1/users/alice-by-name/api-keys', { name: 'laptop' });
  assert.equal(key.status, 201, key.text);
  const keys = await as('GET', '/v1/users/alice-by-name/api-keys');
  assert.equal(keys.json.api_keys.length, 1);
  const patched = await as('PATCH', '/v1/users/alice-by-name', { roles: ['auditor', 'access'] });
  assert.equal(patched.status, 200, patched.text);
  const sshKeys = await as('GET', '/v1/users/alice-by-name/ssh-keys');
  assert.equal(sshKeys.status, 200, sshKeys.text);
  const missing = await as('GET', '/v1/users/nobody-here');
  assert.equal(missing.status, 404);
  assert.match(missing.json.detail, /nobody-here/);
  assert.equal((await as('DELETE', '/v1/users/alice-by-name')).status, 200);
  assert.equal((await as('GET', `/v1/users/${alice.json.id}`)).status, 404);
});

test('/metrics carries X-Request-Id and answers 405 with Allow to other methods', async () => {
  const ok = await fetch(`${gh.metricsUrl}/metrics`);
  assert.equal(ok.status, 200);
  assert.match(String(ok.headers.get('x-request-id')), /^req_[0-9a-f]{32}$/);
  await ok.text();
  for (const method of ['POST', 'PUT', 'DELETE']) {
    const r = await fetch(`${gh.metricsUrl}/metrics`, { method });
    assert.equal(r.status, 405, method);
    assert.equal(r.headers.get('allow'), 'GET, HEAD');
    assert.match(String(r.headers.get('content-type')), /^application\/problem\+json/);
    const problem = (await r.json()) as { code: string; request_id: string };
    assert.equal(problem.code, 'method_not_allowed');
    assert.equal(problem.request_id, r.headers.get('x-request-id'));
  }
  const other = await fetch(`${gh.metricsUrl}/other`);
  assert.equal(other.status, 404);
  assert.ok(other.headers.get('x-request-id'));
  await other.text();
});
