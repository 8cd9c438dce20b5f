// The single sign-on connectors page: an administrator adds a connector (the redirect URI to register
// is shown), edits it (the client secret is write-only: never shown, kept when left empty), maps
// claims to roles row by row, turns it off and on, and deletes it; a mapping to a role that does not
// exist is refused at its field. A person whose roles cannot list connectors is not offered the page.
import { adminApi, env, expect, screenshot, signIn, test, userWithRoles } from './fixtures.js';

const NAME = 'e2e-conn';
const ROLE = 'e2e-conn-role';
const SECRET = 'e2e-client-secret-never-shown-0123456789';

test.beforeAll(async () => {
  const role = await adminApi('POST', '/v1/roles', {
    name: ROLE,
    allow: { rules: [{ resources: ['resources'], verbs: ['list'] }] },
  });
  expect(role.status, role.text).toBe(201);
});

test.afterAll(async () => {
  await adminApi('DELETE', `/v1/auth/connectors/${NAME}`);
  await adminApi('DELETE', '/v1/users/conn-reader');
  await adminApi('DELETE', `/v1/roles/${ROLE}`);
});

test('an administrator adds, edits, turns off and deletes a connector', async ({ page }) => {
  await signIn(page);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Single sign-on' }).click();
  await expect(page.getByRole('heading', { name: 'Single sign-on' })).toBeVisible();

  await page.getByRole('button', { name: 'Add a connector' }).click();
  const form = page.getByRole('form', { name: 'Add a connector' });
  await form.getByLabel('Name', { exact: true }).fill(NAME);
  await form.getByLabel('Display name').fill('E2E Provider');
  await form.getByLabel('Issuer').fill('http://127.0.0.1:9/realms/e2e');
  await form.getByLabel('Client ID').fill('gatehouse');
  await form.getByLabel('Client secret').fill(SECRET);
  const first = form.getByRole('group', { name: 'Mapping 1' });
  await first.getByLabel('Claim').fill('realm_access.roles');
  await first.getByLabel('Value').fill('ops-*');
  await first.getByLabel('Roles').fill('no-such-role');
  await form.getByRole('button', { name: 'Add connector' }).click();
  // Refused at the field that names the missing role; nothing was made.
  await expect(first.getByRole('alert')).toContainText('does not exist');
  expect((await adminApi('GET', `/v1/auth/connectors/${NAME}`)).status).toBe(404);

  await first.getByLabel('Roles').fill(ROLE);
  await form.getByRole('button', { name: 'Add connector' }).click();
  const receipt = page.getByRole('status');
  await expect(receipt).toContainText(`Connector ${NAME} saved`);
  const redirectUri = env.web().replace('://127.0.0.1:', '://localhost:');
  await expect(receipt).toContainText(`${redirectUri}/webapi/sso/callback`);
  const table = page.getByRole('table', { name: 'Connectors' });
  await expect(table).toContainText('realm_access.roles ~ ops-* → e2e-conn-role');
  await screenshot(page, 'connectors-added');
  const created = await adminApi('GET', `/v1/auth/connectors/${NAME}`);
  expect(created.json.claims_to_roles).toEqual([{ claim: 'realm_access.roles', value: 'ops-*', roles: [ROLE] }]);
  expect(created.text).not.toContain(SECRET);

  // Edit: the secret field is empty (write-only); left empty it keeps the stored one.
  await page.getByRole('button', { name: `Edit ${NAME}` }).click();
  const edit = page.getByRole('form', { name: `Edit connector ${NAME}` });
  await expect(edit.getByLabel('Client secret')).toHaveValue('');
  await edit.getByLabel('Display name').fill('E2E Provider (renamed)');
  await edit.getByRole('button', { name: 'Add a mapping' }).click();
  const second = edit.getByRole('group', { name: 'Mapping 2' });
  await second.getByLabel('Claim').fill('groups');
  await second.getByLabel('Value').fill('admins');
  await second.getByLabel('Roles').fill(ROLE);
  await edit.getByRole('button', { name: 'Save connector' }).click();
  await expect(page.getByRole('status')).toContainText(`Connector ${NAME} saved`);
  await expect(table).toContainText('E2E Provider (renamed)');
  await expect(table).toContainText('groups ~ admins → e2e-conn-role');
  expect(await page.content()).not.toContain(SECRET);
  const updated = (await adminApi('GET', '/v1/events?type=auth.connector.updated&per_page=5')).json.events.find(
    (e: { target: { name: string } }) => e.target.name === NAME,
  );
  expect(updated.data.secret_changed).toBe(false);

  // Off, then on again.
  await page.getByRole('button', { name: `Turn off ${NAME}` }).click();
  await expect(page.getByRole('button', { name: `Turn on ${NAME}` })).toBeVisible();
  expect((await adminApi('GET', `/v1/auth/connectors/${NAME}`)).json.enabled).toBe(false);
  await page.getByRole('button', { name: `Turn on ${NAME}` }).click();
  await expect(page.getByRole('button', { name: `Turn off ${NAME}` })).toBeVisible();
  expect((await adminApi('GET', `/v1/auth/connectors/${NAME}`)).json.enabled).toBe(true);

  await page.getByRole('button', { name: `Delete ${NAME}`, exact: true }).click();
  await page.getByRole('button', { name: `Delete ${NAME} and end its sign-ins` }).click();
  await expect(page.getByText('No connectors')).toBeVisible();
  expect((await adminApi('GET', `/v1/auth/connectors/${NAME}`)).status).toBe(404);
});

test('a person whose roles cannot list connectors is not offered the page', async ({ page }) => {
  const reader = await userWithRoles('conn-reader', [ROLE]);
  await signIn(page, reader.key);
  const nav = page.getByRole('navigation', { name: 'Main' });
  await expect(nav.getByRole('link', { name: 'Resources' })).toBeVisible();
  await expect(nav.getByRole('link', { name: 'Single sign-on' })).toHaveCount(0);
  await page.goto(`${env.web()}/connectors`);
  await expect(page.getByRole('alert')).toBeVisible();
});
