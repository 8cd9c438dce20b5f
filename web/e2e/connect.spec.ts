// The Connect panel as a person who connects sees it (alice, no admin rights): on a server the ssh
// command with the login her roles give her there and not another's; on a database a one-time ticket
// whose conninfo the real psql connects with; on a Kubernetes cluster a kubeconfig the real kubectl
// uses against the test API server through the proxy.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type FakeKube, startFakeKube } from '../../test/helpers/fake-kube-apiserver.js';
import { kubectl } from '../../test/helpers/fake-kube-apiserver-kubectl.js';
import { psql } from '../../test/helpers/psql.js';
import { adminApi, env, expect, screenshot, signIn, test, userWithRoles } from './fixtures.js';

const SEE = [
  { resources: ['resources'], verbs: ['list', 'read'] },
  { resources: ['sessions'], verbs: ['list', 'read', 'create'] },
];

async function role(name: string, allow: Record<string, unknown>) {
  const created = await adminApi('POST', '/v1/roles', { name, allow });
  expect(created.status, created.text).toBe(201);
}

let fake: FakeKube;
let alice: { id: string; key: string };
const home = mkdtempSync(join(tmpdir(), 'gatehouse-e2e-kube-'));

test.beforeAll(async () => {
  fake = await startFakeKube({ rbac: { 'connect-devs': ['default'] } });
  const kube = await adminApi('POST', '/v1/resources', {
    kind: 'kube_cluster',
    name: 'connect-k8s',
    address: fake.url,
    labels: { env: 'dev' },
    kube: { ca_pem: fake.caPem, token: fake.token },
  });
  expect(kube.status, kube.text).toBe(201);
  const db = await adminApi('POST', '/v1/resources', {
    kind: 'database',
    name: 'connect-pg',
    address: '127.0.0.1:5432',
    protocol: 'postgres',
    labels: { env: 'dev' },
  });
  expect(db.status, db.text).toBe(201);
  const prod = await adminApi('POST', '/v1/resources', {
    kind: 'server',
    name: 'connect-prod',
    address: '127.0.0.1:22',
    labels: { env: 'prod' },
  });
  expect(prod.status, prod.text).toBe(201);
  // Her login on the dev servers (web-1 among them); another role's login only on prod.
  await role('connect-dev', {
    rules: SEE,
    resources: [{ kinds: ['server', 'database', 'kube_cluster'], labels: { env: 'dev' } }],
    logins: [env.sshLogin()],
    db_users: ['postgres'],
    db_names: ['test'],
    kube_groups: ['connect-devs'],
  });
  await role('connect-prod', { resources: [{ kinds: ['server'], labels: { env: 'prod' } }], logins: ['deployer'] });
  alice = await userWithRoles('alice-connect', ['connect-dev', 'connect-prod']);
});

// Other specs share this Gatehouse and count its resources: leave it as it was found.
test.afterAll(async () => {
  await fake?.close();
  rmSync(home, { recursive: true, force: true });
  for (const [kind, name] of [
    ['kube_cluster', 'connect-k8s'],
    ['database', 'connect-pg'],
    ['server', 'connect-prod'],
  ]) {
    const found = (await adminApi('GET', `/v1/resources?kind=${kind}&name=${name}`)).json.resources[0];
    if (found) await adminApi('DELETE', `/v1/resources/${found.id}`);
  }
});

const resourceId = async (kind: string, name: string) =>
  (await adminApi('GET', `/v1/resources?kind=${kind}&name=${name}`)).json.resources[0].id as string;

test('as alice, web-1 shows the ssh command with her login and not another role’s', async ({ page }) => {
  await signIn(page, alice.key, `/resources/${process.env.GH_SERVER_ID}`);
  const connect = page.getByRole('region', { name: 'Connect' });
  const login = connect.getByLabel('Login');
  await expect(login.locator('option')).toHaveText([`${env.sshLogin()} (connect-dev)`]);
  await expect(connect.getByLabel('ssh command')).toHaveText(
    `ssh -p ${env.sshPort()} -l '${env.sshLogin()}@web-1' 127.0.0.1`,
  );
  await expect(connect.getByLabel('ssh config')).toContainText(`User ${env.sshLogin()}@web-1`);
  await expect(connect.getByLabel('gatehouse command')).toHaveText(`gatehouse ssh ${env.sshLogin()}@web-1`);
  await expect(connect).not.toContainText('deployer');
  // The admin's instructions for the server's authorized_keys are not hers.
  await expect(page.getByRole('heading', { name: "Gatehouse's key on the server" })).toHaveCount(0);
  await screenshot(page, 'connect-server');
  // Positive control of "not others": the prod server offers her the other role's login there.
  await page.goto(`${env.web()}/resources/${await resourceId('server', 'connect-prod')}`);
  await expect(page.getByRole('region', { name: 'Connect' }).getByLabel('ssh command')).toContainText(
    "'deployer@connect-prod'",
  );
});

test('as alice, the database ticket button gives conninfo the real psql connects with', async ({ page }) => {
  await signIn(page, alice.key, `/resources/${await resourceId('database', 'connect-pg')}`);
  const connect = page.getByRole('region', { name: 'Connect' });
  await expect(connect.getByLabel('Database user')).toHaveValue('postgres');
  await expect(connect.getByLabel('Database name')).toHaveValue('test');
  await connect.getByRole('button', { name: 'Get a one-time ticket' }).click();
  const conninfo = (await connect.getByLabel('conninfo', { exact: true }).textContent()) ?? '';
  expect(conninfo).toMatch(/^host=127\.0\.0\.1 port=\d+ user=postgres@connect-pg dbname=test$/);
  const command = (await connect.getByLabel('psql command').textContent()) ?? '';
  const ticket = /PGPASSWORD='([^']+)'/.exec(command)?.[1] ?? '';
  expect(ticket).not.toBe('');
  await screenshot(page, 'connect-database');
  const run = await psql(conninfo, ticket, ['-tAc', "select 'through ' || current_user"]);
  expect(run.stderr).toBe('');
  expect(run.stdout.trim()).toBe('through postgres');
  // Shown once, for one connection: the same ticket again is refused.
  expect((await psql(conninfo, ticket, ['-tAc', 'select 1'])).code).not.toBe(0);
});

test('as alice, the downloaded kubeconfig works with the real kubectl against the cluster', async ({ page }) => {
  await signIn(page, alice.key, `/resources/${await resourceId('kube_cluster', 'connect-k8s')}`);
  const connect = page.getByRole('region', { name: 'Connect' });
  await expect(connect).toContainText('connect-devs');
  await expect(connect.getByLabel('gatehouse command')).toHaveText('gatehouse kube login connect-k8s');
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    connect.getByRole('button', { name: 'Download kubeconfig' }).click(),
  ]);
  expect(download.suggestedFilename()).toBe('connect-k8s.kubeconfig');
  const kubeconfig = join(home, 'config');
  await download.saveAs(kubeconfig);
  const run = await kubectl(['get', 'pods', '-o', 'name'], { kubeconfig, home });
  expect(run.stderr).toBe('');
  expect(run.stdout).toBe('pod/web-1\n');
  const refused = await kubectl(['get', 'pods', '-n', 'prod', '-o', 'name'], { kubeconfig, home });
  expect(refused.code).toBe(1);
});
