// The door kit's idle limit (proxy.session_idle_timeout), shown at the SSH door: a session with no
// bytes either way for that long is ended, the user is told why and the session record says so; a
// session that keeps talking runs past it (the positive control).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sshExec } from './helpers/ssh-client.js';
import { type SshScene, startSshScene } from './helpers/ssh-scene.js';
import { requireSshd } from './helpers/sshd.js';
import { until } from './helpers/until.js';

interface SessionRow {
  id: string;
  status: string;
  command?: string;
  end_reason?: string;
}

if (requireSshd('the idle limit at the SSH door'))
  describe('proxy.session_idle_timeout ends a silent session; one that keeps talking goes on', () => {
    let scene: SshScene;
    const ssh = (command: string) =>
      sshExec(command, {
        port: scene.gh.gatehouse.sshAddr?.port as number,
        user: `${scene.sshd.login}@idle-1`,
        password: scene.token,
      });
    const endOf = (command: string) =>
      until(`the end of the session running ${command}`, async () => {
        const list = (await scene.admin('GET', '/v1/sessions?per_page=100')).json.sessions as SessionRow[];
        const s = list.find((row) => row.command === command);
        return s && s.status !== 'active' ? s : undefined;
      });

    before(async () => {
      scene = await startSshScene(
        { 'proxy.session_idle_timeout': '2s' },
        { server: 'idle-1', role: 'ssh-idle', user: 'idler' },
      );
    });
    after(async () => {
      await scene?.stop();
    });

    test('an exec silent for longer than the limit is ended and told why', async () => {
      const command = 'sleep 10; echo too-late';
      const started = Date.now();
      const run = await ssh(command);
      const took = Date.now() - started;
      assert.ok(took < 8_000, `the session lasted ${took} ms: the 2 s idle limit was not applied`);
      assert.doesNotMatch(run.stdout, /too-late/);
      assert.notEqual(run.code, 0);
      assert.match(run.stderr, /idle too long/);
      const s = await endOf(command);
      assert.equal(s.status, 'terminated');
      assert.match(s.end_reason ?? '', /idle too long/);
    });

    test('control: an exec that prints every second runs past the limit to its end', async () => {
      const command = 'for i in 1 2 3 4 5; do echo tick; sleep 1; done; echo done';
      const run = await ssh(command);
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, /done\n$/);
      const s = await endOf(command);
      assert.notEqual(s.status, 'terminated', s.end_reason);
    });
  });
