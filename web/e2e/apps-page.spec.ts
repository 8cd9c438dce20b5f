// The Apps page and the Connect panel's Launch, as a person without admin rights meets them: dora's
// role selects one web app (dash) and one MCP server (tools-mcp), not a third app (vault-ui). She
// sees Launch for dash and none for vault-ui; Launch opens dash in a new tab through the app door
// (the test's own HTTP app on loopback, at dash.localhost), and the app sees her identity. The admin,
// who reaches every app, is the control that vault-ui has a Launch for whom may open it.
import { startTestApp, type TestApp } from '../../test/helpers/app-upstream.js';
import { mcpAppBody } from '../../test/helpers/mcp-upstream.js';
import { adminApi, env, expect, screenshot, signIn, test, userWithRoles } from './fixtures.js';

let app: TestApp;
let dora: { id: string; key: string };
const ids: Record<string, string> = {};
let dashUrl: string;
let mcpUrl: string;
/** The console at the host the app door sends people to (its session cookie is that host's). */
const consoleUrl = () => `http://localhost:${new URL(env.web()).port}`;

test.beforeAll(async () => {
  app = await startTestApp();
  for (const body of [
    { kind: 'app', name: 'dash', uri: app.url, labels: { team: 'e2e-launch' } },
    { kind: 'app', name: 'vault-ui', uri: app.url, labels: { team: 'e2e-launch-other' } },
    mcpAppBody('tools-mcp', 'http://127.0.0.1:9/mcp', 'e2e-launch', 'upstream-secret'),
  ]) {
    const created = await adminApi('POST', '/v1/resources', body);
    expect(created.status, created.text).toBe(201);
    ids[body.name] = created.json.id;
    if (body.name === 'dash') dashUrl = created.json.public_url;
    if (body.name === 'tools-mcp') mcpUrl = created.json.mcp_url;
  }
  const port = new URL(env.web()).port;
  expect(dashUrl).toBe(`http://dash.localhost:${port}/`);
  app.verifyWith(`${env.web()}/.well-known/jwks.json`, dashUrl, `http://localhost:${port}`);
  const role = await adminApi('POST', '/v1/roles', {
    name: 'e2e-launchers',
    allow: { resources: [{ kinds: ['app'], labels: { team: 'e2e-launch' } }] },
  });
  expect(role.status, role.text).toBe(201);
  dora = await userWithRoles('dora', ['e2e-launchers']);
});

// Other specs share this Gatehouse and count its resources: leave it as it was found.
test.afterAll(async () => {
  await app?.close();
  for (const id of Object.values(ids)) await adminApi('DELETE', `/v1/resources/${id}`);
  await adminApi('DELETE', '/v1/users/dora');
  await adminApi('DELETE', '/v1/roles/e2e-launchers');
});

test('dora sees Launch for the app her role grants and not the other; Launch lands her in the app as herself', async ({
  page,
}) => {
  await signIn(page, dora.key, '/', consoleUrl());
  await expect(page).toHaveURL(`${consoleUrl()}/apps`); // her home: she may list no resources
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Apps' }).click();
  const table = page.getByRole('table', { name: 'Your apps' });
  await expect(table.getByRole('link', { name: 'Launch dash' })).toBeVisible();
  await expect(table.getByRole('link', { name: 'Launch dash' })).toHaveAttribute('href', dashUrl);
  await expect(table.getByRole('row')).toHaveCount(3); // the heading row, dash, tools-mcp
  await expect(table.getByText('vault-ui')).toHaveCount(0);
  await expect(page.getByRole('link', { name: 'Launch vault-ui' })).toHaveCount(0);
  // An MCP server: its endpoint and the CLI bridge, no Launch.
  await expect(page.getByRole('region', { name: 'MCP endpoint of tools-mcp' })).toHaveText(mcpUrl);
  await expect(page.getByRole('region', { name: 'gatehouse command for tools-mcp' })).toHaveText(
    'gatehouse mcp connect tools-mcp',
  );
  await expect(page.getByRole('link', { name: 'Launch tools-mcp' })).toHaveCount(0);
  await screenshot(page, 'apps-page');

  const before = app.seen.length;
  const [tab] = await Promise.all([
    page.context().waitForEvent('page'),
    table.getByRole('link', { name: 'Launch dash' }).click(),
  ]);
  await expect(tab.getByRole('heading', { name: 'Hello dora from the test app' })).toBeVisible();
  await expect(tab).toHaveURL(dashUrl);
  const seen = app.seen.slice(before).at(-1);
  expect(seen?.claims?.username).toBe('dora');
  expect(seen?.claims?.sub).toBe(dora.id);
  expect(seen?.headers.cookie ?? '').not.toMatch(/gatehouse/);
  await tab.close();
});

test('the admin, who reaches every app, sees Launch for vault-ui too, on the Apps page and its Connect panel', async ({
  page,
}) => {
  await signIn(page);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Apps' }).click();
  const table = page.getByRole('table', { name: 'Your apps' });
  await expect(table.getByRole('link', { name: 'Launch vault-ui' })).toBeVisible();
  await expect(table.getByRole('link', { name: 'Launch dash' })).toBeVisible();

  await page.goto(`${env.web()}/resources/${ids['vault-ui']}`);
  const connect = page.getByRole('region', { name: 'Connect' });
  await expect(connect.getByRole('link', { name: 'Launch vault-ui' })).toHaveAttribute('target', '_blank');
  await page.goto(`${env.web()}/resources/${ids['tools-mcp']}`);
  await expect(connect.getByRole('region', { name: 'gatehouse command for tools-mcp' })).toHaveText(
    'gatehouse mcp connect tools-mcp',
  );
  await expect(connect.getByRole('link', { name: /Launch/ })).toHaveCount(0);
});
