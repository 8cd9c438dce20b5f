import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { appRequest, startTestApp } from '../../test/helpers/app-upstream.js';
import { startFakeKube } from '../../test/helpers/fake-kube-apiserver.js';
import { kubectl } from '../../test/helpers/fake-kube-apiserver-kubectl.js';
import { api } from '../../test/helpers/gatehouse.js';
import { psql } from '../../test/helpers/psql.js';
import { adminApi, env, expect, screenshot, signIn, sshToWeb1, test, userWithRoles, waitFor } from './fixtures.js';

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

test('audit log: the summary says a statement’s first SQL line, a Kubernetes request’s verb and path, an app request’s method and path', async ({
  page,
}) => {
  // Real doors: PostgreSQL through the proxy with psql, the fake API server with kubectl, the test's
  // own app through the app door; erin's role reaches the three.
  const fake = await startFakeKube({ rbac: { 'audit-devs': ['default'] } });
  const app = await startTestApp();
  const home = mkdtempSync(join(tmpdir(), 'gatehouse-e2e-audit-'));
  const ids: string[] = [];
  let erin: { id: string; key: string } | undefined;
  try {
    const labels = { audit: 'summary' };
    const bodies = [
      { kind: 'database', name: 'audit-pg', address: '127.0.0.1:5432', protocol: 'postgres', labels },
      {
        kind: 'kube_cluster',
        name: 'audit-k8s',
        address: fake.url,
        labels,
        kube: { ca_pem: fake.caPem, token: fake.token },
      },
      { kind: 'app', name: 'audit-dash', uri: app.url, labels },
    ];
    const created: Record<string, { id: string; public_url?: string }> = {};
    for (const body of bodies) {
      const r = await adminApi('POST', '/v1/resources', body);
      expect(r.status, r.text).toBe(201);
      ids.push(r.json.id);
      created[body.name] = r.json;
    }
    const role = await adminApi('POST', '/v1/roles', {
      name: 'audit-summary',
      allow: {
        rules: [{ resources: ['sessions'], verbs: ['create'] }],
        resources: [{ kinds: ['database', 'kube_cluster', 'app'], labels }],
        db_users: ['postgres'],
        db_names: ['test'],
        kube_groups: ['audit-devs'],
      },
    });
    expect(role.status, role.text).toBe(201);
    erin = await userWithRoles('audit-erin', ['audit-summary']);
    const token = (await api(env.auth(), 'POST', '/v1/auth/token', { body: { api_key: erin.key } })).json
      .access_token as string;
    const as = (method: string, path: string, body?: unknown) =>
      api(env.auth(), method, path, { token, ...(body === undefined ? {} : { body }) });

    const ticket = await as('POST', '/v1/sessions', { database: 'audit-pg', db_user: 'postgres', db_name: 'test' });
    expect(ticket.status, ticket.text).toBe(201);
    const sql = await psql(`${ticket.json.psql_conninfo} sslmode=disable`, ticket.json.ticket, [
      '-tAc',
      "select 'audit-sql-first' as marker,\n  2 as second_line",
    ]);
    expect(sql.code, sql.stderr).toBe(0);

    const kubeconfig = await as('GET', `/v1/resources/${created['audit-k8s']?.id}/kubeconfig`);
    expect(kubeconfig.status, kubeconfig.text).toBe(200);
    writeFileSync(join(home, 'config'), kubeconfig.text);
    const pods = await kubectl(['get', 'pods', '-n', 'default', '-o', 'name'], {
      kubeconfig: join(home, 'config'),
      home,
    });
    expect(pods.code, pods.stderr).toBe(0);

    const host = new URL(created['audit-dash']?.public_url as string).host;
    const reply = await appRequest(env.web(), host, '/audit-report/q1?token=secret-value', {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(reply.status, reply.text).toBe(200);

    // The proxies write their events in batches: wait until the API has the three.
    for (const type of ['db.query', 'kube.request', 'app.request']) {
      await waitFor(type, async () => {
        const r = await adminApi('GET', `/v1/events?type=${type}&actor=${erin?.id}&per_page=1`);
        return r.json.pagination.total > 0 ? true : undefined;
      });
    }

    await signIn(page, env.adminKey(), `/audit?type=db.query&actor=${erin.id}`);
    const rows = page.getByRole('table', { name: 'Events' }).getByRole('row');
    const statement = rows.filter({ hasText: 'audit-sql-first' }).first();
    await expect(statement.locator('td.summary')).toHaveText("select 'audit-sql-first' as marker, …");

    await page.goto(`${env.web()}/audit?type=kube.request&actor=${erin.id}`);
    const kube = rows.filter({ hasText: '/api/v1/namespaces/default/pods' }).first();
    await expect(kube.locator('td.summary')).toHaveText('list /api/v1/namespaces/default/pods');

    await page.goto(`${env.web()}/audit?type=app.request&actor=${erin.id}`);
    const request = rows.filter({ hasText: '/audit-report/q1' }).first();
    await expect(request.locator('td.summary')).toHaveText(/^GET \/audit-report\/q1/);
    await expect(request.locator('td.summary')).not.toContainText('secret-value');
    await screenshot(page, 'audit-summaries');
  } finally {
    await fake.close();
    await app.close();
    rmSync(home, { recursive: true, force: true });
    // The browser specs share one Gatehouse: leave it as found.
    for (const id of ids) await adminApi('DELETE', `/v1/resources/${id}`);
    if (erin) await adminApi('DELETE', `/v1/users/${erin.id}`);
    await adminApi('DELETE', '/v1/roles/audit-summary');
  }
});
