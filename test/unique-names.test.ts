// Names are unique regardless of case (users, roles, agents, resources per kind, webhooks): a case
// variant is a 409 naming the existing name, renames obey the same rule, deleting frees the name, and
// a data dir from before the rule gets its folded-name keys on start without losing a record.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { openSqliteBackend } from '../src/backend/sqlite.js';
import { api, type Reply, requestsTo, startTestServer, type TestServer } from './helpers/gatehouse.js';

const WEBHOOK_HOSTS = { webhook_allowed_hosts: ['127.0.0.1'] };

let server: TestServer;
const { admin } = requestsTo(() => server);
before(async () => {
  server = await startTestServer(WEBHOOK_HOSTS);
});
after(() => server.stop());

function assertNameTaken(res: Reply, existing: string): void {
  assert.equal(res.status, 409, res.text);
  assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
  assert.equal(res.json.code, 'conflict');
  assert.ok(res.json.detail.includes(JSON.stringify(existing)), `detail names ${existing}: ${res.json.detail}`);
}

/** How each kind is created and deleted; the rest of a test is the same for all. */
const KINDS: Record<string, { path: string; body: (name: string) => Record<string, unknown>; deleted?: number }> = {
  // Deleting a user or an agent answers the sessions it ended.
  users: { path: '/v1/users', body: (name) => ({ name }), deleted: 200 },
  roles: { path: '/v1/roles', body: (name) => ({ name, allow: {} }) },
  agents: { path: '/v1/agents', body: (name) => ({ name }), deleted: 200 },
  resources: { path: '/v1/resources', body: (name) => ({ kind: 'server', name, address: '10.0.0.5:22' }) },
  webhooks: {
    path: '/v1/webhooks',
    body: (name) => ({ name, url: 'http://127.0.0.1:9/hook', event_types: ['user.created'] }),
  },
};

describe('a name in another case is taken', () => {
  for (const [kind, { path, body, deleted = 204 }] of Object.entries(KINDS)) {
    test(`${kind}: a case variant is 409, another name is 201; deleting frees the name in every case`, async () => {
      const original = await admin('POST', path, body(`${kind}-Mixed`));
      assert.equal(original.status, 201, original.text);
      assertNameTaken(await admin('POST', path, body(`${kind}-mixed`)), `${kind}-Mixed`);
      assertNameTaken(await admin('POST', path, body(`${kind.toUpperCase()}-MIXED`)), `${kind}-Mixed`);
      assertNameTaken(await admin('POST', path, body(`${kind}-Mixed`)), `${kind}-Mixed`);
      const other = await admin('POST', path, body(`${kind}-mixed-2`));
      assert.equal(other.status, 201, 'a genuinely different name is fine');

      assert.equal((await admin('DELETE', `${path}/${original.json.id}`)).status, deleted);
      const again = await admin('POST', path, body(`${kind}-MIXED`));
      assert.equal(again.status, 201, 'the folded key went with the record');
      assertNameTaken(await admin('POST', path, body(`${kind}-mixed`)), `${kind}-MIXED`);
    });
  }

  test('the built-in admin role: Admin and ADMIN are refused, and names still resolve exactly', async () => {
    for (const name of ['Admin', 'ADMIN'])
      assertNameTaken(await admin('POST', '/v1/roles', { name, allow: {} }), 'admin');
    assert.equal((await admin('POST', '/v1/roles', { name: 'admin-like', allow: {} })).status, 201);
    assert.equal((await admin('GET', '/v1/roles/ADMIN')).status, 404, 'lookups by name stay exact');
    const user = await admin('POST', '/v1/users', { name: 'wants-admin', roles: ['ADMIN'] });
    assert.equal(user.status, 400, 'ADMIN does not resolve to admin');
  });

  test('ALICE beside alice; a database may share a server name (unique per kind)', async () => {
    assert.equal((await admin('POST', '/v1/users', { name: 'alice' })).status, 201);
    assertNameTaken(await admin('POST', '/v1/users', { name: 'ALICE' }), 'alice');
    const server1 = { kind: 'server', name: 'web-1', address: '10.0.0.5:22' };
    assert.equal((await admin('POST', '/v1/resources', server1)).status, 201);
    assertNameTaken(await admin('POST', '/v1/resources', { ...server1, name: 'WEB-1' }), 'web-1');
    const db = { kind: 'database', name: 'WEB-1', address: 'db:5432', protocol: 'postgres' };
    assert.equal((await admin('POST', '/v1/resources', db)).status, 201);
  });
});

describe('renames obey the same rule', () => {
  test('roles: PUT into a case variant of another role is 409; into its own name in another case is 200', async () => {
    assert.equal((await admin('POST', '/v1/roles', { name: 'ops', allow: {} })).status, 201);
    const dev = await admin('POST', '/v1/roles', { name: 'dev', allow: {} });
    assert.equal(dev.status, 201);
    assertNameTaken(await admin('PUT', `/v1/roles/${dev.json.id}`, { name: 'OPS', allow: {} }), 'ops');
    assertNameTaken(await admin('PUT', `/v1/roles/${dev.json.id}`, { name: 'Admin', allow: {} }), 'admin');
    const renamed = await admin('PUT', `/v1/roles/${dev.json.id}`, { name: 'DEV', allow: {} });
    assert.equal(renamed.status, 200, renamed.text);
    assert.equal(renamed.json.name, 'DEV');
    assert.equal((await admin('GET', '/v1/roles/DEV')).json.id, dev.json.id);
    assert.equal((await admin('GET', '/v1/roles/dev')).status, 404, 'the exact key moved');
    assertNameTaken(await admin('POST', '/v1/roles', { name: 'dev', allow: {} }), 'DEV');
    const moved = await admin('PUT', `/v1/roles/${dev.json.id}`, { name: 'qa', allow: {} });
    assert.equal(moved.status, 200, 'a genuinely different name is fine');
    assert.equal((await admin('POST', '/v1/roles', { name: 'Dev', allow: {} })).status, 201, 'dev is free again');
  });

  test('agents: PATCH name into a case variant of another agent is 409; into its own in another case is 200', async () => {
    assert.equal((await admin('POST', '/v1/agents', { name: 'build-bot' })).status, 201);
    const bot = await admin('POST', '/v1/agents', { name: 'deploy-bot' });
    assert.equal(bot.status, 201);
    assertNameTaken(await admin('PATCH', `/v1/agents/${bot.json.id}`, { name: 'Build-Bot' }), 'build-bot');
    const renamed = await admin('PATCH', `/v1/agents/${bot.json.id}`, { name: 'Deploy-Bot' });
    assert.equal(renamed.status, 200, renamed.text);
    assert.equal(renamed.json.name, 'Deploy-Bot');
    assertNameTaken(await admin('POST', '/v1/agents', { name: 'deploy-bot' }), 'Deploy-Bot');
    assert.equal((await admin('PATCH', `/v1/agents/${bot.json.id}`, { name: 'ship-bot' })).status, 200);
    assert.equal((await admin('POST', '/v1/agents', { name: 'DEPLOY-BOT' })).status, 201, 'deploy-bot is free again');
  });
});

describe('a data dir from before the rule', () => {
  test('start backfills the folded keys; records that already collide stay, with one warning', async () => {
    const first = await startTestServer(WEBHOOK_HOSTS);
    const as = (method: string, path: string, body?: unknown) =>
      api(first.url, method, path, { token: first.adminToken, ...(body !== undefined ? { body } : {}) });
    const carol = await as('POST', '/v1/users', { name: 'carol' });
    assert.equal(carol.status, 201);
    for (const [path, body] of [
      ['/v1/roles', { name: 'Ops', allow: {} }],
      ['/v1/agents', { name: 'bot' }],
      ['/v1/resources', { kind: 'server', name: 'web', address: '10.0.0.5:22' }],
      ['/v1/webhooks', { name: 'hook', url: 'http://127.0.0.1:9/hook', event_types: ['*'] }],
    ] as const) {
      assert.equal((await as('POST', path, body)).status, 201);
    }
    await first.stop({ keepData: true });

    // As the release before wrote them: no folded keys, and a pair that differs only in case.
    const backend = openSqliteBackend({ path: `${first.dataDir}/state.db` });
    const folded = (await backend.getRange('index/')).filter((i) => i.key.split('/')[2] === 'folded');
    assert.ok(folded.length >= 9, 'this release wrote folded keys (built-in roles included)');
    for (const item of folded) await backend.delete(item.key);
    const shout = {
      ...carol.json,
      id: `user_${'0'.repeat(25)}1`,
      name: 'CAROL',
      created_at: new Date(Date.parse(carol.json.created_at) + 1000).toISOString(),
    };
    await backend.put(`users/${shout.id}`, JSON.stringify(shout));
    await backend.put('index/users/name/CAROL', JSON.stringify({ ref: `users/${shout.id}` }));
    await backend.close();

    const warnings: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        const line = JSON.parse(String(chunk)) as { level: number; msg: string };
        if (line.level === 40) warnings.push(line.msg);
        done();
      },
    });
    const second = await startTestServer(WEBHOOK_HOSTS, {
      dataDir: first.dataDir,
      logger: pino({ level: 'warn' }, sink),
    });
    try {
      const again = (method: string, path: string, body?: unknown) =>
        api(second.url, method, path, { token: second.adminToken, ...(body !== undefined ? { body } : {}) });
      assertNameTaken(await again('POST', '/v1/users', { name: 'Carol' }), 'carol');
      assertNameTaken(await again('POST', '/v1/roles', { name: 'OPS', allow: {} }), 'Ops');
      assertNameTaken(await again('POST', '/v1/roles', { name: 'Auditor', allow: {} }), 'auditor');
      assertNameTaken(await again('POST', '/v1/agents', { name: 'BOT' }), 'bot');
      const web = { kind: 'server', name: 'Web', address: '10.0.0.6:22' };
      assertNameTaken(await again('POST', '/v1/resources', web), 'web');
      const hook = { name: 'HOOK', url: 'http://127.0.0.1:9/hook', event_types: ['*'] };
      assertNameTaken(await again('POST', '/v1/webhooks', hook), 'hook');
      assert.equal((await again('POST', '/v1/users', { name: 'dave' })).status, 201, 'positive control');

      // Both of the old pair are kept and work; the warning names them, once.
      assert.equal((await again('GET', `/v1/users/${carol.json.id}`)).status, 200);
      assert.equal((await again('GET', `/v1/users/${shout.id}`)).status, 200);
      const collisions = warnings.filter((w) => w.includes('differ only in case'));
      assert.equal(collisions.length, 1, warnings.join('\n'));
      assert.match(collisions[0] as string, /"carol".*"CAROL"/);
      // Deleting the one without the folded key leaves the other's in place.
      assert.equal((await again('DELETE', `/v1/users/${shout.id}`)).status, 200);
      assertNameTaken(await again('POST', '/v1/users', { name: 'CAROL' }), 'carol');
    } finally {
      await second.stop();
    }
  });
});
