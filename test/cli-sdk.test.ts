// The SDK (gatehouse/sdk) against a real Gatehouse: sign-in with an API key, lists as async iterators
// across pages, refusals as GatehouseProblem, refresh before expiry and once after a 401, and the
// browser session mode the console uses (cookies and the CSRF header of the web origin).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { renderApiTypes } from '../scripts/api-types.mjs';
import { ACCESS_COOKIE, REFRESH_COOKIE } from '../src/api/console/session-cookie.js';
import { createGatehouse, GatehouseProblem, type Tokens } from '../src/sdk/index.js';
import { ADMIN_KEY, requestsTo, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';

let server: TestServer;
const { admin } = requestsTo(() => server);

before(async () => {
  server = await startTestServer();
  for (const name of ['sdk-a', 'sdk-b', 'sdk-c']) {
    const r = await admin('POST', '/v1/resources', {
      kind: 'server',
      name,
      address: '10.0.0.1:22',
      labels: { t: 'sdk' },
    });
    assert.equal(r.status, 201, r.text);
  }
});
after(() => server.stop());

test('src/sdk/schema.d.ts is what docs/openapi.json generates (npm test, npm run build and npm install write it)', async () => {
  assert.equal(readFileSync(new URL('../src/sdk/schema.d.ts', import.meta.url), 'utf8'), await renderApiTypes());
});

test('an API key signs in; a list is every item across pages; whoami names the caller', async () => {
  const saved: Tokens[] = [];
  const gh = createGatehouse({ baseUrl: server.url, apiKey: ADMIN_KEY, onTokens: (t) => void saved.push(t) });
  const names: string[] = [];
  for await (const r of gh.list('/v1/resources', { query: { label: ['t=sdk'] }, pageSize: 2 })) names.push(r.name);
  assert.deepEqual(names.sort(), ['sdk-a', 'sdk-b', 'sdk-c']);
  assert.equal(saved.length, 1, 'signed in once');
  const me = await gh.ok(gh.api.GET('/v1/auth/whoami'));
  assert.equal(me.name, 'admin');
  assert.ok(me.roles.includes('admin'));
  assert.ok(me.login, 'names its login');
});

test('a refusal is a GatehouseProblem with code, detail and request_id', async () => {
  const gh = createGatehouse({ baseUrl: server.url, apiKey: ADMIN_KEY });
  const error = await gh.ok(gh.api.GET('/v1/agents/{id}', { params: { path: { id: 'agent_nothere' } } })).then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(error instanceof GatehouseProblem);
  assert.equal(error.status, 404);
  assert.equal(error.code, 'not_found');
  assert.match(error.detail, /agent_nothere/);
  assert.match(error.request_id ?? '', /.+/);
  // Positive control: the same call for an agent that exists answers it.
  const made = await gh.ok(gh.api.POST('/v1/agents', { body: { name: 'sdk-bot' } }));
  const got = await gh.ok(gh.api.GET('/v1/agents/{id}', { params: { path: { id: made.id } } }));
  assert.equal(got.name, 'sdk-bot');
});

test('the access token is refreshed before it expires, and once after a 401; signOut ends the login', async () => {
  const user = await userWithRoles(server, 'sdk-alice', ['auditor']);
  const clock = { offset: 0 };
  const saved: Tokens[] = [];
  const gh = createGatehouse({
    baseUrl: server.url,
    tokens: { access_token: user.token, refresh_token: user.refresh, expires_at: Date.now() + 3600_000 },
    onTokens: (t) => void saved.push(t),
    clock: () => Date.now() + clock.offset,
  });
  await gh.ok(gh.api.GET('/v1/auth/whoami'));
  assert.equal(saved.length, 0, 'a fresh token is used as it is');
  clock.offset = 3590_000; // ten seconds before expiry, by the client's clock: refreshed first
  assert.equal((await gh.ok(gh.api.GET('/v1/auth/whoami'))).name, 'sdk-alice');
  assert.equal(saved.length, 1);
  assert.notEqual(saved[0]?.access_token, user.token);
  // The server's clock runs an hour ahead: the token is expired there, the client learns it by the 401.
  clock.offset = 0;
  server.clockOffset.ms = 3601_000;
  try {
    assert.equal((await gh.ok(gh.api.GET('/v1/auth/whoami'))).name, 'sdk-alice');
    assert.equal(saved.length, 2, 'refreshed once, on the 401');
  } finally {
    server.clockOffset.ms = 0;
  }
  const held = gh.tokens()?.access_token as string;
  assert.ok((await gh.signOut()).revoked >= 2);
  const after = createGatehouse({
    baseUrl: server.url,
    tokens: { access_token: held, expires_at: Date.now() + 60_000 },
  });
  const refused = await after.ok(after.api.GET('/v1/auth/whoami')).catch((e: GatehouseProblem) => e);
  assert.ok(refused instanceof GatehouseProblem);
  assert.equal(refused.code, 'token_revoked');
});

test('the agent example of docs/sdk.md: an agent signs in with its credential and lists what it may reach', async () => {
  const agent = await admin('POST', '/v1/agents', { name: 'sdk-reader', roles: ['access'] });
  assert.equal(agent.status, 201, agent.text);
  const credential = await admin('POST', `/v1/agents/${agent.json.id}/credentials`, { type: 'api_key', ttl: 900 });
  assert.equal(credential.status, 201, credential.text);
  const gh = createGatehouse({ baseUrl: server.webUrl, apiKey: credential.json.api_key });
  const reachable: string[] = [];
  for await (const r of gh.list('/v1/resources', { query: { kind: 'server' } })) reachable.push(r.name);
  assert.ok(
    ['sdk-a', 'sdk-b', 'sdk-c'].every((n) => reachable.includes(n)),
    reachable.join(),
  );
  assert.equal((await gh.ok(gh.api.GET('/v1/auth/whoami'))).kind, 'agent');
  // Its roles allow no user management: refused, as a problem.
  const refused = await gh.ok(gh.api.GET('/v1/users')).catch((e: GatehouseProblem) => e);
  assert.ok(refused instanceof GatehouseProblem);
  assert.equal(refused.code, 'forbidden');
});

/**
 * A browser of the web origin, as far as the session needs one: it keeps the Set-Cookie answers (by
 * name and path, dropped at Max-Age=0) and sends them back; every request is recorded.
 */
function browserJar() {
  const cookies = new Map<string, { value: string; path: string }>();
  const sent: Request[] = [];
  const jarFetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    sent.push(request.clone());
    const path = new URL(request.url).pathname;
    const pairs = [...cookies].filter(([, c]) => path.startsWith(c.path)).map(([n, c]) => `${n}=${c.value}`);
    if (pairs.length) request.headers.set('cookie', pairs.join('; '));
    const response = await fetch(request);
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attrs] = line.split(/;\s*/);
      const [name = '', value = ''] = pair.split('=');
      const at = (k: string) => attrs.find((a) => a.toLowerCase().startsWith(`${k}=`))?.split('=')[1];
      if (at('max-age') === '0') cookies.delete(name);
      else cookies.set(name, { value, path: at('path') ?? '/' });
    }
    return response;
  };
  return { cookies, sent, fetch: jarFetch as typeof fetch };
}

test('browser session mode (the console): cookies and the CSRF header, no bearer; a 401 refreshes once; signed out is told', async () => {
  const user = await userWithRoles(server, 'sdk-browser', ['auditor']);
  const jar = browserJar();
  const csrf = { 'x-gatehouse-csrf': '1' };
  const signedIn = await jar.fetch(`${server.webUrl}/webapi/session`, {
    method: 'POST',
    headers: { ...csrf, 'content-type': 'application/json' },
    body: JSON.stringify({ api_key: user.apiKey }),
  });
  assert.equal(signedIn.status, 200, await signedIn.text());
  assert.ok(jar.cookies.has(ACCESS_COOKIE) && jar.cookies.has(REFRESH_COOKIE));
  let signedOut = 0;
  const gh = createGatehouse({
    baseUrl: server.webUrl,
    fetch: jar.fetch,
    session: { headers: csrf, refreshPath: '/webapi/session/refresh', onSignedOut: () => void signedOut++ },
  });
  jar.sent.length = 0;
  assert.equal((await gh.ok(gh.api.GET('/v1/auth/whoami'))).name, 'sdk-browser');
  const problem = await gh
    .ok(gh.api.GET('/v1/agents/{id}', { params: { path: { id: 'agent_nothere' } } }))
    .catch((e: unknown) => e);
  assert.ok(problem instanceof GatehouseProblem && problem.code === 'forbidden' && problem.request_id, String(problem));
  assert.ok(jar.sent.length >= 2);
  for (const r of jar.sent) {
    assert.equal(r.headers.get('x-gatehouse-csrf'), '1', `${r.url} carries the CSRF header`);
    assert.equal(r.headers.get('authorization'), null, `${r.url} carries no bearer token`);
  }
  // Control: the same cookie without the header is refused, so the header the SDK adds is what opens it.
  const bare = await jar.fetch(`${server.webUrl}/v1/auth/whoami`);
  assert.equal(bare.status, 403, await bare.text());

  // The access cookie's Max-Age lapsed (the browser dropped it): three parallel calls, one refresh.
  jar.cookies.delete(ACCESS_COOKIE);
  jar.sent.length = 0;
  const names = await Promise.all([1, 2, 3].map(() => gh.ok(gh.api.GET('/v1/auth/whoami')).then((m) => m.name)));
  assert.deepEqual(names, ['sdk-browser', 'sdk-browser', 'sdk-browser']);
  assert.equal(jar.sent.filter((r) => r.url.endsWith('/webapi/session/refresh')).length, 1, 'refreshed once');
  assert.ok(jar.cookies.has(ACCESS_COOKIE), 'the refresh set a new access cookie');
  assert.equal(signedOut, 0);
  assert.equal(await (await gh.fetch('/v1/auth/whoami')).json().then((m: { name: string }) => m.name), 'sdk-browser');

  // Signed out elsewhere (another tab): the next call is a 401 problem and the page is told once.
  const out = await jar.fetch(`${server.webUrl}/webapi/session`, { method: 'DELETE', headers: csrf });
  assert.equal(out.status, 204);
  const refused = await gh.ok(gh.api.GET('/v1/auth/whoami')).catch((e: unknown) => e);
  assert.ok(refused instanceof GatehouseProblem);
  assert.equal(refused.status, 401);
  assert.equal(signedOut, 1);
  assert.equal(await gh.renewLogin(), false);
});
