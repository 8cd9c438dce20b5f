// Agents at the app door: an agent reaches an app only with agent ∩ owner, and an agent acting for a
// user (RFC 8693 token exchange) with agent ∩ owner ∩ that user, decided by the one access checker.
// The app (a real HTTP server of the test) verifies the identity JWT: for a delegated agent the
// subject is the user and `act` names the agent; app.request and app.session.end name both.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { appRequest, startTestApp, type TestApp } from './helpers/app-upstream.js';
import { api, requestsTo, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';

const EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';

let gh: TestServer;
let app: TestApp;
let host: string;
const { admin, as } = requestsTo(() => gh);

before(async () => {
  app = await startTestApp();
  gh = await startTestServer();
  const port = new URL(gh.webUrl).port;
  const created = await admin('POST', '/v1/resources', {
    kind: 'app',
    name: 'grafana',
    uri: app.url,
    labels: { team: 'obs' },
  });
  assert.equal(created.status, 201, created.text);
  host = new URL(created.json.public_url).host;
  app.verifyWith(`${gh.webUrl}/.well-known/jwks.json`, created.json.public_url, `http://localhost:${port}`);
  for (const [name, team] of [
    ['obs-apps', 'obs'],
    ['other-apps', 'other'],
  ] as const) {
    const role = { name, allow: { resources: [{ kinds: ['app'], labels: { team } }] } };
    assert.equal((await admin('POST', '/v1/roles', role)).status, 201);
  }
});

after(async () => {
  await gh?.stop();
  await app?.close();
});

async function agentWithToken(name: string, roles: string[], owner?: string) {
  const created = await admin('POST', '/v1/agents', { name, roles, ...(owner ? { owner } : {}) });
  assert.equal(created.status, 201, created.text);
  const credential = await admin('POST', `/v1/agents/${created.json.id}/credentials`, {});
  assert.equal(credential.status, 201, credential.text);
  return { id: created.json.id as string, token: credential.json.access_token as string };
}

const get = (token: string, path: string) =>
  appRequest(gh.webUrl, host, path, { headers: { authorization: `Bearer ${token}` } });

/** The newest event of a type whose data.path (or, without a path, whose actor) matches. */
async function eventOf(type: string, match: (e: Ev) => boolean): Promise<Ev> {
  for (let i = 0; i < 40; i++) {
    const events = await admin('GET', `/v1/events?type=${type}&per_page=100`);
    assert.equal(events.status, 200, events.text);
    const found = (events.json.events as Ev[]).find(match);
    if (found) return found;
    await new Promise((r) => setTimeout(r, 50)); // answered requests' events go in batches
  }
  assert.fail(`no ${type} event found`);
}
interface Ev {
  success: boolean;
  actor: { kind: string; id: string; name: string };
  session_id?: string;
  data: Record<string, unknown> & { path?: string };
}

describe('an agent reaches an app with agent ∩ owner', () => {
  test("an agent whose roles select the app but whose owner's do not is refused; once the owner may, it gets in", async () => {
    // An owner must hold an agent's roles when it is made; losing them later narrows the agent at once.
    const carol = await userWithRoles(gh, 'carol', ['obs-apps']);
    const bot = await agentWithToken('carol-bot', ['obs-apps'], carol.id);
    assert.equal((await admin('PATCH', `/v1/users/${carol.id}`, { roles: ['other-apps'] })).status, 200);
    const before = app.seen.length;
    const refused = await get(bot.token, '/owner-denied');
    assert.equal(refused.status, 404, refused.text);
    assert.match(refused.text, /No app is served at grafana\.localhost/);
    assert.equal(app.seen.length, before, 'the app saw nothing of the refused request');
    const event = await eventOf('app.request', (e) => e.data.path === '/owner-denied');
    assert.equal(event.success, false);
    assert.equal(event.actor.id, bot.id);

    assert.equal((await admin('PATCH', `/v1/users/${carol.id}`, { roles: ['obs-apps'] })).status, 200);
    const allowed = await get(bot.token, '/owner-allowed');
    assert.equal(allowed.status, 200, allowed.text);
    const seen = app.seen.at(-1);
    assert.equal(seen?.url, '/owner-allowed');
    assert.equal(seen?.jwtError, undefined);
    assert.equal(seen?.claims?.sub, bot.id);
    assert.equal(seen?.claims?.name, 'carol-bot');
    assert.equal(seen?.claims?.kind, 'agent');
    assert.equal(seen?.claims?.act, undefined, 'an agent acting for nobody has no delegation chain');
  });

  test('the other way round too: an owner who may, an agent whose own roles do not select the app', async () => {
    const dana = await userWithRoles(gh, 'dana', ['obs-apps', 'other-apps']);
    const narrow = await agentWithToken('dana-bot', ['other-apps'], dana.id);
    assert.equal((await get(narrow.token, '/agent-denied')).status, 404);
    const wide = await agentWithToken('dana-bot2', ['obs-apps'], dana.id);
    assert.equal(
      (await get(wide.token, '/agent-allowed')).status,
      200,
      'the control: the same owner, a role that selects it',
    );
  });
});

describe('an agent acting for a user reaches an app with agent ∩ owner ∩ user', () => {
  test('refused while the user may not use the app; then the JWT names the user and act the agent, and the audit both', async () => {
    const erin = await userWithRoles(gh, 'erin', ['other-apps'], { team: ['blue'] });
    const assistant = await agentWithToken('assistant', ['obs-apps']);
    const consent = await as(erin.token, 'POST', `/v1/agents/${assistant.id}/delegations`, {});
    assert.equal(consent.status, 201, consent.text);
    const exchange = async () => {
      const r = await api(gh.url, 'POST', '/v1/auth/token', {
        body: { grant_type: EXCHANGE, subject_token: erin.token, actor_token: assistant.token },
      });
      assert.equal(r.status, 200, r.text);
      return r.json.access_token as string;
    };

    const before = app.seen.length;
    const refused = await get(await exchange(), '/delegated-denied');
    assert.equal(refused.status, 404, refused.text);
    assert.equal(app.seen.length, before, 'the app saw nothing');
    const denied = await eventOf('app.request', (e) => e.data.path === '/delegated-denied');
    assert.equal(denied.success, false);
    assert.equal(denied.actor.id, assistant.id);
    assert.deepEqual(denied.data.on_behalf_of, { kind: 'user', id: erin.id, name: 'erin' });

    // The control: the agent alone and its owner could reach it all along; the user now may too.
    assert.equal((await get(assistant.token, '/agent-alone')).status, 200);
    assert.equal((await admin('PATCH', `/v1/users/${erin.id}`, { roles: ['obs-apps'] })).status, 200);
    const token = await exchange();
    const ok = await get(token, '/delegated-allowed?q=secret');
    assert.equal(ok.status, 200, ok.text);
    const seen = app.seen.at(-1);
    assert.equal(seen?.url, '/delegated-allowed?q=secret');
    assert.equal(seen?.jwtError, undefined);
    assert.equal(seen?.claims?.sub, erin.id, 'the subject is the user the agent acts for');
    assert.equal(seen?.claims?.name, 'erin');
    assert.equal(seen?.claims?.kind, 'user');
    assert.deepEqual(seen?.claims?.traits, { team: ['blue'] });
    assert.deepEqual(seen?.claims?.act, { sub: assistant.id, name: 'assistant' }, 'act: the agent (RFC 8693)');
    assert.equal(seen?.headers.authorization, undefined, 'no Gatehouse token reaches the app');

    const answered = await eventOf('app.request', (e) => e.data.path === '/delegated-allowed?q');
    assert.equal(answered.success, true);
    assert.equal(answered.actor.id, assistant.id);
    assert.deepEqual(answered.data.on_behalf_of, { kind: 'user', id: erin.id, name: 'erin' });
    assert.equal(answered.data.status, 200);
    assert.equal(answered.data.how, 'bearer');
    assert.equal(typeof answered.data.duration_ms, 'number');
    assert.equal(answered.data.bytes_in, 0);
    assert.ok((answered.data.bytes_out as number) > 0, 'the bytes the app answered');

    // Ending the session records app.session.end with its bytes and duration, naming both.
    const sessionId = answered.session_id as string;
    assert.ok(sessionId, 'the request belongs to an app session');
    const listed = await admin('GET', `/v1/sessions/${sessionId}`);
    assert.equal(listed.status, 200, listed.text);
    assert.equal(listed.json.type, 'app');
    assert.equal((await admin('DELETE', `/v1/sessions/${sessionId}`)).status, 200);
    const end = await eventOf('app.session.end', (e) => e.session_id === sessionId);
    assert.equal(end.actor.id, assistant.id);
    assert.deepEqual(end.data.on_behalf_of, { kind: 'user', id: erin.id, name: 'erin' });
    assert.ok((end.data.bytes_out as number) >= (answered.data.bytes_out as number));
    assert.equal(typeof end.data.duration_ms, 'number');
    assert.doesNotMatch(JSON.stringify(end), /gha_|secret/);
  });
});
