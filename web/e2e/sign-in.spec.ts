import { adminApi, env, expect, screenshot, signIn, test } from './fixtures.js';

test('the sign-in page, a wrong key, then the admin key; sign out revokes the session', async ({ page, context }) => {
  await page.goto(`${env.web()}/`);
  await expect(page).toHaveURL(/\/login\?next=/);
  await expect(page.getByLabel('API key or access token')).toBeVisible();
  await screenshot(page, 'sign-in');

  await page.getByLabel('API key or access token').fill('ghk_not-a-real-key-0000000000000000000000000');
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page.getByRole('alert')).toContainText('Sign-in failed');
  await expect(page.getByRole('alert')).toContainText('Request id');
  await screenshot(page, 'sign-in-failed');

  await page.getByLabel('API key or access token').fill(env.adminKey());
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page.getByText('Signed in as')).toContainText('admin');
  await expect(page).toHaveURL(/\/resources$/);

  // The token lives in HttpOnly cookies only: nothing in storage, nothing script can read.
  expect(
    await page.evaluate(() => JSON.stringify(localStorage) + JSON.stringify(sessionStorage) + document.cookie),
  ).toBe('{}{}');
  const cookies = await context.cookies();
  const session = cookies.find((c) => c.name === '__Host-gatehouse_session');
  expect(session).toMatchObject({ httpOnly: true, secure: true, sameSite: 'Strict', path: '/' });
  const token = session?.value as string;

  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByText('You are signed out.')).toBeVisible();
  // Sign-out revoked the token itself, not only the cookie.
  const res = await adminApi('POST', '/v1/auth/introspect', { token });
  expect(res.json.active).toBe(false);
  await page.goto(`${env.web()}/users`);
  await expect(page).toHaveURL(/\/login\?next=%2Fusers/);
});

test('an access token signs in too, and sign-in returns to the page asked for', async ({ page }) => {
  await page.goto(`${env.web()}/audit?type=auth.*`);
  await expect(page).toHaveURL(/\/login\?next=/);
  await page.getByLabel('API key or access token').fill(env.adminToken());
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page).toHaveURL(/\/audit\?type=auth\.\*/);
  await expect(page.getByRole('heading', { name: 'Audit log' })).toBeVisible();
});

test('an expired session goes back to sign-in, then to the page it was on', async ({ page, context }) => {
  await signIn(page);
  await page.goto(`${env.web()}/users`);
  await expect(page.getByRole('table', { name: 'Users' })).toBeVisible();
  // Both tokens gone (as when the refresh token has expired too): the next call cannot be refreshed.
  await context.clearCookies();
  await page.getByRole('link', { name: 'Roles' }).click();
  await expect(page).toHaveURL(/\/login\?next=%2Froles&expired=1/);
  await expect(page.getByText('Your session has ended')).toBeVisible();
  await screenshot(page, 'session-expired');
  await page.getByLabel('API key or access token').fill(env.adminKey());
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page).toHaveURL(/\/roles$/);
});
