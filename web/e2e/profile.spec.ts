// The profile page of a person who connects (no admin rights): what she can reach and why, her SSH
// key added there and then used by the stock ssh client through the proxy, her own API keys.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateClientKey, sshExec } from '../../test/helpers/ssh-client.js';
import { adminApi, env, expect, screenshot, signIn, sshToWeb1, test, userWithRoles } from './fixtures.js';

let alice: { id: string; key: string };
const dir = mkdtempSync(join(tmpdir(), 'gatehouse-e2e-profile-'));

test.beforeAll(async () => {
  const role = await adminApi('POST', '/v1/roles', {
    name: 'profile-dev',
    allow: {
      rules: [{ resources: ['resources'], verbs: ['list', 'read'] }],
      resources: [{ kinds: ['server'], labels: { env: 'dev' } }],
      logins: [env.sshLogin()],
    },
  });
  expect(role.status, role.text).toBe(201);
  alice = await userWithRoles('alice-profile', ['profile-dev']);
});
test.afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  // The browser specs share one Gatehouse: leave it as found.
  if (alice) await adminApi('DELETE', `/v1/users/${alice.id}`);
  await adminApi('DELETE', '/v1/roles/profile-dev');
});

const sshAsAlice = (identityFile: string) =>
  sshExec('echo connected as $(whoami)', { port: env.sshPort(), user: `${env.sshLogin()}@web-1`, identityFile });

test('alice adds her SSH key on her profile, then the stock ssh client reaches web-1 through the proxy', async ({
  page,
}) => {
  const key = await generateClientKey(dir);
  // Control: before the key is hers, the proxy refuses it.
  expect((await sshAsAlice(key.privatePath)).code).toBe(255);

  await signIn(page, alice.key);
  await page.getByRole('link', { name: 'alice-profile' }).click();
  await expect(page.getByRole('heading', { name: 'Your profile' })).toBeVisible();
  const reach = page.getByRole('table', { name: 'What you can reach' });
  await expect(reach.getByRole('row', { name: /web-1/ })).toContainText(`${env.sshLogin()}`);
  await expect(reach.getByRole('row', { name: /web-1/ })).toContainText('profile-dev');

  const form = page.getByRole('form', { name: 'Add an SSH key' });
  await form.getByLabel('Public key').fill('ssh-ed25519 not-a-key');
  await form.getByRole('button', { name: 'Add SSH key' }).click();
  await expect(form.getByLabel('Public key')).toHaveAttribute('aria-invalid', 'true');
  await form.getByLabel('Public key').fill(key.publicLine);
  await form.getByLabel('Key name').fill('laptop');
  await form.getByRole('button', { name: 'Add SSH key' }).click();
  const keys = page.getByRole('table', { name: 'SSH keys' });
  await expect(keys.getByRole('row', { name: /laptop/ })).toContainText('SHA256:');
  await screenshot(page, 'profile');

  const run = await sshAsAlice(key.privatePath);
  expect(run.stderr).toBe('');
  expect(run.stdout.trim()).toBe(`connected as ${env.sshLogin()}`);

  // Removed on the profile, the key no longer opens anything.
  await keys.getByRole('button', { name: 'Remove key laptop' }).click();
  await page.getByRole('button', { name: 'Remove it' }).click();
  await expect(page.getByText('No SSH keys yet')).toBeVisible();
  expect((await sshAsAlice(key.privatePath)).code).toBe(255);
});

test('alice creates an API key of her own (shown once, it signs in) and revokes it', async ({ page, browser }) => {
  await signIn(page, alice.key, '/profile');
  await page.getByRole('form', { name: 'Create an API key' }).getByLabel('Key name').fill('cli');
  await page.getByRole('button', { name: 'Create API key' }).click();
  const secret = (await page.getByTestId('secret').textContent()) ?? '';
  expect(secret).toMatch(/^gh[a-z]_/);
  const other = await browser.newPage();
  await signIn(other, secret);
  await expect(other.getByText('Signed in as alice-profile')).toBeVisible();
  await other.close();
  await page.getByRole('button', { name: 'I have copied it' }).click();
  await page.getByRole('button', { name: 'Delete key cli' }).click();
  await page.getByRole('button', { name: 'Delete it' }).click();
  await expect(page.getByRole('table', { name: 'API keys' }).getByText('cli')).toHaveCount(0);
});

test('alice sees her live ssh session on her profile (only hers) and ends it there', async ({ page }) => {
  // Her session through the proxy, with an access token of hers as the password; a session of the
  // admin's beside it is one she must not see.
  const token = await adminApi('POST', '/v1/auth/token', { api_key: alice.key });
  expect(token.status, token.text).toBe(200);
  // Ended only once its first output arrived: a session ended before the target's echo reached the
  // client has nothing on stdout (the run that found it had a row listed, and ended, within 2 s).
  let running: () => void = () => {};
  const started = new Promise<void>((resolve) => {
    running = resolve;
  });
  const hers = sshExec('echo started; sleep 40 # profile-alice', {
    port: env.sshPort(),
    user: `${env.sshLogin()}@web-1`,
    password: token.json.access_token,
    timeoutMs: 50_000,
    onStdout: (out) => {
      if (out.includes('started')) running();
    },
  });
  const admins = sshToWeb1('echo started; sleep 40 # profile-admin', 50_000);

  await signIn(page, alice.key, '/profile');
  const table = page.getByRole('table', { name: 'Your active sessions' });
  await expect(table.getByRole('row', { name: /profile-alice/ })).toContainText(`SSH: ${env.sshLogin()}@web-1`);
  await expect(table.getByRole('row', { name: /profile-admin/ })).toHaveCount(0);
  await expect(table.getByRole('row')).toHaveCount(2); // the header and hers
  await screenshot(page, 'profile-sessions');
  await started;

  await table
    .getByRole('row', { name: /profile-alice/ })
    .getByRole('button', { name: 'End' })
    .click();
  await page.getByRole('button', { name: 'End it' }).click();
  await expect(page.getByText('No session of yours is running.')).toBeVisible();
  const run = await hers;
  expect(run.stdout).toContain('started');
  expect(run.stderr).toMatch(/session terminated \(terminated by alice-profile\)/);

  // The admin's session went on: it ends now through the admin's own route (and the spec leaves none).
  const live = await adminApi('GET', '/v1/users/me/sessions?status=active');
  const adminsSession = live.json.sessions.find((s: { command?: string }) => s.command?.includes('profile-admin'));
  expect(adminsSession, 'the admin’s session is still live').toBeTruthy();
  expect((await adminApi('DELETE', `/v1/users/me/sessions/${adminsSession.id}`)).status).toBe(200);
  await admins;
});

test('alice sees her logins and her security keys on her profile, ends another login, then signs out everywhere', async ({
  page,
  browser,
}) => {
  // The earlier tests' logins of hers are ended first (through the API), so the page lists this test's.
  const earlier = await adminApi('POST', '/v1/auth/token', { api_key: alice.key });
  const cleared = await fetch(`${env.auth()}/v1/users/me/logins`, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${earlier.json.access_token}` },
  });
  expect(cleared.status).toBe(204);
  // A login of hers through the API (as the command line makes one): it works before, not after.
  const apiLogin = await adminApi('POST', '/v1/auth/token', { api_key: alice.key });
  const whoami = () =>
    fetch(`${env.auth()}/v1/auth/whoami`, { headers: { authorization: `Bearer ${apiLogin.json.access_token}` } });
  expect((await whoami()).status).toBe(200);

  const other = await browser.newPage();
  await signIn(other, alice.key, '/profile');
  await signIn(page, alice.key, '/profile');
  await expect(page.getByRole('heading', { name: 'Security keys' })).toBeVisible();
  const logins = page.getByRole('table', { name: 'Your logins' });
  await expect(logins.getByRole('row', { name: /console/ })).toHaveCount(2);
  await expect(logins.getByRole('row', { name: /API or command line/ })).toHaveCount(1);
  await expect(logins.getByRole('row', { name: /this one/ })).toHaveCount(1);
  await expect(logins.getByRole('row', { name: /this one/ })).toContainText('127.0.0.1');
  await screenshot(page, 'profile-logins');

  // End the other console login (not this one): that page is signed out at its next request.
  const otherRow = logins.getByRole('row', { name: /console/ }).filter({ hasNotText: 'this one' });
  await otherRow.getByRole('button', { name: 'End this login' }).click();
  await page.getByRole('button', { name: 'End it' }).click();
  await expect(logins.getByRole('row', { name: /console/ })).toHaveCount(1);
  await other.goto(`${env.web()}/profile`);
  await expect(other.getByLabel('API key or access token')).toBeVisible();
  await other.close();
  expect((await whoami()).status, 'her API login goes on').toBe(200);

  await page.getByRole('button', { name: 'Sign out everywhere' }).click();
  await page.getByRole('button', { name: 'Sign out of every login' }).click();
  await expect(page.getByLabel('API key or access token')).toBeVisible();
  expect((await whoami()).status, 'signing out everywhere ended the API login too').toBe(401);
  const revoked = await adminApi('GET', '/v1/audit/events?type=auth.token.revoked&per_page=20');
  expect(
    revoked.json.events.some(
      (e: { actor?: { name?: string }; data?: { scope?: string } }) =>
        e.actor?.name === 'alice-profile' && e.data?.scope === 'all',
    ),
  ).toBe(true);
});
