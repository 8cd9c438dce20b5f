// Security keys in a real browser: Chromium's virtual authenticator (DevTools protocol, WebAuthn
// domain) stands in for a hardware key or a platform passkey. The console is opened at
// http://localhost:<port> — the relying party's host (web_public_url's default); an IP address
// cannot be a WebAuthn relying-party id.
import type { Page } from '@playwright/test';
import { adminApi, env, expect, screenshot, test, userWithRoles, virtualAuthenticator } from './fixtures.js';

const web = () => env.web().replace('://127.0.0.1:', '://localhost:');

async function firstFactor(page: Page, key: string) {
  await page.goto(`${web()}/login`);
  await page.getByLabel('API key or access token').fill(key);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

async function role(name: string, options: Record<string, boolean>) {
  const res = await adminApi('POST', '/v1/roles', {
    name,
    allow: { rules: [{ resources: ['resources'], verbs: ['list', 'read'] }] },
    options,
  });
  expect(res.status, res.text).toBe(201);
}

const events = async (type: string, userId: string) =>
  (
    (await adminApi('GET', `/v1/events?type=${type}&per_page=100`)).json.events as Array<{
      actor: { id?: string };
      target?: { id?: string };
    }>
  ).filter((e) => e.actor.id === userId || e.target?.id === userId);

test('require_mfa: the first sign-in registers a key, the next ones ask for it, and nothing opens without it', async ({
  page,
  context,
}) => {
  await role('e2e-mfa', { require_mfa: true });
  const user = await userWithRoles('mfa-person', ['e2e-mfa']);
  await virtualAuthenticator(page);

  // First factor: the second step shows, and the half-signed-in cookie opens nothing.
  await firstFactor(page, user.key);
  await expect(page.getByRole('heading', { name: 'Use your security key' })).toBeVisible();
  await screenshot(page, 'mfa-second-step-register');
  const cookie = (await context.cookies()).find((c) => c.name === '__Host-gatehouse_session');
  const refused = await page.request.get(`${web()}/v1/resources`, {
    headers: { 'x-gatehouse-csrf': '1', cookie: `__Host-gatehouse_session=${cookie?.value}` },
  });
  expect(refused.status()).toBe(401);
  expect((await refused.json()).code).toBe('mfa_required');

  // Without a key there is no way around registering one: the pages send her back to sign in.
  const other = await context.newPage();
  await other.goto(`${web()}/resources`);
  await expect(other).toHaveURL(/\/login\?next=/);
  await other.close();

  await page.getByLabel('Name for a new key').fill('Laptop passkey');
  await page.getByRole('button', { name: 'Use your security key' }).click();
  await expect(page).toHaveURL(/\/resources$/);
  await expect(page.getByText('Signed in as')).toContainText('mfa-person');
  const devices = await adminApi('GET', `/v1/users/${user.id}/mfa/devices`);
  expect(devices.json.devices.map((d: { name: string }) => d.name)).toEqual(['Laptop passkey']);

  // The account page lists it.
  await page.goto(`${web()}/account`);
  const keys = page.getByRole('table', { name: 'Security keys' });
  await expect(keys).toContainText('Laptop passkey');
  await screenshot(page, 'mfa-account-keys');

  // Signed out, she signs in again: the key is asked for and answers.
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByText('You are signed out.')).toBeVisible();
  await firstFactor(page, user.key);
  await page.getByRole('button', { name: 'Use your security key' }).click();
  await expect(page).toHaveURL(/\/resources$/);
  await expect(page.getByText('Signed in as')).toContainText('mfa-person');
  expect((await events('auth.mfa.used', user.id)).length).toBeGreaterThanOrEqual(2);

  // She removes it (her next sign-in registers one again).
  await page.goto(`${web()}/account`);
  await page.getByRole('button', { name: 'Remove key Laptop passkey' }).click();
  await page.getByRole('button', { name: 'Remove it' }).click();
  await expect(page.getByText('No security keys yet.')).toBeVisible();
});

test('a role without require_mfa signs in with the API key alone (the control)', async ({ page }) => {
  await role('e2e-plain', {});
  const user = await userWithRoles('plain-person', ['e2e-plain']);
  await firstFactor(page, user.key);
  await expect(page.getByText('Signed in as')).toContainText('plain-person');
  await expect(page.getByRole('heading', { name: 'Use your security key' })).toHaveCount(0);
});

test('passwordless: a registered passkey alone signs in where a role allows it', async ({ page }) => {
  await role('e2e-passwordless', { mfa_passwordless: true });
  const user = await userWithRoles('passkey-person', ['e2e-passwordless']);
  const authenticator = await virtualAuthenticator(page);
  await firstFactor(page, user.key);
  await expect(page.getByText('Signed in as')).toContainText('passkey-person');
  await page.goto(`${web()}/account`);
  await page.getByLabel('Key name').fill('Phone passkey');
  await page.getByRole('button', { name: 'Add a security key' }).click();
  await expect(page.getByRole('table', { name: 'Security keys' })).toContainText('passkey');
  const [credential] = await authenticator.credentials();
  expect(credential?.isResidentCredential).toBe(true);

  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByText('You are signed out.')).toBeVisible();
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  await expect(page.getByText('Signed in as')).toContainText('passkey-person');
  await screenshot(page, 'mfa-passkey-signed-in');
  expect((await events('auth.mfa.used', user.id)).length).toBeGreaterThanOrEqual(1);
});
