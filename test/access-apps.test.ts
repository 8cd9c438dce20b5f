// The apps a principal reaches, as GET /v1/users/me/access (and a user's or an agent's) answers them:
// each with the public_url the app door serves it at (an MCP app with its mcp_url too), so the
// console's Launch opens exactly what the door lets her into; an app she may not reach is neither
// listed nor served to her (the door answers 404, as for no app), while whoever may reach it sees and opens it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { appRequest, startTestApp, type TestApp } from './helpers/app-upstream.js';
import { requestsTo, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';
import { mcpAppBody } from './helpers/mcp-upstream.js';

let gh: TestServer;
let app: TestApp;
const { admin, as } = requestsTo(() => gh);
let alice: Awaited<ReturnType<typeof userWithRoles>>;
let bob: Awaited<ReturnType<typeof userWithRoles>>;
let agent: { id: string; token: string };
/** Each app as /v1/resources answers it (its public_url and mcp_url are the reference). */
const registered = new Map<string, { id: string; public_url?: string; mcp_url?: string }>();

interface Listed {
  id: string;
  kind: string;
  name: string;
  protocol?: string;
  public_url?: string;
  mcp_url?: string;
}

before(async () => {
  app = await startTestApp();
  gh = await startTestServer();
  const bodies = [
    { kind: 'app', name: 'grafana', uri: app.url, labels: { team: 'obs' } },
    { kind: 'app', name: 'wiki', uri: app.url, labels: { team: 'other' } },
    { kind: 'app', name: 'ops_board', uri: app.url, labels: { team: 'obs' }, app: { public_addr: 'board.localhost' } },
    mcpAppBody('tools-mcp', 'http://127.0.0.1:9/mcp', 'obs', 'upstream-secret'),
  ];
  for (const body of bodies) {
    const created = await admin('POST', '/v1/resources', body);
    assert.equal(created.status, 201, created.text);
    registered.set(body.name, created.json);
  }
  for (const [name, team] of [
    ['obs-apps', 'obs'],
    ['other-apps', 'other'],
  ] as const) {
    const role = { name, allow: { resources: [{ kinds: ['app'], labels: { team } }] } };
    assert.equal((await admin('POST', '/v1/roles', role)).status, 201);
  }
  alice = await userWithRoles(gh, 'alice', ['obs-apps']);
  bob = await userWithRoles(gh, 'bob', ['other-apps']);
  const bot = await admin('POST', '/v1/agents', { name: 'alice-bot', owner: alice.id, roles: ['obs-apps'] });
  assert.equal(bot.status, 201, bot.text);
  const credential = await admin('POST', `/v1/agents/${bot.json.id}/credentials`, { ttl: 600 });
  agent = { id: bot.json.id, token: credential.json.access_token };
});

after(async () => {
  await gh?.stop();
  await app?.close();
});

async function appsOf(token: string, path: string): Promise<Listed[]> {
  const res = await as(token, 'GET', `${path}?kind=app`);
  assert.equal(res.status, 200, res.text);
  return res.json.resources;
}

/** A GET through the web listener at the host a listed public_url names, with a bearer token. */
function open(publicUrl: string, token: string) {
  // The app greets whom the identity assertion names once it verifies for this app's audience.
  app.verifyWith(`${gh.webUrl}/.well-known/jwks.json`, publicUrl, `http://localhost:${new URL(gh.webUrl).port}`);
  return appRequest(gh.webUrl, new URL(publicUrl).host, '/', { headers: { authorization: `Bearer ${token}` } });
}

describe('apps in effective access', () => {
  test('each reachable app carries the public_url /v1/resources answers (public_addr honoured); others are not listed', async () => {
    const mine = await appsOf(alice.token, '/v1/users/me/access');
    assert.deepEqual(
      mine.map((r) => r.name),
      ['grafana', 'ops_board', 'tools-mcp'],
    );
    for (const r of mine) assert.equal(r.public_url, registered.get(r.name)?.public_url, r.name);
    assert.equal(
      mine.find((r) => r.name === 'ops_board')?.public_url,
      `http://board.localhost:${new URL(gh.webUrl).port}/`,
    );
    // Bob's role reaches wiki only: the positive control that wiki is listed for whom may reach it.
    assert.deepEqual(
      (await appsOf(bob.token, '/v1/users/me/access')).map((r) => [r.name, r.public_url]),
      [['wiki', registered.get('wiki')?.public_url]],
    );
    assert.deepEqual(await appsOf(gh.adminToken, `/v1/users/${alice.id}/access`), mine, 'an admin reads the same');
  });

  test('an MCP app answers its protocol and mcp_url (as /v1/resources does); a web app has no mcp_url', async () => {
    const mine = await appsOf(alice.token, '/v1/users/me/access');
    const mcp = mine.find((r) => r.name === 'tools-mcp');
    assert.equal(mcp?.protocol, 'mcp');
    assert.equal(mcp?.mcp_url, registered.get('tools-mcp')?.mcp_url);
    assert.match(String(mcp?.mcp_url), /^http:\/\/tools-mcp\.localhost:\d+\/mcp$/);
    assert.equal(mine.find((r) => r.name === 'grafana')?.mcp_url, undefined);
  });

  test('the listed public_url is where the app door lets her in; the door refuses her (404) an app not listed', async () => {
    const grafana = (await appsOf(alice.token, '/v1/users/me/access')).find((r) => r.name === 'grafana');
    const landed = await open(String(grafana?.public_url), alice.token);
    assert.equal(landed.status, 200, landed.text);
    assert.match(landed.text, /Hello alice from the test app/);
    const board = (await appsOf(alice.token, '/v1/users/me/access')).find((r) => r.name === 'ops_board');
    assert.equal((await open(String(board?.public_url), alice.token)).status, 200);

    const wikiUrl = String(registered.get('wiki')?.public_url);
    const before = app.seen.length;
    assert.equal((await open(wikiUrl, alice.token)).status, 404);
    assert.equal(app.seen.length, before, 'the app saw nothing of a refused request');
    const bobs = await open(wikiUrl, bob.token);
    assert.equal(bobs.status, 200, 'the control: bob, whose role lists wiki, is let in');
    assert.match(bobs.text, /Hello bob from the test app/);
  });

  test('an agent’s access lists the apps of its roles within its owner’s, with the same URLs', async () => {
    const listed = await appsOf(agent.token, `/v1/agents/${agent.id}/access`);
    assert.deepEqual(
      listed.map((r) => [r.name, r.public_url]),
      ['grafana', 'ops_board', 'tools-mcp'].map((n) => [n, registered.get(n)?.public_url]),
    );
  });
});
