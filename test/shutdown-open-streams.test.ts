// One SIGTERM ends everything a Gatehouse process holds open within the documented 10 s: idle sockets
// that never sent a byte (on the SSH, PostgreSQL, Kubernetes and web ports), a live `kubectl get -w`,
// an SSH session running a command and a psql session at its prompt. The process exits 0, and a new
// one starts on the same data dir (the spool lock is free) and serves.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { api } from './helpers/gatehouse.js';
import {
  type Addr,
  BOOTSTRAP_KEY,
  type GatehouseProcess,
  provisionTargets,
  startGatehouseProcess,
  type Targets,
} from './helpers/proxy-targets.js';
import { requirePostgres, through } from './helpers/psql.js';
import { requireSshd } from './helpers/sshd.js';
import { until } from './helpers/until.js';

const idle = (addr: Addr, count: number): Socket[] =>
  Array.from({ length: count }, () => {
    const s = connect(addr.port, addr.host);
    s.on('error', () => {});
    s.resume();
    return s;
  });

if (requireSshd('shutdown with open streams') && requirePostgres('shutdown with open streams')) {
  describe('SIGTERM with streams and sockets open on every door', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-shutdown-'));
    let gh: GatehouseProcess;
    let targets: Targets;
    const cleanups: Array<() => unknown> = [];

    before(async () => {
      gh = await startGatehouseProcess({ GATEHOUSE_DATA_DIR: dataDir });
      targets = await provisionTargets({ url: gh.authUrl });
    });

    after(async () => {
      for (const cleanup of cleanups) await cleanup();
      gh?.child.kill('SIGKILL');
      await targets?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    test('the process exits 0 within 10 s, and a restart on the same data dir serves', async () => {
      const web = new URL(gh.webUrl);
      const sockets = [
        ...idle(gh.ssh, 5),
        ...idle(gh.db, 5),
        ...idle(gh.kube, 5),
        ...idle({ host: web.hostname, port: Number(web.port) }, 5),
      ];
      cleanups.push(() => {
        for (const s of sockets) s.destroy();
      });

      // A live watch through the Kubernetes proxy.
      let watched = '';
      const watch = targets.kubectl(['get', 'pods', '-n', 'default', '-w', '-o', 'name'], (s) => {
        watched = s;
      });
      cleanups.push(() => watch.kill());
      await until('the watch to list', async () => (watched.includes('pod/web-1') ? true : undefined), 30_000);
      assert.equal(targets.fake.openWatches(), 1);

      // An SSH session running a command that would last ten minutes.
      let sshSaid = '';
      const ssh = targets.ssh(gh.ssh.port, 'echo started; sleep 600', (s) => {
        sshSaid = s;
      });
      await until('the SSH command to start', async () => (sshSaid.includes('started') ? true : undefined), 30_000);
      // A psql session at its prompt, stdin held open.
      const psql = spawn('psql', ['-X', through(gh.db.port, 'postgres', 'pg', 'test')], {
        env: { PATH: process.env.PATH ?? '', PGPASSWORD: targets.token },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      cleanups.push(() => psql.kill('SIGKILL'));
      psql.stdin.write('select 40 + 2 as answer;\n');
      let psqlSaid = '';
      psql.stdout.on('data', (d) => {
        psqlSaid += d;
      });
      psql.stderr.on('data', (d) => {
        psqlSaid += d;
      });
      await until('psql to answer', async () => (psqlSaid.includes('42') ? true : undefined), 30_000);
      const admin = (await api(gh.authUrl, 'POST', '/v1/auth/token', { body: { api_key: BOOTSTRAP_KEY } })).json
        .access_token as string;
      await until(
        'the SSH and psql sessions to be live',
        async () => {
          const live = await api(gh.authUrl, 'GET', '/v1/sessions?status=active', { token: admin });
          return (live.json.sessions as unknown[]).length >= 2 ? true : undefined;
        },
        30_000,
      );

      const signalled = Date.now();
      gh.child.kill('SIGTERM');
      const code = await Promise.race([
        gh.exited,
        new Promise<'still running'>((r) => setTimeout(() => r('still running'), 15_000)),
      ]);
      const tookMs = Date.now() - signalled;
      console.log(`# exited ${code} ${tookMs} ms after SIGTERM`);
      assert.notEqual(code, 'still running', `still running 15 s after SIGTERM:\n${gh.output()}`);
      assert.equal(code, 0, gh.output());
      assert.ok(tookMs < 10_000, `exited ${tookMs} ms after SIGTERM:\n${gh.output()}`);

      // Every client saw its connection end.
      const [sshRun, watchRun] = await Promise.all([ssh, watch]);
      assert.match(sshRun.stdout, /started/, sshRun.stderr);
      assert.notEqual(watchRun.code, null);
      // psql at its prompt learns it on its next statement: its connection is gone.
      psql.stdin.end('select 1;\n');
      await until('psql to exit', async () => (psql.exitCode !== null ? true : undefined), 5000);
      assert.match(psqlSaid, /terminating connection|server closed the connection|connection to server was lost/);
      await until('the idle sockets to be closed', async () => (sockets.every((s) => s.closed) ? true : undefined));

      const again = await startGatehouseProcess({ GATEHOUSE_DATA_DIR: dataDir });
      cleanups.push(() => again.child.kill('SIGKILL'));
      const ran = await targets.ssh(again.ssh.port, 'echo again-$((6*7))');
      assert.equal(ran.stdout, 'again-42\n', ran.stderr);
      const sql = await targets.psql(again.db.port, 'select 42');
      assert.equal(sql.stdout.trim(), '42', sql.stderr);
    });
  });
}
