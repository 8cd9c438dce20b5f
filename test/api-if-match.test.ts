// Optimistic concurrency on the objects the API changes one at a time: GET of one answers a strong
// ETag; PUT, PATCH and DELETE with If-Match apply only to that version. A stale one is a 412 naming
// the object, and the object is left as it was; the current one applies (the positive control);
// without If-Match, a change applies as before.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { api, type Reply, startTestServer, type TestServer } from './helpers/gatehouse.js';

let server: TestServer;

before(async () => {
  server = await startTestServer();
});
after(async () => {
  await server?.stop();
});

const call = (method: string, path: string, body?: unknown, ifMatch?: string): Promise<Reply> =>
  api(server.url, method, path, {
    token: server.adminToken,
    ...(body !== undefined ? { body } : {}),
    ...(ifMatch !== undefined ? { headers: { 'if-match': ifMatch } } : {}),
  });

async function etagOf(path: string): Promise<string> {
  const r = await call('GET', path);
  assert.equal(r.status, 200, r.text);
  const etag = r.headers.get('etag');
  assert.match(etag ?? '', /^"[0-9]+"$/, 'a strong ETag');
  return etag as string;
}

const OIDC = {
  kind: 'oidc',
  issuer: 'https://idp.example.com',
  client_id: 'gatehouse',
  client_secret: 'if-match-connector-secret-0123456789',
  claims_to_roles: [{ claim: 'groups', value: 'ops', roles: ['auditor'] }],
};

// Each kind: where it is created and with what, one change of it (PUT or PATCH) and the field it sets.
interface Case {
  what: string;
  url: string;
  body: unknown;
  method: 'PUT' | 'PATCH';
  change: (v: string) => unknown;
  // biome-ignore lint/suspicious/noExplicitAny: each kind's answer is read by its own field
  read: (o: any) => unknown;
}
const KINDS: Case[] = [
  {
    what: 'role im-role',
    url: '/v1/roles',
    body: { name: 'im-role', allow: {} },
    method: 'PUT',
    change: (v) => ({ name: 'im-role', description: v, allow: {} }),
    read: (o) => o.description,
  },
  {
    what: 'user im-user',
    url: '/v1/users',
    body: { name: 'im-user', roles: [] },
    method: 'PATCH',
    change: (v) => ({ traits: { logins: [v] } }),
    read: (o) => o.traits.logins?.[0],
  },
  {
    what: 'server im-server',
    url: '/v1/resources',
    body: { kind: 'server', name: 'im-server', address: '127.0.0.1:2222' },
    method: 'PATCH',
    change: (v) => ({ description: v }),
    read: (o) => o.description,
  },
  {
    what: 'connector im-idp',
    url: '/v1/auth/connectors',
    body: { name: 'im-idp', display_name: 'IdP', ...OIDC },
    method: 'PUT',
    change: (v) => ({ name: 'im-idp', ...OIDC, display_name: v }),
    read: (o) => o.display_name,
  },
];

for (const k of KINDS) {
  test(`${k.what}: a stale If-Match is a 412 and changes nothing; the current ETag applies; DELETE likewise`, async () => {
    const created = await call('POST', k.url, k.body);
    assert.equal(created.status, 201, created.text);
    const path = `${k.url}/${created.json.id}`;
    const read = k.read;
    const change = (v: string, ifMatch?: string) => call(k.method, path, k.change(v), ifMatch);

    const first = await etagOf(path);
    // Someone else changes it (no If-Match: today's behaviour), so the ETag read first is stale.
    const theirs = await change('theirs');
    assert.equal(theirs.status, 200, theirs.text);
    const second = await etagOf(path);
    assert.notEqual(second, first, 'a write gives the object a new ETag');

    const stale = await change('mine', first);
    assert.equal(stale.status, 412, stale.text);
    assert.equal(stale.json.code, 'precondition_failed');
    assert.match(stale.json.detail, new RegExp(`^${k.what} changed since it was read`));
    assert.equal(read((await call('GET', path)).json), 'theirs', 'the object is unchanged');
    assert.equal(await etagOf(path), second);
    assert.equal((await change('mine', `W/${second}`)).status, 412, 'If-Match compares strongly: a weak tag fails');

    const current = await change('mine', `"1", ${second}`);
    assert.equal(current.status, 200, current.text);
    assert.equal(read(current.json), 'mine');
    const third = await etagOf(path);
    assert.equal((await change('again', second)).status, 412, 'the ETag just used is stale now');
    assert.equal((await change('any', '*')).status, 200, '* matches any current version');
    const fourth = await etagOf(path);

    const staleDelete = await call('DELETE', path, undefined, third);
    assert.equal(staleDelete.status, 412, staleDelete.text);
    assert.match(staleDelete.json.detail, new RegExp(`^${k.what} changed since it was read`));
    assert.equal((await call('GET', path)).status, 200, 'still there');
    const deleted = await call('DELETE', path, undefined, fourth);
    assert.ok(deleted.status === 204 || deleted.status === 200, deleted.text);
    assert.equal((await call('GET', path)).status, 404);
  });
}

test('agents and webhooks: GET answers an ETag and a stale one refuses the DELETE', async () => {
  const agent = await call('POST', '/v1/agents', { name: 'im-agent', roles: [] });
  assert.equal(agent.status, 201, agent.text);
  const agentPath = `/v1/agents/${agent.json.agent?.id ?? agent.json.id}`;
  const before = await etagOf(agentPath);
  assert.equal((await call('PATCH', agentPath, { description: 'theirs' })).status, 200);
  const stale = await call('PATCH', agentPath, { description: 'mine' }, before);
  assert.equal(stale.status, 412, stale.text);
  assert.match(stale.json.detail, /^agent im-agent changed since it was read/);
  assert.equal((await call('GET', agentPath)).json.description, 'theirs');
  assert.equal((await call('DELETE', agentPath, undefined, before)).status, 412);
  assert.equal((await call('DELETE', agentPath, undefined, await etagOf(agentPath))).status, 200);

  const hook = await call('POST', '/v1/webhooks', {
    name: 'im-hook',
    url: 'https://hooks.example.com/x',
    event_types: ['user.created'],
  });
  assert.equal(hook.status, 201, hook.text);
  const hookPath = `/v1/webhooks/${hook.json.webhook?.id ?? hook.json.id}`;
  const etag = await etagOf(hookPath);
  assert.equal((await call('DELETE', hookPath, undefined, '"1"')).status, 412);
  assert.equal((await call('GET', hookPath)).status, 200);
  assert.equal((await call('DELETE', hookPath, undefined, etag)).status, 204);
});
