// The approvals pages against a real MCP gateway: quinn's agent-less MCP client (the official SDK v2,
// through Gatehouse to the tests' own MCP server) calls `deploy`, which her role holds for approval.
// The admin finds the held call in the list with its arguments shown verbatim (as text, markup and
// all, never run), opens /approvals/<id> (the URL the client was sent to) and approves it: the same
// call then passes once. A denied call passes nothing. Quinn cannot approve her own call (no buttons;
// the API refuses it too); ursula, who may see it but does not cover quinn's rights, is refused with
// the API's reason; the admin approving that same call is the control.
import type { Client } from '@modelcontextprotocol/client';
import { api } from '../../test/helpers/gatehouse.js';
import { mcpClient } from '../../test/helpers/mcp-client.js';
import { mcpAppBody, startTestMcpServer, type TestMcpServer } from '../../test/helpers/mcp-upstream.js';
import { adminApi, env, expect, screenshot, signIn, test, userWithRoles } from './fixtures.js';

let upstream: TestMcpServer;
let client: Client;
let appId: string;
let quinn: { id: string; key: string; token: string };
let ursula: { id: string; key: string };
const HOSTILE = `<img src=x onerror="window.pwned=1"><b>bold</b> & 'quoted'`;
const consoleUrl = () => `http://localhost:${new URL(env.web()).port}`;

test.beforeAll(async () => {
  upstream = await startTestMcpServer();
  const created = await adminApi('POST', '/v1/resources', mcpAppBody('e2e-ops-mcp', upstream.url, 'e2e-mcp', 'x'));
  expect(created.status, created.text).toBe(201);
  appId = created.json.id;
  for (const role of [
    {
      name: 'e2e-deployers',
      allow: { resources: [{ kinds: ['app'], labels: { team: 'e2e-mcp' } }], mcp_tools: ['deploy', 'echo'] },
      options: { mcp_require_approval: ['deploy'], mcp_record_arguments: true },
    },
    // May see others' approvals (users:update) but covers nobody's MCP rights.
    { name: 'e2e-user-managers', allow: { rules: [{ resources: ['users'], verbs: ['list', 'read', 'update'] }] } },
  ]) {
    const r = await adminApi('POST', '/v1/roles', role);
    expect(r.status, r.text).toBe(201);
  }
  const q = await userWithRoles('quinn', ['e2e-deployers']);
  const token = await api(env.auth(), 'POST', '/v1/auth/token', { body: { api_key: q.key } });
  quinn = { ...q, token: token.json.access_token };
  ursula = await userWithRoles('ursula', ['e2e-user-managers']);
  client = await mcpClient(created.json.mcp_url, quinn.token);
});

test.afterAll(async () => {
  await client?.close();
  await upstream?.close();
  await adminApi('DELETE', `/v1/resources/${appId}`);
  for (const u of ['quinn', 'ursula']) await adminApi('DELETE', `/v1/users/${u}`);
  for (const r of ['e2e-deployers', 'e2e-user-managers']) await adminApi('DELETE', `/v1/roles/${r}`);
});

/** Quinn calls deploy: 'passed', or the held call's approval (its id and the console URL it names). */
async function deploy(target: string): Promise<'passed' | { id: string; url: string }> {
  type Held = { url: string; elicitationId: string };
  let held: Held | undefined;
  try {
    const result = (await client.callTool({ name: 'deploy', arguments: { env: target } })) as {
      content?: Array<{ text: string }>;
      inputRequests?: Record<string, { params: Held }>;
    };
    if (result.content?.[0]?.text === `deployed to ${target}`) return 'passed';
    held = Object.values(result.inputRequests ?? {})[0]?.params;
  } catch (error) {
    held = (error as { data?: { elicitations?: Held[] } }).data?.elicitations?.[0];
  }
  if (!held) throw new Error('deploy was neither passed nor held');
  return { id: held.elicitationId, url: held.url };
}

async function heldCall(target: string): Promise<string> {
  const held = await deploy(target);
  if (held === 'passed') throw new Error('the call was not held');
  // The client is sent to the approval's page on the console (the web listener's real address).
  expect(held.url).toBe(`${consoleUrl()}/approvals/${held.id}`);
  return held.id;
}

test('the admin approves a held call from the list, its arguments shown verbatim; the same call passes once', async ({
  page,
}) => {
  const id = await heldCall(HOSTILE);
  expect(upstream.calls.get('deploy') ?? 0).toBe(0);

  await signIn(page, env.adminKey(), '/', consoleUrl());
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Approvals' }).click();
  const table = page.getByRole('table', { name: 'Approvals' });
  const row = table.getByRole('row').filter({ has: page.getByRole('link', { name: new RegExp(id) }) });
  await expect(row).toContainText('quinn');
  await expect(row).toContainText('deploy');
  await expect(row.getByRole('region', { name: `Arguments of ${id}` })).toHaveText(
    JSON.stringify({ env: HOSTILE }, null, 2),
  );
  await expect(page.locator('main b', { hasText: 'bold' })).toHaveCount(0);
  await expect(page.locator('main img')).toHaveCount(0);
  await screenshot(page, 'approvals-list');

  await row.getByRole('link', { name: new RegExp(id) }).click();
  await expect(page).toHaveURL(`${consoleUrl()}/approvals/${id}`);
  await expect(page.getByRole('heading', { name: 'Approve deploy on e2e-ops-mcp?' })).toBeVisible();
  await page.getByRole('button', { name: 'Approve' }).click();
  await expect(page.getByText('Decided by')).toBeVisible();
  await expect(page.getByRole('definition').first()).toHaveText('approved');
  await expect(page.getByRole('button', { name: 'Approve' })).toHaveCount(0);
  expect(await page.evaluate(() => (window as { pwned?: number }).pwned)).toBeUndefined();

  expect(await deploy(HOSTILE)).toBe('passed');
  expect(upstream.calls.get('deploy')).toBe(1);
  const again = await heldCall(HOSTILE);
  expect(again).not.toBe(id);
  expect(upstream.calls.get('deploy')).toBe(1);
});

test('the admin denies a held call on the page its client was sent to: nothing passes', async ({ page }) => {
  const id = await heldCall('staging');
  const before = upstream.calls.get('deploy') ?? 0;
  await signIn(page, env.adminKey(), `/approvals/${id}`, consoleUrl());
  await expect(page.getByRole('heading', { name: 'Approve deploy on e2e-ops-mcp?' })).toBeVisible();
  await page.getByRole('button', { name: 'Deny' }).click();
  await expect(page.getByRole('definition').first()).toHaveText('denied');
  const retry = await heldCall('staging');
  expect(retry).not.toBe(id);
  expect(upstream.calls.get('deploy') ?? 0).toBe(before);
});

test('the requester cannot approve her own call and ursula is refused with the API’s reason; the admin can', async ({
  page,
  browser,
}) => {
  const id = await heldCall('qa');

  // Quinn sees her call read-only; the API refuses her too.
  await signIn(page, quinn.key, `/approvals/${id}`, consoleUrl());
  await expect(page.getByRole('heading', { name: 'Approve deploy on e2e-ops-mcp?' })).toBeVisible();
  await expect(page.getByText('You asked for this call')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Approve' })).toHaveCount(0);
  const self = await api(env.auth(), 'POST', `/v1/approvals/${id}/approve`, { token: quinn.token });
  expect(self.status, self.text).toBe(403);

  // Ursula may see it (she manages users) but does not cover quinn's rights: the API says no.
  const other = await browser.newContext();
  const ursulaPage = await other.newPage();
  await signIn(ursulaPage, ursula.key, `/approvals/${id}`, consoleUrl());
  await ursulaPage.getByRole('button', { name: 'Approve' }).click();
  const refused = ursulaPage.getByRole('alert');
  await expect(refused).toContainText('Not decided');
  await expect(refused).toContainText(/quinn/);
  await expect(ursulaPage.getByRole('definition').first()).toHaveText('pending');
  await screenshot(ursulaPage, 'approval-refused');
  await other.close();
  const pending = await adminApi('GET', '/v1/approvals?status=pending');
  expect(pending.json.approvals.map((a: { id: string }) => a.id)).toContain(id);

  // The control: the admin, who covers quinn, approves the same call.
  await page.getByRole('button', { name: 'Sign out' }).click();
  await signIn(page, env.adminKey(), `/approvals/${id}`, consoleUrl());
  await page.getByRole('button', { name: 'Approve' }).click();
  await expect(page.getByRole('definition').first()).toHaveText('approved');
});
