import { adminApi, env, expect, screenshot, signIn, sshToWeb1, test, waitFor } from './fixtures.js';

interface SessionRow {
  id: string;
  status: string;
  command?: string;
  recording: { status: string };
}

const sessionsWith = async (command: string) =>
  ((await adminApi('GET', '/v1/sessions?per_page=100')).json.sessions as SessionRow[]).filter(
    (s) => s.command === command,
  );

test('an ended session plays back to a known line, with a marker per command, as text too', async ({ page }) => {
  const command = 'echo first-line; sleep 0.3; echo recorded-line-two';
  const run = await sshToWeb1(command);
  expect(run.stdout).toContain('recorded-line-two');
  const session = await waitFor('the recording to be uploaded', async () => {
    const [s] = await sessionsWith(command);
    return s?.recording.status === 'uploaded' ? s : undefined;
  });

  await signIn(page, env.adminKey(), '/sessions?status=ended');
  const table = page.getByRole('table', { name: 'Sessions' });
  await expect(table.getByRole('link', { name: session.id })).toBeVisible();
  await screenshot(page, 'sessions');
  // Found by its command, on the server; a search for something else finds nothing.
  await page.getByLabel('Command contains').fill('RECORDED-line');
  await page.getByRole('button', { name: 'Search' }).click();
  await expect(page).toHaveURL(/command=RECORDED-line/);
  await expect(table.getByRole('row')).toHaveCount(2);
  await page.getByLabel('Command contains').fill('nothing-ran-this');
  await page.getByRole('button', { name: 'Search' }).click();
  await expect(page.getByText('No sessions match.')).toBeVisible();
  // Found by what it printed (the recording's text), once the recording is indexed.
  await page.getByLabel('Command contains').fill('');
  await page.getByLabel('Output contains').fill('FIRST-LINE');
  await page.getByRole('button', { name: 'Search' }).click();
  await expect(page).toHaveURL(/text=FIRST-LINE/);
  await expect(table.getByRole('link', { name: session.id })).toBeVisible();
  await expect(table.getByRole('row')).toHaveCount(2);
  await page.goto(`${env.web()}/sessions?status=ended&command=recorded-line`);
  await table.getByRole('link', { name: session.id }).click();
  await expect(page.getByTestId('session-status')).toHaveText('ended');

  const player = page.getByRole('region', { name: 'Recording player' });
  await expect(player.locator('.ap-player')).toBeVisible();
  // The command's marker is listed; jumping to it and playing shows the session's output.
  await expect(page.getByRole('navigation', { name: 'Commands' })).toContainText(command);
  await player.locator('.ap-player').click();
  await expect(player.locator('.ap-term')).toContainText('recorded-line-two', { timeout: 15_000 });
  await screenshot(page, 'session-recording');

  await page.getByRole('button', { name: 'Text', exact: true }).click();
  const text = page.getByRole('region', { name: 'Recording text' });
  await expect(text).toContainText('first-line');
  await expect(text).toContainText('recorded-line-two');
  await screenshot(page, 'session-text');

  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Download cast' }).click();
  expect((await download).suggestedFilename()).toBe(`${session.id}.cast`);
});

test('a live session is listed as live and terminated from its page; the user is told', async ({ page }) => {
  const command = 'echo started; sleep 60';
  const running = sshToWeb1(command, 60_000);
  const live = await waitFor('the session to be live', async () => {
    const [s] = await sessionsWith(command);
    return s?.status === 'active' ? s : undefined;
  });

  await signIn(page, env.adminKey(), '/sessions?status=active');
  const table = page.getByRole('table', { name: 'Sessions' });
  await expect(table.getByRole('row').filter({ hasText: live.id })).toContainText('live');
  await table.getByRole('link', { name: live.id }).click();
  await expect(page.getByTestId('session-status')).toHaveText('live');
  await screenshot(page, 'session-live');
  await page.getByRole('button', { name: 'Terminate session' }).click();
  await page.getByRole('button', { name: 'Terminate now' }).click();
  await expect(page.getByTestId('session-status')).toHaveText('terminated');
  await expect(page.getByRole('button', { name: 'Terminate session' })).toHaveCount(0);

  const result = await running;
  expect(result.stderr + result.stdout).toContain('session terminated');
});

test('watching a live session: output arrives as it happens, then the end; the watch is audited', async ({ page }) => {
  const command = 'for i in 1 2 3 4 5 6; do echo live-tick-$i; sleep 0.7; done';
  const running = sshToWeb1(command, 60_000);
  const live = await waitFor('the session to be live', async () => {
    const [s] = await sessionsWith(command);
    return s?.status === 'active' ? s : undefined;
  });
  await signIn(page, env.adminKey(), `/sessions/${live.id}`);
  const view = page.getByRole('region', { name: 'Live session' });
  await expect(view.locator('.ap-term')).toContainText('live-tick-1');
  // A line printed after the page opened reaches it without a reload.
  await expect(view.locator('.ap-term')).toContainText('live-tick-5', { timeout: 15_000 });
  await screenshot(page, 'session-live-view');
  // When it ends, the page turns into the ended session's page, with its recording to play.
  await expect(page.getByTestId('session-status')).toHaveText('ended', { timeout: 15_000 });
  await expect(page.getByRole('region', { name: 'Recording player' })).toBeVisible({ timeout: 15_000 });
  expect((await running).code).toBe(0);
  const observed = await adminApi('GET', `/v1/events?type=session.observed&session_id=${live.id}`);
  expect(observed.json.events).toHaveLength(1);
});

test('an auditor, who may read but not terminate sessions, has no terminate button (the test above is the control)', async ({
  page,
}) => {
  const { userWithRoles } = await import('./fixtures.js');
  const auditor = await userWithRoles('session-auditor', ['auditor']);
  const [any] = (await adminApi('GET', '/v1/sessions?per_page=1')).json.sessions as SessionRow[];
  if (!any) throw new Error('no session to look at');
  await signIn(page, auditor.key, `/sessions/${any.id}`);
  await expect(page.getByTestId('session-status')).toBeVisible();
  expect(await page.getByRole('button', { name: 'Terminate session' }).count()).toBe(0);
});
