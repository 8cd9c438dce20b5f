import { adminApi, env, expect, screenshot, signIn, test } from './fixtures.js';

test('agents: create, issue credentials shown once, revoke one, suspend with the kill-switch receipt', async ({
  page,
}) => {
  await signIn(page, env.adminKey(), '/agents');
  await expect(page.getByText('No agents match.')).toBeVisible();
  await page.getByRole('button', { name: 'Create an agent' }).click();
  const form = page.getByRole('form', { name: 'Create an agent' });
  await form.getByLabel('Agent name').fill('deploy-bot');
  await form.getByLabel('Roles').fill('auditor');
  await form.getByLabel('Labels').fill('team=infra');
  await form.getByRole('button', { name: 'Create agent' }).click();
  await expect(page.getByRole('heading', { name: 'deploy-bot' })).toBeVisible();
  await expect(page.getByText('No credentials issued.')).toBeVisible();

  // An access token, shown once; it works against the API as the agent.
  await page.getByLabel('Credential type').selectOption('token');
  await page.getByRole('button', { name: 'Issue credential' }).click();
  const shown = page.getByRole('region', { name: /New token credential/ });
  const token = (await shown.getByTestId('secret').textContent()) as string;
  expect(token).toMatch(/^gha_/);
  const asAgent = await fetch(`${env.auth()}/v1/events?per_page=1`, { headers: { authorization: `Bearer ${token}` } });
  expect(asAgent.status).toBe(200);
  await screenshot(page, 'agent-credential');
  await shown.getByRole('button', { name: 'I have copied it' }).click();

  // A JWT needs an audience: the API says so at the field.
  await page.getByLabel('Credential type').selectOption('jwt');
  await page.getByRole('button', { name: 'Issue credential' }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'No credential issued' })).toBeVisible();
  await page.getByLabel('Audience').fill('https://ci.internal');
  await page.getByRole('button', { name: 'Issue credential' }).click();
  await expect(page.getByRole('region', { name: /New jwt credential/ }).getByTestId('secret')).toContainText('eyJ');
  await page.getByRole('button', { name: 'I have copied it' }).click();

  const creds = page.getByRole('table', { name: 'Credentials' });
  await expect(creds.getByRole('row')).toHaveCount(3);
  // Revoke the JWT's credential: the token one stays valid.
  const jwtRow = creds.getByRole('row').filter({ hasText: 'jwt' });
  await jwtRow.getByRole('button', { name: /Revoke credential/ }).click();
  await jwtRow.getByRole('button', { name: 'Revoke it' }).click();
  await expect(jwtRow).toContainText('revoked');
  await expect(creds.getByRole('row').filter({ hasText: 'token' })).toContainText('valid');

  // The kill switch: suspend, and the receipt says what was ended; the token stops working.
  await page.getByRole('button', { name: 'Suspend agent' }).click();
  await page.getByRole('button', { name: 'Suspend: end its tokens and sessions now' }).click();
  const receipt = page.getByRole('status', { name: 'Kill-switch receipt' });
  await expect(receipt).toContainText('Agent suspended');
  await expect(receipt).toContainText('1 tokens revoked');
  await expect(receipt).toContainText('0 sessions ended');
  await screenshot(page, 'agent-suspended');
  const after = await fetch(`${env.auth()}/v1/events?per_page=1`, { headers: { authorization: `Bearer ${token}` } });
  expect(after.status).toBe(401);
  await expect(page.getByRole('button', { name: 'Reactivate agent' })).toBeVisible();

  await page.getByRole('link', { name: '← Agents' }).click();
  await page.getByLabel('Status').selectOption('suspended');
  await expect(page).toHaveURL(/status=suspended/);
  await expect(page.getByRole('table', { name: 'Agents' }).getByRole('link', { name: 'deploy-bot' })).toBeVisible();
  await screenshot(page, 'agents');
  await page.getByLabel('Status').selectOption('active');
  await expect(page.getByText('No agents match.')).toBeVisible();
});

test('agents: delegation to act for me, then withdrawn', async ({ page }) => {
  const agent = await adminApi('POST', '/v1/agents', { name: 'helper-bot', roles: ['auditor'] });
  await signIn(page, env.adminKey(), `/agents/${agent.json.id}`);
  await expect(page.getByText('No delegations.')).toBeVisible();
  await page.getByRole('button', { name: 'Let this agent act for me' }).click();
  const table = page.getByRole('table', { name: 'Delegations' });
  await expect(table.getByRole('row')).toHaveCount(2);
  await table.getByRole('button', { name: /Withdraw delegation/ }).click();
  await table.getByRole('button', { name: 'Withdraw' }).click();
  await expect(page.getByText('No delegations.')).toBeVisible();
});

test('agents: the owner and roles are picked by name; credential rows say which roles they carry; suspend looks apart from revoke', async ({
  page,
}) => {
  const owner = await adminApi('POST', '/v1/users', { name: 'owner-by-name', roles: ['editor', 'auditor'] });
  expect(owner.status, owner.text).toBe(201);
  await signIn(page, env.adminKey(), '/agents');
  await page.getByRole('button', { name: 'Create an agent' }).click();
  const form = page.getByRole('form', { name: 'Create an agent' });
  await form.getByLabel('Agent name').fill('picked-bot');
  const roles = form.getByRole('combobox', { name: 'Roles' });
  await roles.fill('auditor');
  await roles.press('Enter');
  await roles.fill('editor');
  await roles.press('Enter');
  await expect(form.getByRole('button', { name: 'Remove Roles auditor' })).toBeVisible();
  await form.getByLabel('Owner').fill('owner-by-name');
  await form.getByRole('button', { name: 'Create agent' }).click();
  await expect(page.getByRole('heading', { name: 'picked-bot' })).toBeVisible();
  const agent = (await adminApi('GET', '/v1/agents?name=picked-bot')).json.agents[0];
  expect(agent.owner).toBe(owner.json.id);
  expect(agent.roles).toEqual(['auditor', 'editor']);

  // One credential with every role of the agent, one narrowed to auditor: each row names them.
  await page.getByRole('button', { name: 'Issue credential' }).click();
  await page.getByRole('button', { name: 'I have copied it' }).click();
  const only = page.getByRole('combobox', { name: 'Only these roles' });
  await only.fill('admin');
  await only.press('Enter');
  await expect(page.getByText('admin: not one of auditor, editor')).toBeVisible();
  await only.fill('auditor');
  await only.press('Enter');
  await page.getByRole('button', { name: 'Issue credential' }).click();
  await page.getByRole('button', { name: 'I have copied it' }).click();
  const rows = page.getByRole('table', { name: 'Credentials' }).getByRole('row');
  await expect(rows.filter({ hasText: 'all of the agent’s: auditor, editor' })).toHaveCount(1);
  await expect(
    page.getByRole('table', { name: 'Credentials' }).getByRole('cell', { name: 'auditor', exact: true }),
  ).toHaveCount(1);

  await expect(page.getByRole('button', { name: 'Suspend agent' })).toHaveClass('caution');
  await expect(page.getByRole('button', { name: 'Revoke agent (permanent)' })).toHaveClass('danger');
});
