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

export async function signIn(page: Page, credential = env.adminKey(), path = '/'): Promise<void> {
  await page.goto(`${env.web()}${path}`);
  await page.getByLabel('API key or access token').fill(credential);
  await page.getByRole('button', { name: 'Sign in' }).click();
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
