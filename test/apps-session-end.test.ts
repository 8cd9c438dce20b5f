// What a program sees at the app door when its session is ended, and how the door answers programs.
// HTTP has no connection to cut: ending a bearer token's app session (DELETE /v1/sessions/{id}, the
// console's End, max_session_ttl) must keep that sign-in out of the app, or a program would never
// notice. Another sign-in of the same person, and a new one, still get in (the controls).
// The door's own refusals answer a program in problem+json with the API's codes, a browser a page.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { appRequest, startTestApp, type TestApp } from './helpers/app-upstream.js';
import { api, requestsTo, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';

let gh: TestServer;
let app: TestApp;
let host: string;
const { admin } = requestsTo(() => gh);

before(async () => {
  app = await startTestApp();
  gh = await startTestServer();
  host = `tools.localhost:${new URL(gh.webUrl).port}`;
  const created = await admin('POST', '/v1/resources', { kind: 'app', name: 'tools', uri: app.url });
  assert.equal(created.status, 201, created.text);
  for (const role of [
    { name: 'tools', allow: { resources: [{ kinds: ['app'] }] } },
    { name: 'tools-briefly', allow: { resources: [{ kinds: ['app'] }] }, options: { max_session_ttl: '2s' } },
  ])
    assert.equal((await admin('POST', '/v1/roles', role)).status, 201);
});

after(async () => {
  await gh?.stop();
  await app?.close();
});

const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });
const login = async (apiKey: string) =>
  (await api(gh.url, 'POST', '/v1/auth/token', { body: { api_key: apiKey } })).json.access_token as string;

/** The live app session of this principal (there is one per sign-in and app). */
async function liveSessions(userId: string) {
  const listed = await admin('GET', '/v1/sessions?status=active');
  assert.equal(listed.status, 200, listed.text);
  return (listed.json.sessions as Array<{ id: string; kind: string; principal: { id: string } }>).filter(
    (s) => s.kind === 'app' && s.principal.id === userId,
  );
}

describe('ending a program’s app session', () => {
  test('an administrator’s End keeps that sign-in out; another and a new sign-in get in', async () => {
    const carol = await userWithRoles(gh, 'carol', ['tools']);
    assert.equal((await appRequest(gh.webUrl, host, '/', bearer(carol.token))).status, 200);
    const [first] = await liveSessions(carol.id);
    assert.ok(first, 'the bearer request opened an app session');
    const second = await login(carol.apiKey);
    assert.equal((await appRequest(gh.webUrl, host, '/', bearer(second))).status, 200);
    assert.equal((await liveSessions(carol.id)).length, 2, 'one session per sign-in');

    const ended = await admin('DELETE', `/v1/sessions/${first.id}`);
    assert.equal(ended.status, 200, ended.text);
    const refused = await appRequest(gh.webUrl, host, '/', bearer(carol.token));
    assert.equal(refused.status, 403, refused.text);
    assert.match(String(refused.headers['content-type']), /^application\/problem\+json/);
    const problem = JSON.parse(refused.text);
    assert.equal(problem.code, 'forbidden');
    assert.match(problem.detail, /session in tools was ended \(terminated by admin\); sign in again/);
    assert.equal((await appRequest(gh.webUrl, host, '/', bearer(carol.token))).status, 403, 'and it stays out');
    // The control: her other sign-in's session was not ended, and a new sign-in opens a new one.
    assert.equal((await appRequest(gh.webUrl, host, '/', bearer(second))).status, 200);
    assert.equal((await appRequest(gh.webUrl, host, '/', bearer(await login(carol.apiKey)))).status, 200);
  });

  test('max_session_ttl ends a program’s session for good: the same token does not open another', async () => {
    const dave = await userWithRoles(gh, 'dave', ['tools-briefly']);
    assert.equal((await appRequest(gh.webUrl, host, '/', bearer(dave.token))).status, 200);
    await new Promise((r) => setTimeout(r, 2600));
    const late = await appRequest(gh.webUrl, host, '/', bearer(dave.token));
    assert.equal(late.status, 403, late.text);
    assert.match(JSON.parse(late.text).detail, /max_session_ttl reached\); sign in again/);
    assert.equal((await appRequest(gh.webUrl, host, '/', bearer(await login(dave.apiKey)))).status, 200);
  });
});

describe('the door’s own answers', () => {
  test('a program gets problem+json with the API’s codes; a browser gets a page', async () => {
    const none = await appRequest(gh.webUrl, host, '/');
    assert.equal(none.status, 401);
    assert.match(String(none.headers['content-type']), /^application\/problem\+json/);
    assert.match(String(none.headers['www-authenticate']), /^Bearer realm="gatehouse"/);
    assert.equal(JSON.parse(none.text).code, 'unauthenticated');

    const bad = await appRequest(gh.webUrl, host, '/', bearer(`gha_${'x'.repeat(40)}`));
    assert.equal(bad.status, 401);
    assert.deepEqual(
      { code: JSON.parse(bad.text).code, status: JSON.parse(bad.text).status, type: JSON.parse(bad.text).type },
      { code: 'invalid_token', status: 401, type: 'urn:gatehouse:error:invalid_token' },
    );

    const port = new URL(gh.webUrl).port;
    const unknown = await appRequest(gh.webUrl, `nosuch.localhost:${port}`, '/');
    assert.equal(unknown.status, 404);
    assert.deepEqual(JSON.parse(unknown.text), {
      type: 'urn:gatehouse:error:not_found',
      title: 'Not found',
      status: 404,
      detail: `No app is served at nosuch.localhost:${port}.`,
      code: 'not_found',
    });

    const page = await appRequest(gh.webUrl, `nosuch.localhost:${port}`, '/', {
      headers: { 'sec-fetch-mode': 'navigate', accept: 'text/html' },
    });
    assert.equal(page.status, 404);
    assert.match(String(page.headers['content-type']), /^text\/html/);
    assert.match(page.text, /No app is served at nosuch\.localhost/);
  });
});
