// `gatehouse kube` as a person uses it, with the real kubectl against the fake API server through
// Gatehouse's Kubernetes proxy: kube ls lists what the role reaches (with no resources:read: the
// kubeconfig door agrees with the kube door); kube login merges a context into ~/.kube/config beside
// one already there, with no token in the file; kubectl gets its token from the exec credential
// plugin, renewed from the profile when the access token has run out; after logout kubectl says
// "run gatehouse login" and lists nothing (its earlier success is the control).
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parse } from 'yaml';
import { type CliHome, cliHome } from './helpers/cli.js';
import { type FakeKube, startFakeKube } from './helpers/fake-kube-apiserver.js';
import { kubectl } from './helpers/fake-kube-apiserver-kubectl.js';
import { startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';
import { kubeClusterClient } from './helpers/kube-cluster.js';

describe('gatehouse kube login, and kubectl with the exec credential plugin', () => {
  let server: TestServer;
  let fake: FakeKube;
  let h: CliHome;
  let kubeconfig: string;
  const kube = kubeClusterClient(() => server, 'cli-kube-');
  const profileFile = () => join(h.env.GATEHOUSE_HOME as string, 'default.json');
  const getPods = () => kubectl(['get', 'pods', '-n', 'dev', '-o', 'name'], { kubeconfig, home: h.dir });

  before(async () => {
    fake = await startFakeKube({ rbac: { 'dev-team': ['dev'] } });
    server = await startTestServer();
    await kube.registerCluster(fake, 'cli-dev', { labels: { env: 'dev' } });
    await kube.registerCluster(fake, 'cli-prod', { labels: { env: 'prod' } });
    const role = await kube.admin('POST', '/v1/roles', {
      name: 'cli-kube-dev',
      // No resources:read: reaching the cluster is enough to get its kubeconfig.
      allow: { resources: [{ kinds: ['kube_cluster'], labels: { env: 'dev' } }], kube_groups: ['dev-team'] },
    });
    assert.equal(role.status, 201, role.text);
    const { apiKey } = await userWithRoles(server, 'cli-kubeuser', ['cli-kube-dev']);
    h = cliHome();
    kubeconfig = join(h.dir, '.kube', 'config');
    const login = await h.run(['login', '--proxy', server.webUrl], { env: { GATEHOUSE_API_KEY: apiKey } });
    assert.equal(login.code, 0, login.stderr);
  });
  after(async () => {
    h?.remove();
    kube.removeHome();
    await server?.stop();
    await fake?.close();
  });

  test('kube ls names the cluster the role reaches, and not the other', async () => {
    const ls = await h.run(['kube', 'ls', '--format', 'json']);
    assert.equal(ls.code, 0, ls.stderr);
    const clusters = JSON.parse(ls.stdout) as Array<{ name: string; kube_groups: string[] }>;
    assert.deepEqual(
      clusters.map((c) => [c.name, c.kube_groups]),
      [['cli-dev', ['dev-team']]],
    );
    const table = await h.run(['kube', 'ls']);
    assert.match(table.stdout, /^NAME +CONTEXT +KUBE USERS +KUBE GROUPS +LABELS\ncli-dev +gatehouse-cli-dev /);
  });

  test('kube login merges a context with an exec plugin and no token; kubectl lists the pods', async () => {
    mkdirSync(join(h.dir, '.kube'), { recursive: true });
    const other = [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      '- name: elsewhere',
      '  cluster: {server: "https://127.0.0.1:1"}',
      'users:',
      '- name: someone',
      '  user: {token: keep-me}',
      'contexts:',
      '- name: elsewhere',
      '  context: {cluster: elsewhere, user: someone}',
      'current-context: elsewhere',
      '',
    ].join('\n');
    writeFileSync(kubeconfig, other);
    const login = await h.run(['kube', 'login', 'cli-dev', '--namespace', 'dev']);
    assert.equal(login.code, 0, login.stderr);
    assert.match(login.stdout, /kubectl context +gatehouse-cli-dev \(current\)/);

    const text = readFileSync(kubeconfig, 'utf8');
    const config = parse(text);
    assert.equal(config['current-context'], 'gatehouse-cli-dev');
    assert.deepEqual(config.contexts.map((c: { name: string }) => c.name).sort(), ['elsewhere', 'gatehouse-cli-dev']);
    assert.equal(config.users.find((u: { name: string }) => u.name === 'someone').user.token, 'keep-me');
    const exec = config.users.find((u: { name: string }) => u.name === 'gatehouse-cli-dev').user.exec;
    assert.equal(exec.apiVersion, 'client.authentication.k8s.io/v1');
    assert.deepEqual(exec.args.slice(-3), ['kube', 'credentials', 'cli-dev']);
    assert.doesNotMatch(text, /gha_/);

    const pods = await getPods();
    assert.equal(pods.code, 0, pods.stderr);
    assert.equal(pods.stdout.trim(), 'pod/api-1');
    assert.ok(fake.seen.some((r) => r.impersonateGroups.includes('dev-team')));
  });

  test('the plugin prints an ExecCredential; an expired access token is renewed from the profile', async () => {
    const cred = await h.run(['kube', 'credentials', 'cli-dev']);
    assert.equal(cred.code, 0, cred.stderr);
    const answer = JSON.parse(cred.stdout);
    assert.equal(answer.apiVersion, 'client.authentication.k8s.io/v1');
    assert.equal(answer.kind, 'ExecCredential');
    assert.match(answer.status.token, /^gha_/);
    assert.ok(Date.parse(answer.status.expirationTimestamp) > Date.now());

    // As if the access token had run out: the plugin renews it with the refresh token before kubectl uses it.
    const profile = JSON.parse(readFileSync(profileFile(), 'utf8'));
    profile.tokens.expires_at = Date.now() - 1000;
    writeFileSync(profileFile(), JSON.stringify(profile));
    const pods = await getPods();
    assert.equal(pods.code, 0, pods.stderr);
    assert.equal(pods.stdout.trim(), 'pod/api-1');
    const renewed = JSON.parse(readFileSync(profileFile(), 'utf8'));
    assert.notEqual(renewed.tokens.access_token, profile.tokens.access_token);
    assert.ok(renewed.tokens.expires_at > Date.now());
  });

  test('a cluster the role does not reach: one line with the request id, kubeconfig unchanged', async () => {
    const before = readFileSync(kubeconfig, 'utf8');
    const refused = await h.run(['kube', 'login', 'cli-prod']);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /^gatehouse: not_found: .*\(request [^)]+\)\n$/);
    assert.equal(readFileSync(kubeconfig, 'utf8'), before);
  });

  test('after logout kubectl gets no credential: it says run gatehouse login and lists nothing', async () => {
    const logout = await h.run(['logout']);
    assert.equal(logout.code, 0, logout.stderr);
    const pods = await getPods();
    assert.notEqual(pods.code, 0);
    assert.doesNotMatch(pods.stdout, /api-1/);
    assert.match(pods.stderr, /run gatehouse login/);
  });
});
