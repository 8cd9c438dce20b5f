// `gatehouse login` by GATEHOUSE_API_KEY and by the prompt, several profiles, a refused key; the login
// refreshed by itself after the access token expired, and one line once it cannot be renewed.
// (Split from cli-login.test.ts so that each file stays well within the runner's time bound.)
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type CliHome, cliHome } from './helpers/cli.js';
import { startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';

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

test('GATEHOUSE_API_KEY and the prompt log in too; a wrong key is refused in one line, exit 1', async () => {
  const byEnv = home();
  const r = await byEnv.run(['login', '--proxy', server.url], { env: { GATEHOUSE_API_KEY: alice.apiKey } });
  assert.equal(r.code, 0, r.stderr);
  const byPrompt = home();
  const p = await byPrompt.run(['--profile', 'second', 'login', '--proxy', server.url], { input: `${alice.apiKey}\n` });
  assert.equal(p.code, 0, p.stderr);
  assert.ok(!p.stdout.includes(alice.apiKey) && !p.stderr.includes(alice.apiKey), 'the key is never echoed');
  const second = await byPrompt.run(['status', '--profile', 'second', '--format', 'json']);
  assert.equal(JSON.parse(second.stdout).profile, 'second');
  assert.equal((await byPrompt.run(['status'])).code, 1, 'the default profile is another one');

  const wrong = await home().run(['login', '--proxy', server.url], {
    env: { GATEHOUSE_API_KEY: 'ghk_0000000000000000000000000000000000000000000' },
  });
  assert.equal(wrong.code, 1);
  assert.match(wrong.stderr, /^gatehouse: invalid_credentials: unknown API key \(request [^)]+\)\n$/);
});

test('the access token is refreshed by itself once it has expired; a login that cannot be renewed says so in one line', async () => {
  const h = home();
  assert.equal((await h.run(['login', '--proxy', server.url], { env: { GATEHOUSE_API_KEY: alice.apiKey } })).code, 0);
  const file = join(h.env.GATEHOUSE_HOME as string, 'default.json');
  const before = JSON.parse(readFileSync(file, 'utf8'));
  // The server's clock an hour and a bit ahead: the access token has expired, the refresh token not.
  server.clockOffset.ms = 3700_000;
  try {
    const r = await h.run(['status', '--format', 'json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).name, 'cli-alice');
    const now = JSON.parse(readFileSync(file, 'utf8'));
    assert.notEqual(now.tokens.access_token, before.tokens.access_token, 'a new pair was kept');
    assert.notEqual(now.tokens.refresh_token, before.tokens.refresh_token);
    // Past the refresh token's day as well: nothing to renew with.
    server.clockOffset.ms = 2 * 86_400_000;
    const gone = await h.run(['status']);
    assert.equal(gone.code, 1);
    assert.equal(gone.stderr, 'gatehouse: your login has expired or was ended: run gatehouse login\n');
  } finally {
    server.clockOffset.ms = 0;
  }
});
