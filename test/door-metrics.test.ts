// What an operator sees of the doors comes from the door kit, the same for every door: after an ssh
// exec, a psql session and a kubectl exec, GET /metrics has each kind's session_duration_seconds and
// its live_sessions gauge back at 0, statements and Kubernetes requests counted, every proxy
// listener in active_connections, and a refused login counted as a denial; the process log has one
// info line per session start and end (principal, resource, kind) and per refusal, and never the
// command or the query text.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import pino from 'pino';
import { registerPostgres } from './helpers/db-resource.js';
import { type FakeKube, startFakeKube } from './helpers/fake-kube-apiserver.js';
import { kubectl } from './helpers/fake-kube-apiserver-kubectl.js';
import { startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';
import { kubeClusterClient, SEE } from './helpers/kube-cluster.js';
import { psql, requirePostgres, through } from './helpers/psql.js';
import { sshExec } from './helpers/ssh-client.js';
import { registerSshdServer, requireSshd, type Sshd, startSshd } from './helpers/sshd.js';
import { until } from './helpers/until.js';

const COMMAND_MARK = 'cmd-text-7f3a';
const QUERY_MARK = 'query-text-9c1e';

if (requireSshd('door metrics') && requirePostgres('door metrics')) {
  let gh: TestServer;
  let sshd: Sshd;
  let fake: FakeKube;
  const lines: Array<Record<string, unknown>> = [];
  const raw: string[] = [];
  const { admin, registerCluster, kubeconfigFor, removeHome } = kubeClusterClient(() => gh, 'door-metrics-');

  before(async () => {
    sshd = await startSshd();
    fake = await startFakeKube({ rbac: { ops: '*' }, pods: [['default', 'web-1']] });
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) {
          raw.push(line);
          lines.push(JSON.parse(line) as Record<string, unknown>);
        }
        done();
      },
    });
    gh = await startTestServer({}, { logger: pino({ level: 'info', timestamp: pino.stdTimeFunctions.isoTime }, sink) });
    await registerSshdServer(admin, sshd, 'web-m', { env: 'metrics' });
    await registerPostgres(gh, { name: 'pg-m', labels: { env: 'metrics' } });
    await registerCluster(fake, 'kube-m', { labels: { env: 'metrics' } });
    const role = {
      name: 'every-door',
      allow: {
        ...SEE,
        resources: [{ kinds: ['*'], labels: { env: 'metrics' } }],
        logins: [sshd.login],
        db_users: ['postgres'],
        db_names: ['test'],
        kube_groups: ['ops'],
      },
    };
    const res = await admin('POST', '/v1/roles', role);
    assert.equal(res.status, 201, res.text);
  });

  after(async () => {
    await gh?.stop();
    await fake?.close();
    await sshd?.stop();
    removeHome();
  });

  /** The value of one sample of the exposition (0 when absent). */
  const sample = (text: string, name: string, labels: string): number => {
    const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}}`) || l.startsWith(`${name}{${labels},`));
    return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
  };
  const scrape = async () => (await fetch(`${gh.metricsUrl}/metrics`)).text();

  test('after an ssh, a psql and a kubectl session, /metrics shows each kind ended and counted; the log has their start and end, never the command or query', async () => {
    const user = await userWithRoles(gh, 'mira', ['every-door']);
    const sshPort = (gh.gatehouse.sshAddr as { port: number }).port;
    const ssh = await sshExec(`echo ${COMMAND_MARK}`, {
      port: sshPort,
      user: `${sshd.login}@web-m`,
      password: user.token,
      timeoutMs: 30_000,
    });
    assert.equal(ssh.stdout, `${COMMAND_MARK}\n`, ssh.stderr);
    const dbPort = (gh.gatehouse.dbAddr as { port: number }).port;
    const db = await psql(through(dbPort, 'postgres', 'pg-m', 'test'), user.token, [
      '-At',
      '-c',
      `select '${QUERY_MARK}'`,
    ]);
    assert.equal(db.stdout.trim(), QUERY_MARK, db.stderr);
    const kube = await kubectl(['exec', 'web-1', '--', 'echo', COMMAND_MARK], {
      ...(await kubeconfigFor(user.token, 'mira')),
      timeoutMs: 60_000,
    });
    assert.equal(kube.stdout, `${COMMAND_MARK}\n`, kube.stderr);
    // A refusal, beside the allowed twin above: a login no role gives.
    const refused = await sshExec('true', {
      port: sshPort,
      user: 'nobody@web-m',
      password: user.token,
      timeoutMs: 30_000,
    });
    assert.notEqual(refused.code, 0);

    const text = await until('every session ended in /metrics', async () => {
      const t = await scrape();
      const ended = ['ssh', 'db', 'kube'].every(
        (kind) =>
          sample(t, 'gatehouse_session_duration_seconds_count', `kind="${kind}"`) >= 1 &&
          sample(t, 'gatehouse_live_sessions', `kind="${kind}"`) === 0,
      );
      return ended ? t : undefined;
    });
    for (const kind of ['ssh', 'db', 'kube'])
      assert.match(text, new RegExp(`gatehouse_live_sessions\\{kind="${kind}"\\} 0`));
    assert.match(text, /\ngatehouse_db_statements_total [1-9]/, 'the statement counted');
    assert.match(text, /\ngatehouse_kube_requests_total\{verb="[a-z]+"\} [1-9]/, 'the exec request counted');
    assert.ok(sample(text, 'gatehouse_access_denials_total', 'door="ssh",reason="access"') >= 1, 'the refusal');
    for (const listener of ['ssh', 'db', 'kube'])
      assert.match(text, new RegExp(`gatehouse_active_connections\\{listener="${listener}"\\} \\d`));
    assert.match(text, /gatehouse_recording_upload_backlog \d/);

    await until('the end lines in the log', async () =>
      ['ssh', 'db', 'kube'].every((k) => lines.some((l) => l.msg === `${k}: session ended`)) ? true : undefined,
    );
    for (const kind of ['ssh', 'db', 'kube']) {
      for (const what of ['started', 'ended']) {
        const line = lines.find((l) => l.msg === `${kind}: session ${what}` && l.principal === 'user:mira');
        assert.ok(line, `${kind}: session ${what}`);
        assert.equal(line.level, 30, 'info');
        assert.match(String(line.resource), /^(server:web-m|database:pg-m|kube_cluster:kube-m)$/);
        assert.match(String(line.time), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/);
      }
    }
    const refusal = lines.find((l) => l.msg === 'ssh: refused' && l.principal === 'user:mira');
    assert.ok(refusal, 'the refusal is logged');
    assert.match(String(refusal.reason), /nobody/);
    const all = raw.join('\n');
    assert.ok(!all.includes(COMMAND_MARK), 'a command reached the process log');
    assert.ok(!all.includes(QUERY_MARK), 'a query reached the process log');
  });
}
