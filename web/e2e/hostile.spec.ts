// The console under hostile input: data written by someone else is shown as text, never run (React
// escapes it and the CSP forbids inline script; the fixture fails on any CSP violation), and the
// sign-in page's ?next= only ever leads back into the console, whatever it is given.
import { adminApi, env, expect, test } from './fixtures.js';

const PAYLOAD = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>';

test('a resource whose description and label hold markup shows it as text and runs nothing', async ({ page }) => {
  const created = await adminApi('POST', '/v1/resources', {
    kind: 'app',
    name: 'hostile-app',
    uri: 'https://hostile.example',
    description: PAYLOAD,
    labels: { note: '<b>bold</b>' },
  });
  expect(created.status, created.text).toBe(201);
  await page.goto(`${env.web()}/login?next=/resources/${created.json.id}`);
  await page.getByLabel('API key or access token').fill(env.adminKey());
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page.getByText(PAYLOAD)).toBeVisible();
  await expect(page.getByText('note=<b>bold</b>').or(page.getByText('<b>bold</b>')).first()).toBeVisible();
  expect(await page.locator('main img, main script, main b').count()).toBe(0);
  expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
  await adminApi('DELETE', `/v1/resources/${created.json.id}`);
});

for (const next of ['//evil.example/x', '/\\evil.example/x', 'https://evil.example/x', 'javascript:alert(1)']) {
  test(`sign-in with next=${next} stays in the console`, async ({ page }) => {
    await page.goto(`${env.web()}/login?next=${encodeURIComponent(next)}`);
    await page.getByLabel('API key or access token').fill(env.adminKey());
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect(page.getByText('Signed in as')).toBeVisible();
    expect(new URL(page.url()).origin).toBe(new URL(env.web()).origin);
    await expect(page).toHaveURL(/\/resources$/);
  });
}

test('positive control: next=/users?page=2 is followed', async ({ page }) => {
  await page.goto(`${env.web()}/login?next=${encodeURIComponent('/users?page=2')}`);
  await page.getByLabel('API key or access token').fill(env.adminKey());
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page).toHaveURL(/\/users\?page=2$/);
});
