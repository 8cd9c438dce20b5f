// Who reaches what, as an admin reads it: the Access tab on a user's and an agent's page (each
// resource, as whom, and the role granting it), and the role editor's preview of a change (who gains
// or loses what) before it is saved, then saved and seen on the Access tab.
import { adminApi, env, expect, screenshot, signIn, test, userWithRoles } from './fixtures.js';

let dana: { id: string; key: string };
let botId: string;
let prodId: string;

test.beforeAll(async () => {
  const role = await adminApi('POST', '/v1/roles', {
    name: 'access-dev',
    allow: { resources: [{ kinds: ['server'], labels: { env: 'dev' } }], logins: [env.sshLogin(), 'deploy'] },
  });
  expect(role.status, role.text).toBe(201);
  const prod = await adminApi('POST', '/v1/resources', {
    kind: 'server',
    name: 'access-prod',
    address: '127.0.0.1:22',
    labels: { env: 'prod' },
  });
  expect(prod.status, prod.text).toBe(201);
  prodId = prod.json.id;
  dana = await userWithRoles('dana-access', ['access-dev']);
  const bot = await adminApi('POST', '/v1/agents', { name: 'dana-bot', owner: dana.id, roles: ['access-dev'] });
  expect(bot.status, bot.text).toBe(201);
  botId = bot.json.id;
});

test.afterAll(async () => {
  if (botId) await adminApi('PATCH', `/v1/agents/${botId}`, { status: 'revoked' });
  if (botId) await adminApi('DELETE', `/v1/agents/${botId}`);
  if (dana) await adminApi('DELETE', `/v1/users/${dana.id}`);
  if (prodId) await adminApi('DELETE', `/v1/resources/${prodId}`);
  await adminApi('DELETE', '/v1/roles/access-dev');
});

test("a user's and an agent's Access tab: each resource, as whom, and the role granting it", async ({ page }) => {
  await signIn(page, env.adminKey(), `/users/${dana.id}`);
  await page.getByRole('tab', { name: 'Access' }).click();
  await expect(page.getByRole('tab', { name: 'Access' })).toHaveAttribute('aria-selected', 'true');
  const table = page.getByRole('table', { name: 'What dana-access can reach' });
  const web1 = table.getByRole('row', { name: /web-1/ });
  await expect(web1).toContainText(`deploy, ${env.sshLogin()}`);
  await expect(web1.getByRole('link', { name: 'access-dev' })).toBeVisible();
  await expect(table.getByRole('row', { name: /access-prod/ })).toHaveCount(0);
  await screenshot(page, 'user-access-tab');

  await page.goto(`${env.web()}/agents/${botId}?tab=access`);
  const agentTable = page.getByRole('table', { name: 'What dana-bot can reach' });
  await expect(agentTable.getByRole('row', { name: /web-1/ })).toContainText('access-dev');
  // The Details tab is the other one, and still holds the agent's credentials.
  await page.getByRole('tab', { name: 'Details' }).click();
  await expect(page.getByRole('heading', { name: 'Delegations' })).toBeVisible();
});

test('the role editor previews a change (who gains or loses what) before saving it', async ({ page }) => {
  await signIn(page, env.adminKey(), '/roles/access-dev');
  const form = page.getByRole('form', { name: 'Role' });
  // Unchanged, nothing changes: the control for the preview below.
  await form.getByRole('button', { name: 'Preview changes' }).click();
  await expect(page.getByText("Nobody's access changes.")).toBeVisible();

  await form.getByLabel('Allow selector 1 labels').fill('env=prod');
  await form.getByRole('button', { name: 'Preview changes' }).click();
  const preview = page.getByRole('table', { name: 'What saving would change' });
  const danaLoses = preview.getByRole('row', { name: /dana-access.*web-1/ });
  await expect(danaLoses).toContainText('loses access');
  await expect(preview.getByRole('row', { name: /dana-access.*access-prod/ })).toContainText('gains access');
  await expect(preview.getByRole('row', { name: /dana-bot.*access-prod/ })).toContainText('gains access');
  await screenshot(page, 'role-preview');
  // Nothing was saved by the preview.
  expect(
    (await adminApi('GET', '/v1/users/dana-access/access')).json.resources.map((r: { name: string }) => r.name),
  ).toEqual(['web-1']);

  await form.getByRole('button', { name: 'Save role' }).click();
  await expect(page.getByText('Saved.')).toBeVisible();
  await page.goto(`${env.web()}/users/${dana.id}?tab=access`);
  const table = page.getByRole('table', { name: 'What dana-access can reach' });
  await expect(table.getByRole('row', { name: /access-prod/ })).toContainText('access-dev');
  await expect(table.getByRole('row', { name: /web-1/ })).toHaveCount(0);
});
