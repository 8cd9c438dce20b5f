// `gatehouse login`, `status` and `logout` as a person runs them, against a real Gatehouse: the
// profile on disk (0700 / 0600), the login refreshed by itself, one line when it is gone, and the
// tokens revoked on the server after logout.
import assert from 'node:assert/strict';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type CliHome, cliHome } from './helpers/cli.js';
import { api, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';

let server: TestServer;
let alice: Awaited<ReturnType<typeof userWithRoles>>;
const homes: CliHome[] = [];
const home = () => {
  const h = cliHome();
  homes.push(h);
  return h;
};

before(async () => {
  server = await startTestServer();
  alice = await userWithRoles(server, 'cli-alice', ['auditor']);
});
after(async () => {
  for (const h of homes) h.remove();
  await server.stop();
});

test('login with an API key file writes a private profile; status says who and until when; logout revokes', async () => {
  const h = home();
  const keyFile = join(h.dir, 'key');
  writeFileSync(keyFile, `${alice.apiKey}\n`, { mode: 0o600 });
  const login = await h.run(['login', '--proxy', server.webUrl, '--api-key-file', keyFile]);
  assert.equal(login.code, 0, login.stderr);
  assert.match(login.stdout, /Logged in to +http:\/\/127\.0\.0\.1:\d+/);
  assert.match(login.stdout, /As +user cli-alice/);

  const gh = h.env.GATEHOUSE_HOME as string;
  assert.equal(statSync(gh).mode & 0o777, 0o700);
  const file = join(gh, 'default.json');
  assert.equal(statSync(file).mode & 0o777, 0o600);
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  assert.equal(profile.principal.name, 'cli-alice');
  assert.ok(!readFileSync(file, 'utf8').includes(alice.apiKey), 'the API key itself is not kept');

  const status = await h.run(['status', '--format', 'json']);
  assert.equal(status.code, 0, status.stderr);
  const s = JSON.parse(status.stdout);
  assert.equal(s.name, 'cli-alice');
  assert.equal(s.kind, 'user');
  assert.deepEqual(s.roles, ['auditor']);
  assert.ok(Date.parse(s.access_expires_at) > Date.now());

  const table = await h.run(['status']);
  assert.match(table.stdout, /Logged in as +user cli-alice/);

  const out = await h.run(['logout']);
  assert.equal(out.code, 0, out.stderr);
  assert.match(out.stdout, /Logged out/);
  assert.throws(() => statSync(file), /ENOENT/);
  // The tokens the profile held no longer work on the server.
  const revoked = await api(server.url, 'GET', '/v1/auth/whoami', { token: profile.tokens.access_token });
  assert.equal(revoked.status, 401);
  assert.equal(revoked.json.code, 'token_revoked');
  const refresh = await api(server.url, 'POST', '/v1/auth/refresh', {
    body: { refresh_token: profile.tokens.refresh_token },
  });
  assert.equal(refresh.status, 401);

  const after = await h.run(['status']);
  assert.equal(after.code, 1);
  assert.equal(after.stderr, 'gatehouse: not logged in: run gatehouse login --proxy <url>\n');
});

test('bad usage exits 2; --format json is parseable', async () => {
  const h = home();
  const bad = await h.run(['login']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /^gatehouse: required option '--proxy <url>' not specified/);
  const fmt = await h.run(['status', '--format', 'xml']);
  assert.equal(fmt.code, 2);
  assert.match(fmt.stderr, /--format: one of table, json, yaml/);
  assert.equal((await h.run(['frobnicate'])).code, 2);
  const help = await h.run(['--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /login/);
});
