// POST /v1/roles/{id}/preview: before a role change is saved, who gains or loses what. The preview is
// checked against what happens once the change is saved (the access API, and the SSH ticket door),
// changes nothing itself, and shows a caller only the principals and resources it may see.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { requestsTo, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';

let gh: TestServer;
const { admin, as } = requestsTo(() => gh);
const TICKETS = [{ resources: ['sessions'], verbs: ['create'] }];
const DEV = {
  name: 'pv-ssh',
  allow: { rules: TICKETS, resources: [{ kinds: ['server'], labels: { env: 'dev' } }], logins: ['ubuntu'] },
};
const TO_PROD = {
  name: 'pv-ssh',
  allow: { rules: TICKETS, resources: [{ kinds: ['server'], labels: { env: 'prod' } }], logins: ['ubuntu', 'deploy'] },
};

let alice: Awaited<ReturnType<typeof userWithRoles>>;
let carol: Awaited<ReturnType<typeof userWithRoles>>;
let editor: Awaited<ReturnType<typeof userWithRoles>>;
let botId: string;

interface Change {
  resource: { name: string };
  change: string;
  gained: { logins: string[] };
  lost: { logins: string[] };
}
interface Previewed {
  kind: string;
  name: string;
  changes: Change[];
}

before(async () => {
  gh = await startTestServer();
  assert.equal((await admin('POST', '/v1/roles', DEV)).status, 201);
  assert.equal(
    (
      await admin('POST', '/v1/roles', {
        name: 'pv-other',
        allow: { rules: TICKETS, resources: [{ kinds: ['server'] }], logins: ['ops'] },
      })
    ).status,
    201,
  );
  // A role editor who may read agents but not users, and sees only dev servers.
  const editorRole = await admin('POST', '/v1/roles', {
    name: 'pv-editor',
    allow: {
      rules: [
        { resources: ['roles'], verbs: ['read', 'update'] },
        { resources: ['agents'], verbs: ['read', 'list'] },
        { resources: ['resources'], verbs: ['read', 'list'] },
      ],
      resources: [{ kinds: ['server'], labels: { env: 'dev' } }],
    },
  });
  assert.equal(editorRole.status, 201, editorRole.text);
  for (const env of ['dev', 'prod']) {
    const r = await admin('POST', '/v1/resources', {
      kind: 'server',
      name: `pv-${env}`,
      address: '127.0.0.1:22',
      labels: { env },
    });
    assert.equal(r.status, 201, r.text);
  }
  alice = await userWithRoles(gh, 'pv-alice', ['pv-ssh']);
  carol = await userWithRoles(gh, 'pv-carol', ['pv-other']);
  editor = await userWithRoles(gh, 'pv-editor-user', ['pv-editor']);
  const bot = await admin('POST', '/v1/agents', { name: 'pv-bot', owner: alice.id, roles: ['pv-ssh'] });
  assert.equal(bot.status, 201, bot.text);
  botId = bot.json.id;
});
after(() => gh?.stop());

const preview = async (token: string, body: unknown) => {
  const res = await as(token, 'POST', '/v1/roles/pv-ssh/preview', body);
  assert.equal(res.status, 200, res.text);
  return res.json as { principals: Previewed[]; principals_checked: number; truncated: boolean };
};
const changesOf = (p: { principals: Previewed[] }, name: string) =>
  Object.fromEntries(
    (p.principals.find((x) => x.name === name)?.changes ?? []).map((c) => [
      c.resource.name,
      { change: c.change, gained: c.gained.logins, lost: c.lost.logins },
    ]),
  );

describe('role preview', () => {
  test('a login change: the holders keep the server, gain one login and lose another', async () => {
    const p = await preview(gh.adminToken, { ...DEV, allow: { ...DEV.allow, logins: ['deploy'] } });
    assert.deepEqual(changesOf(p, 'pv-alice'), {
      'pv-dev': { change: 'changes', gained: ['deploy'], lost: ['ubuntu'] },
    });
    assert.deepEqual(changesOf(p, 'pv-bot'), { 'pv-dev': { change: 'changes', gained: ['deploy'], lost: ['ubuntu'] } });
    assert.ok(!p.principals.some((x) => x.name === 'pv-carol'), 'carol does not hold the role');
    assert.equal(p.truncated, false);
    // The same role as stored changes nothing: the control that the diff is not always non-empty.
    assert.deepEqual((await preview(gh.adminToken, DEV)).principals, []);
  });

  test('the preview says what saving then does, at the access API and at the SSH door; it saves nothing', async () => {
    const p = await preview(gh.adminToken, TO_PROD);
    const expected = {
      'pv-dev': { change: 'loses', gained: [], lost: ['ubuntu'] },
      'pv-prod': { change: 'gains', gained: ['deploy', 'ubuntu'], lost: [] },
    };
    assert.deepEqual(changesOf(p, 'pv-alice'), expected);
    assert.deepEqual(changesOf(p, 'pv-bot'), expected);
    // Nothing was saved: the role and alice's access are as they were, and the door agrees.
    assert.deepEqual((await admin('GET', '/v1/roles/pv-ssh')).json.allow.logins, ['ubuntu']);
    const ticket = (server: string, login: string) => as(alice.token, 'POST', '/v1/sessions', { server, login });
    assert.equal((await ticket('pv-dev', 'ubuntu')).status, 201);
    assert.notEqual((await ticket('pv-prod', 'deploy')).status, 201);

    // Saved, the access API and the door show exactly what the preview said.
    assert.equal((await admin('PUT', '/v1/roles/pv-ssh', TO_PROD)).status, 200);
    const access = await as(alice.token, 'GET', '/v1/users/me/access');
    assert.deepEqual(
      access.json.resources.map((r: { name: string; logins: string[] }) => [r.name, r.logins]),
      [['pv-prod', ['deploy', 'ubuntu']]],
    );
    assert.equal((await ticket('pv-prod', 'deploy')).status, 201);
    assert.notEqual((await ticket('pv-dev', 'ubuntu')).status, 201);
    // And previewing the old role now is the reverse.
    const back = await preview(gh.adminToken, DEV);
    assert.deepEqual(changesOf(back, 'pv-alice'), {
      'pv-dev': { change: 'gains', gained: ['ubuntu'], lost: [] },
      'pv-prod': { change: 'loses', gained: [], lost: ['deploy', 'ubuntu'] },
    });
    assert.equal((await admin('PUT', '/v1/roles/pv-ssh', DEV)).status, 200);
  });

  test('a caller sees only what it may see: agents without users, dev servers without prod', async () => {
    const p = await preview(editor.token, TO_PROD);
    assert.ok(!p.principals.some((x) => x.kind === 'user'), 'no users:read, no users');
    assert.deepEqual(changesOf(p, 'pv-bot'), { 'pv-dev': { change: 'loses', gained: [], lost: ['ubuntu'] } });
    assert.equal(p.principals_checked, 1);
    // The admin, the positive control, sees both principals and both servers.
    const all = await preview(gh.adminToken, TO_PROD);
    assert.equal(all.principals_checked, 2);
    assert.deepEqual(Object.keys(changesOf(all, 'pv-bot')).sort(), ['pv-dev', 'pv-prod']);
  });

  test('refusals: no roles:update is 403, a bad body 400, an unknown role 404', async () => {
    const res = await as(carol.token, 'POST', '/v1/roles/pv-ssh/preview', TO_PROD);
    assert.equal(res.status, 403);
    assert.equal((await admin('POST', '/v1/roles/pv-ssh/preview', { name: 'pv-ssh' })).status, 400);
    assert.equal((await admin('POST', '/v1/roles/no-such-role/preview', TO_PROD)).status, 404);
    assert.equal((await admin('GET', `/v1/agents/${botId}`)).status, 200);
  });
});
