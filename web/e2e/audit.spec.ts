import { readFileSync } from 'node:fs';
import { adminApi, env, expect, screenshot, signIn, sshToWeb1, test } from './fixtures.js';

test('audit log: filters in a shareable URL, cursor scrolling past the first page, detail, NDJSON export', async ({
  page,
  browser,
}) => {
  // 60 events of one type: more than one page (50) of the console's cursor scroll. Other specs share
  // this Gatehouse and may have created roles before: the count starts from theirs.
  const before = (await adminApi('GET', '/v1/events?type=role.created&success=true&per_page=1')).json.pagination
    .total as number;
  expect(before).toBeLessThan(40);
  for (let i = 0; i < 60; i++) {
    const r = await adminApi('POST', '/v1/roles', {
      name: `audit-role-${i}`,
      allow: { rules: [{ resources: ['events'], verbs: ['list'] }] },
    });
    expect(r.status).toBe(201);
  }
  await signIn(page, env.adminKey(), '/audit');
  await expect(page.getByRole('table', { name: 'Events' })).toBeVisible();
  await page.getByLabel('Event types').fill('role.created');
  await page.getByLabel('Outcome').selectOption('true');
  await page.getByRole('button', { name: 'Search' }).click();
  await expect(page).toHaveURL(/type=role.created/);
  await expect(page).toHaveURL(/success=true/);
  await expect(page.getByTestId('event-total')).toContainText(`${before + 60} matching events`);
  const rows = page.getByRole('table', { name: 'Events' }).getByRole('row');
  await expect(rows).toHaveCount(51);
  await screenshot(page, 'audit');
  // Scrolling to the end loads the next page with the cursor.
  await page.getByRole('button', { name: 'Load more events' }).scrollIntoViewIfNeeded();
  await expect(rows).toHaveCount(before + 61);
  await expect(page.getByText('End of the log for this search.')).toBeVisible();

  // Detail of an event.
  await rows.nth(1).getByRole('button', { name: 'role.created' }).click();
  const detail = page.getByRole('region', { name: /^Event evt_/ });
  await expect(detail).toContainText('"type": "role.created"');
  await expect(detail).toContainText('"actor"');
  await screenshot(page, 'audit-detail');

  // The URL is the search: another browser context (signed in separately) sees the same result.
  const shared = page.url();
  const other = await browser.newPage();
  await signIn(other, env.adminKey(), new URL(shared).pathname + new URL(shared).search);
  await expect(other.getByLabel('Event types')).toHaveValue('role.created');
  await expect(other.getByLabel('Outcome')).toHaveValue('true');
  await expect(other.getByTestId('event-total')).toContainText(`${before + 60} matching events`);
  await other.close();

  // Export: every matching event, one JSON per line, whatever was scrolled.
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export NDJSON' }).click();
  const file = await (await download).path();
  const lines = readFileSync(file, 'utf8').trim().split('\n');
  expect(lines).toHaveLength(before + 60);
  expect(lines.every((l) => JSON.parse(l).type === 'role.created')).toBe(true);
});

test('audit log: a type prefix, a failure filter and a time range; nothing matching says so', async ({ page }) => {
  const failed = await fetch(`${env.auth()}/v1/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ api_key: `ghk_${'x'.repeat(43)}` }),
  });
  expect(failed.status).toBe(401);
  await signIn(page, env.adminKey(), '/audit?type=auth.*&success=false');
  await expect(page.getByLabel('Event types')).toHaveValue('auth.*');
  const rows = page.getByRole('table', { name: 'Events' }).getByRole('row');
  await expect(rows.nth(1)).toContainText('failed');
  await page.goto(`${env.web()}/audit?type=auth.*&to=2000-01-01T00:00:00.000Z`);
  await expect(page.getByText('No events match.')).toBeVisible();
  await expect(page.getByLabel('To', { exact: true })).not.toHaveValue('');
  // Back to the previous search: the form follows the URL.
  await page.goBack();
  await expect(page.getByLabel('Outcome')).toHaveValue('false');
  await expect(page.getByLabel('To', { exact: true })).toHaveValue('');
  await expect(rows.nth(1)).toContainText('failed');
});

test('audit log: a summary column says what each event was about (login@server: the command), relative times with the absolute one on hover', async ({
  page,
}) => {
  const run = await sshToWeb1('echo audit-summary-check');
  expect(run.code).toBe(0);
  await signIn(page, env.adminKey(), '/audit?type=session.command');
  const table = page.getByRole('table', { name: 'Events' });
  const row = table.getByRole('row').filter({ hasText: 'audit-summary-check' }).first();
  await expect(row).toContainText(`${env.sshLogin()}@web-1: echo audit-summary-check`);
  const time = row.locator('time');
  await expect(time).toHaveText(/ago|now/);
  await expect(time).toHaveAttribute('title', /\d/);
  await expect(time).toHaveAttribute('datetime', /^\d{4}-\d\d-\d\dT/);
});
