// One access checker decides for every door: an API ticket for a server and for a database, an SSH
// login, a psql connection and a kubectl request all reach the very same `authorize` of the one
// checker the composition root built (services.access), with the same principal. Watched by
// wrapping that function on the running server, then using each door as a client would.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { kubectl } from './helpers/fake-kube-apiserver-kubectl.js';
import { requestsTo, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';
import { psql, through } from './helpers/psql.js';
import { sshExec } from './helpers/ssh-client.js';

let gh: TestServer;
const { admin, as } = requestsTo(() => gh);
let alice: { id: string; token: string };
const seen: Array<{ door: string; principal: string; kind: string }> = [];
let door = '';

before(async () => {
  gh = await startTestServer();
  const role = {
    name: 'every-door',
    allow: {
      rules: [
        { resources: ['sessions'], verbs: ['create'] },
        { resources: ['resources'], verbs: ['read', 'list'] },
      ],
      resources: [{ kinds: ['*'], labels: { env: 'dev' } }],
      logins: ['ubuntu'],
      db_users: ['app'],
      db_names: ['app'],
      kube_groups: ['viewers'],
    },
  };
  assert.equal((await admin('POST', '/v1/roles', role)).status, 201);
  alice = await userWithRoles(gh, 'alice', ['every-door']);
  const access = gh.gatehouse.services.access;
  const original = access.authorize.bind(access);
  // Every door must call this very function: one that built its own checker would not be seen.
  access.authorize = ((principal, target, asWhom) => {
    seen.push({ door, principal: principal.name, kind: target.kind });
    return original(principal, target, asWhom);
  }) as typeof access.authorize;
});

after(async () => {
  await gh?.stop();
});

test('tickets, SSH, PostgreSQL and Kubernetes reach the same authorize with the same principal', async () => {
  door = 'ssh ticket';
  await as(alice.token, 'POST', '/v1/sessions', { server: 'web-x', login: 'ubuntu' });
  door = 'db ticket';
  await as(alice.token, 'POST', '/v1/sessions', { database: 'pg-x', db_user: 'app', db_name: 'app' });
  door = 'ssh';
  const ssh = gh.gatehouse.sshAddr as { port: number };
  await sshExec('true', { port: ssh.port, user: 'ubuntu@web-x', password: alice.token, timeoutMs: 20_000 });
  door = 'psql';
  const db = gh.gatehouse.dbAddr as { port: number };
  await psql(through(db.port, 'app', 'pg-x', 'app'), alice.token, ['-c', 'select 1']);
  door = 'kubectl';
  const kube = gh.gatehouse.kubeAddr as { port: number };
  const home = mkdtempSync(join(tmpdir(), 'one-checker-'));
  const kubeconfig = join(home, 'config');
  writeFileSync(
    kubeconfig,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters: [{name: c, cluster: {server: "https://127.0.0.1:PORT/clusters/kube_nonexistent", insecure-skip-tls-verify: true}}]',
      'users: [{name: u, user: {token: "TOKEN"}}]',
      'contexts: [{name: x, context: {cluster: c, user: u}}]',
      'current-context: x',
    ]
      .join('\n')
      .replace('PORT', String(kube.port))
      .replace('TOKEN', alice.token),
  );
  try {
    // --raw takes the whole path: the server URL's /clusters/<id> prefix is not added to it.
    const raw = '/clusters/kube_nonexistent/api/v1/namespaces/default/pods';
    const run = await kubectl(['get', '--raw', raw], { kubeconfig, home });
    assert.match(run.stderr, /NotFound.*no kube_cluster kube_nonexistent that alice may reach/);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }

  const doors = ['ssh ticket', 'db ticket', 'ssh', 'psql', 'kubectl'];
  for (const d of doors) {
    const calls = seen.filter((s) => s.door === d);
    assert.ok(calls.length > 0, `${d} never reached the one checker: ${JSON.stringify(seen)}`);
    assert.ok(
      calls.every((c) => c.principal === 'alice'),
      `${d}: ${JSON.stringify(calls)}`,
    );
  }
  assert.deepEqual(
    doors.map((d) => seen.find((s) => s.door === d)?.kind),
    ['server', 'database', 'server', 'database', 'kube_cluster'],
  );
});
