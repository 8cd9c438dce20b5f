// What every browser test shares: the addresses global-setup.ts published, signing in through the
// page as a person does, screenshots under the (gitignored) test output, and a check that the page
// never broke its Content-Security-Policy.
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test as base, expect, type Page } from '@playwright/test';
import { api } from '../../test/helpers/gatehouse.js';

export const env = {
  web: () => process.env.GH_WEB_URL as string,
  auth: () => process.env.GH_AUTH_URL as string,
  adminKey: () => process.env.GH_ADMIN_KEY as string,
  adminToken: () => process.env.GH_ADMIN_TOKEN as string,
  sshPort: () => Number(process.env.GH_SSH_PORT),
  sshLogin: () => process.env.GH_SSH_LOGIN as string,
};

const SHOTS = fileURLToPath(new URL('../../test-results/web/screenshots/', import.meta.url));
mkdirSync(SHOTS, { recursive: true });

export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: `${SHOTS}${name}.png`, fullPage: true });
}

export async function signIn(page: Page, credential = env.adminKey(), path = '/', origin = env.web()): Promise<void> {
  await page.goto(`${origin}${path}`);
  await page.getByLabel('API key or access token').fill(credential);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page.getByText('Signed in as')).toBeVisible();
}

/** The admin's API, for arranging what a test needs and checking what the page did. */
export const adminApi = (method: string, path: string, body?: unknown) =>
  api(env.auth(), method, path, { token: env.adminToken(), ...(body === undefined ? {} : { body }) });

export const test = base.extend<{ cspViolations: string[] }>({
  cspViolations: [
    async ({ page }, use) => {
      const violations: string[] = [];
      page.on('console', (m) => {
        if (/Content.Security.Policy|Refused to/i.test(m.text())) violations.push(m.text());
      });
      await use(violations);
      expect(violations, 'the page broke its Content-Security-Policy').toEqual([]);
    },
    { auto: true },
  ],
});

export { expect };

/** Runs a command on web-1 through Gatehouse's SSH proxy with the real ssh client, as the admin. */
export async function sshToWeb1(command: string, timeoutMs = 30_000) {
  const { sshExec } = await import('../../test/helpers/ssh-client.js');
  return sshExec(command, {
    port: env.sshPort(),
    user: `${env.sshLogin()}@web-1`,
    password: env.adminToken(),
    timeoutMs,
  });
}

/** Polls the admin API until `check` returns a value (sessions start and recordings upload async). */
export async function waitFor<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** A user with exactly these roles, and an API key to sign in with. */
export async function userWithRoles(name: string, roles: string[]): Promise<{ id: string; key: string }> {
  const user = await adminApi('POST', '/v1/users', { name, roles });
  if (user.status !== 201) throw new Error(`user ${name}: ${user.status} ${user.text}`);
  const key = await adminApi('POST', `/v1/users/${user.json.id}/api-keys`, { name: 'e2e' });
  return { id: user.json.id, key: key.json.api_key };
}

/** A platform authenticator that keeps passkeys and verifies the user, on this page. */
export async function virtualAuthenticator(page: Page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
    },
  });
  return {
    credentials: async () => (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials,
  };
}
