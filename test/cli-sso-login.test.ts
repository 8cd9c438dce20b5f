// `gatehouse login --sso <connector>` as a person runs it, against a real Gatehouse and a real OpenID
// Provider on loopback (oidc-provider): the CLI prints the sign-in URL, the "browser" (fetch with a
// cookie jar, filling the provider's forms) signs in and is sent to the CLI's 127.0.0.1 listener, and
// the CLI ends with a profile for the SSO user. A callback with another state is refused by the
// listener; the sign-in URL with its redirect pointed off loopback is refused by Gatehouse.
import assert from 'node:assert/strict';
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type CliHome, type CliResult, cliHome } from './helpers/cli.js';
import { requestsTo, startTestServer, type TestServer } from './helpers/gatehouse.js';
import {
  CookieJar,
  hop,
  providerFields,
  providerForGatehouse,
  signInThrough,
  type TestProvider,
} from './helpers/oidc-provider.js';

let server: TestServer;
let provider: TestProvider;
const homes: CliHome[] = [];
const { admin } = requestsTo(() => server);

before(async () => {
  server = await startTestServer();
  await admin('POST', '/v1/roles', {
    name: 'team-blue',
    allow: { rules: [{ resources: ['events'], verbs: ['list'] }] },
  });
  provider = await providerForGatehouse(server.gatehouse.webUrl, { alice: { groups: ['team-blue'] } });
  const created = await admin('POST', '/v1/auth/connectors', {
    ...providerFields(provider),
    name: 'test-idp',
    display_name: 'Test IdP',
    scopes: ['openid', 'profile', 'groups'],
    claims_to_roles: [{ claim: 'groups', value: 'team-*', roles: ['{{value}}'] }],
  });
  assert.equal(created.status, 201, created.text);
});
after(async () => {
  for (const h of homes) h.remove();
  await provider?.stop();
  await server?.stop();
});

/** Starts `gatehouse login --sso` and answers the URL it prints, with the run's end to await. */
async function startSsoLogin(h: CliHome, extra: string[] = ['--no-browser'], env: Record<string, string> = {}) {
  const child = h.spawn(['login', '--proxy', server.webUrl, '--sso', 'test-idp', ...extra], { env });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d) => {
    stdout += d;
  });
  const printed = new Promise<URL>((resolve, reject) => {
    child.stderr?.on('data', (d) => {
      stderr += d;
      const m = /^ {2}(http:\/\/\S+\/webapi\/sso\/test-idp\/login\?\S+)$/m.exec(stderr);
      if (m && /Waiting for the sign-in/.test(stderr)) resolve(new URL(m[1] as string));
    });
    child.once('close', () => reject(new Error(`the CLI ended before printing a URL: ${stderr}`)));
  });
  const done = new Promise<CliResult>((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
  return { url: await printed, done, child };
}

test('login --sso: the browser signs in at the provider, the CLI receives the code on 127.0.0.1 and keeps a profile', async () => {
  const h = cliHome();
  homes.push(h);
  const { url, done } = await startSsoLogin(h);
  const redirect = new URL(url.searchParams.get('redirect_uri') as string);
  assert.equal(redirect.hostname, '127.0.0.1');
  assert.equal(redirect.pathname, '/callback');
  assert.equal(url.searchParams.get('code_challenge_method'), 'S256');
  assert.match(url.searchParams.get('code_challenge') as string, /^[A-Za-z0-9_-]{43}$/);

  // Another page on this machine slipping in a code of its own: refused, and the CLI keeps waiting.
  const forged = await fetch(new URL('/callback?code=attacker-code-0123456789abc&state=not-yours', redirect));
  assert.equal(forged.status, 400);
  assert.match(await forged.text(), /not started by this gatehouse login/);

  // The same URL with its redirect moved off loopback: Gatehouse refuses it (no open redirect).
  const moved = new URL(url);
  moved.searchParams.set('redirect_uri', 'http://evil.example/callback');
  const refused = await hop(new CookieJar(), moved);
  const refusal =
    refused.status === 302 ? await hop(new CookieJar(), new URL(refused.headers.get('location') as string)) : refused;
  assert.equal(refusal.status, 400);
  assert.match(refusal.text, /127\.0\.0\.1/);

  // The browser: through the provider's forms, back to Gatehouse, then to the CLI's listener.
  const { last } = await signInThrough(new CookieJar(), url, 'alice');
  assert.equal(last.url.host, redirect.host, 'the browser ended at the CLI listener');
  assert.equal(last.status, 200);
  assert.match(last.text, /Signed in to Gatehouse/);

  const result = await done;
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /As +user alice/);
  assert.match(result.stdout, /Roles +team-blue/);
  const file = join(h.env.GATEHOUSE_HOME as string, 'default.json');
  assert.equal(statSync(file).mode & 0o777, 0o600);
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  assert.equal(profile.principal.name, 'alice');
  assert.ok(profile.tokens.refresh_token, 'a refreshable login');

  const status = await h.run(['status', '--format', 'json']);
  assert.equal(status.code, 0, status.stderr);
  assert.equal(JSON.parse(status.stdout).name, 'alice');
  assert.deepEqual(JSON.parse(status.stdout).roles, ['team-blue']);
  const logins = (await admin('GET', '/v1/events?type=auth.sso.login')).json.events;
  assert.ok(logins.some((e: { actor: { name: string } }) => e.actor.name === 'alice'));
});

test('login --sso opens the browser with $BROWSER, and still prints the URL', async () => {
  const h = cliHome();
  homes.push(h);
  const opener = join(h.dir, 'browser.sh');
  const seen = join(h.dir, 'opened');
  // Written aside, then renamed: the test polls for the file, and a plain `> seen` creates it empty
  // before printf writes, so a poll landing between the two read '' (CI saw exactly that).
  writeFileSync(opener, `#!/bin/sh\nprintf '%s' "$1" > '${seen}.part' && mv '${seen}.part' '${seen}'\n`);
  chmodSync(opener, 0o700);
  const { url, done, child } = await startSsoLogin(h, [], { BROWSER: opener });
  try {
    for (let i = 0; i < 50 && !statSync(seen, { throwIfNoEntry: false }); i++)
      await new Promise((r) => setTimeout(r, 100));
    assert.equal(readFileSync(seen, 'utf8'), url.href);
  } finally {
    child.kill('SIGTERM');
  }
  await done;
});

test('login --sso and --api-key-file together is bad usage (exit 2)', async () => {
  const h = cliHome();
  homes.push(h);
  const r = await h.run(['login', '--proxy', server.webUrl, '--sso', 'test-idp', '--api-key-file', '/dev/null']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--sso and --api-key-file/);
});
