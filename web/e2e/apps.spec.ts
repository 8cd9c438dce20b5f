// Application access in a real browser: an app (the tests' own HTTP server) at grafana.localhost on
// the web listener's port (Chromium resolves *.localhost to loopback). A signed-in person opens the
// app's public URL and lands in it, through the console and back, with no typing; a person not
// signed in signs in first and lands in the app; signing out ends the app session too; the console's
// sessions page lists app sessions by the app's name.
import { appRequest, startTestApp, type TestApp } from '../../test/helpers/app-upstream.js';
import { api } from '../../test/helpers/gatehouse.js';
import { adminApi, env, expect, screenshot, signIn, test, userWithRoles } from './fixtures.js';

let app: TestApp;
let person: { id: string; key: string };
let port: string;
let appUrl: string;
const consoleUrl = () => `http://localhost:${port}`;

test.beforeAll(async () => {
  port = new URL(env.web()).port;
  app = await startTestApp();
  const created = await adminApi('POST', '/v1/resources', {
    kind: 'app',
    name: 'grafana',
    uri: app.url,
    labels: { team: 'e2e-apps' },
  });
  expect(created.status, created.text).toBe(201);
  appUrl = created.json.public_url;
  expect(appUrl).toBe(`http://grafana.localhost:${port}/`);
  app.verifyWith(`${env.web()}/.well-known/jwks.json`, appUrl, consoleUrl());
  const role = await adminApi('POST', '/v1/roles', {
    name: 'e2e-app-users',
    allow: { resources: [{ kinds: ['app'], labels: { team: 'e2e-apps' } }] },
  });
  expect(role.status, role.text).toBe(201);
  person = await userWithRoles('cleo', ['e2e-app-users']);
});

// Other specs share this Gatehouse and count its resources: leave it as it was found.
test.afterAll(async () => {
  await app?.close();
  const grafana = (await adminApi('GET', '/v1/resources?kind=app&name=grafana')).json.resources[0];
  if (grafana) await adminApi('DELETE', `/v1/resources/${grafana.id}`);
  await adminApi('DELETE', '/v1/users/cleo');
  await adminApi('DELETE', '/v1/roles/e2e-app-users');
});

async function signInAt(page: import('@playwright/test').Page): Promise<void> {
  await page.getByLabel('API key or access token').fill(person.key);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

test('a signed-in person opens the app URL and sees the app; signing out ends the app session', async ({ page }) => {
  await page.goto(`${consoleUrl()}/login`);
  await signInAt(page);
  await expect(page.getByText('Signed in as')).toContainText('cleo');

  await page.goto(`${appUrl}dashboards?orgId=1`);
  await expect(page.getByRole('heading', { name: 'Hello cleo from the test app' })).toBeVisible();
  await expect(page).toHaveURL(`${appUrl}dashboards?orgId=1`);
  await screenshot(page, 'app-landed');
  const seen = app.seen.at(-1);
  expect(seen?.claims?.name).toBe('cleo');
  expect(seen?.headers.cookie ?? '').not.toMatch(/gatehouse/);

  // Signing out of the console revokes the login: the app's cookie stops working with it.
  await page.goto(`${consoleUrl()}/resources`);
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByText('You are signed out.')).toBeVisible();
  const before = app.seen.length;
  await page.goto(`${appUrl}dashboards`);
  await expect(page).toHaveURL(/localhost:\d+\/login\?next=/);
  expect(app.seen.length).toBe(before);
});

test('a person not signed in signs in first and lands in the app', async ({ page }) => {
  await page.goto(`${appUrl}explore`);
  await expect(page).toHaveURL(/localhost:\d+\/login\?next=%2Flaunch%2Fgrafana/);
  await signInAt(page);
  await expect(page.getByRole('heading', { name: 'Hello cleo from the test app' })).toBeVisible();
  await expect(page).toHaveURL(`${appUrl}explore`);
});

test('the sessions page lists app sessions under their type, by the app’s name', async ({ page }) => {
  // A program's session too: a bearer token's first request to the app opens one.
  const login = await api(env.auth(), 'POST', '/v1/auth/token', { body: { api_key: person.key } });
  expect(login.status, login.text).toBe(200);
  const host = new URL(appUrl).host;
  const reached = await appRequest(env.web(), host, '/api/health', {
    headers: { authorization: `Bearer ${login.json.access_token}` },
  });
  expect(reached.status, reached.text).toBe(200);

  await signIn(page, env.adminKey(), '/sessions');
  await page.getByLabel('Type').selectOption('app');
  await expect(page).toHaveURL(/type=app/);
  const table = page.getByRole('table', { name: 'Sessions' });
  const rows = table.getByRole('row').filter({ hasText: 'cleo' });
  await expect(rows.first()).toBeVisible();
  // Where: the app, not "@grafana" (an app session has no login).
  await expect(rows.first().getByRole('cell', { name: 'grafana', exact: true })).toBeVisible();
  await expect(table).not.toContainText('@grafana');
  // Only app sessions under this type (the other specs' SSH and database sessions are filtered out).
  const types = await table.locator('tbody tr td:nth-child(4)').allTextContents();
  expect(types.length).toBeGreaterThan(0);
  expect(new Set(types)).toEqual(new Set(['app']));
  await screenshot(page, 'sessions-apps');
  await rows.first().getByRole('link').click();
  await expect(page.getByRole('heading', { name: 'App grafana' })).toBeVisible();
});
