// `gatehouse agents credentials issue|ls|revoke` as an agent's operator runs them against a real
// Gatehouse: the issued token works as the agent (whoami), is printed once and never listed, and is
// refused once revoked; a user who may not issue is told in one line.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type CliHome, cliHome } from './helpers/cli.js';
import { ADMIN_KEY, api, requestsTo, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';

let server: TestServer;
const h: CliHome = cliHome();
const { admin } = requestsTo(() => server);
const whoami = (token: string) => api(server.url, 'GET', '/v1/auth/whoami', { token });

before(async () => {
  server = await startTestServer();
  assert.equal((await admin('POST', '/v1/agents', { name: 'cli-bot', roles: ['auditor'] })).status, 201);
  const login = await h.run(['login', '--proxy', server.webUrl], { env: { GATEHOUSE_API_KEY: ADMIN_KEY } });
  assert.equal(login.code, 0, login.stderr);
});
after(async () => {
  h.remove();
  await server?.stop();
});

test('issue prints a credential once that works as the agent; ls never shows it; revoke ends it', async () => {
  const issued = await h.run(['agents', 'credentials', 'issue', 'cli-bot', '--ttl', '300', '--format', 'json']);
  assert.equal(issued.code, 0, issued.stderr);
  const c = JSON.parse(issued.stdout) as { id: string; access_token: string; roles: string[]; expires_in: number };
  assert.match(c.id, /^cred_/);
  assert.deepEqual(c.roles, ['auditor']);
  assert.ok(c.expires_in <= 300 && c.expires_in > 250, String(c.expires_in));
  const me = await whoami(c.access_token);
  assert.equal(me.status, 200, me.text);
  assert.equal(me.json.name, 'cli-bot');

  const table = await h.run(['agents', 'credentials', 'issue', 'cli-bot']);
  assert.equal(table.code, 0, table.stderr);
  assert.match(table.stdout, /Secret \(shown this once\) +gha_\S+/);

  const listed = await h.run(['agents', 'credentials', 'ls', 'cli-bot', '--format', 'json']);
  assert.equal(listed.code, 0, listed.stderr);
  const rows = JSON.parse(listed.stdout) as Array<{ id: string }>;
  assert.equal(rows.length, 2);
  assert.ok(rows.some((r) => r.id === c.id));
  assert.ok(!listed.stdout.includes(c.access_token) && !listed.stdout.includes('gha_'), 'no secret listed');

  const revoked = await h.run(['agents', 'credentials', 'revoke', 'cli-bot', c.id]);
  assert.equal(revoked.code, 0, revoked.stderr);
  assert.equal((await whoami(c.access_token)).status, 401, 'the revoked credential’s token is refused');
});

test('refusals: one line and exit 1 from the server; exit 2 for bad usage', async () => {
  const auditor = await userWithRoles(server, 'cli-agents-auditor', ['auditor']);
  const other = cliHome();
  try {
    const login = await other.run(['login', '--proxy', server.webUrl], { env: { GATEHOUSE_API_KEY: auditor.apiKey } });
    assert.equal(login.code, 0, login.stderr);
    const refused = await other.run(['agents', 'credentials', 'issue', 'cli-bot']);
    assert.equal(refused.code, 1);
    assert.equal(refused.stdout, '');
    assert.match(refused.stderr, /^gatehouse: forbidden: .*\n$/);
  } finally {
    other.remove();
  }
  const unknown = await h.run(['agents', 'credentials', 'ls', 'no-such-bot']);
  assert.equal(unknown.code, 1);
  assert.equal(unknown.stderr, 'gatehouse: no agent named no-such-bot that you may see (gatehouse agents ls)\n');
  assert.equal((await h.run(['agents', 'credentials', 'issue', 'cli-bot', '--type', 'jwt'])).code, 2);
  assert.equal((await h.run(['agents', 'credentials', 'issue', 'cli-bot', '--ttl', '5'])).code, 2);
});
