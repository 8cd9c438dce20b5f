// A person's own sessions (GET/DELETE /v1/users/me/sessions), what the profile page lists and ends
// without sessions:list or sessions:delete: only sessions whose principal is the caller (the admin,
// who may read and end everyone's on /v1/sessions, sees and ends only his own here); another person's
// session cannot be ended from her account (404, and it goes on), her own can.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { api, userWithRoles } from './helpers/gatehouse.js';
import { type SshRun, sshExec } from './helpers/ssh-client.js';
import { type SshScene, startSshScene } from './helpers/ssh-scene.js';
import { requireSshd } from './helpers/sshd.js';
import { until } from './helpers/until.js';

interface SessionRow {
  id: string;
  status: string;
  command?: string;
  bytes_out: number;
  principal: { kind: string; id: string; name: string };
}

if (requireSshd('your own sessions'))
  describe('your sessions', () => {
    let scene: SshScene;
    let bob: { token: string };
    const as = (token: string, method: string, path: string) => api(scene.gh.url, method, path, { token });
    const mine = async (token: string, query = ''): Promise<SessionRow[]> => {
      const r = await as(token, 'GET', `/v1/users/me/sessions${query}`);
      assert.equal(r.status, 200, r.text);
      return r.json.sessions;
    };
    /** A live session running `sleep` with a marker, once it has printed its first line. */
    const live = (token: string, marker: string): { id: Promise<string>; run: Promise<SshRun> } => {
      const run = sshExec(`echo started; sleep 30 # ${marker}`, {
        port: scene.gh.gatehouse.sshAddr?.port as number,
        user: `${scene.sshd.login}@mine-1`,
        password: token,
      });
      const id = until(`the live session ${marker}`, async () => {
        const r = await scene.admin('GET', '/v1/sessions?status=active');
        const s = (r.json.sessions as SessionRow[]).find((x) => x.command?.includes(marker));
        return s && s.bytes_out > 0 ? s.id : undefined;
      });
      return { id, run };
    };

    before(async () => {
      scene = await startSshScene({}, { server: 'mine-1', role: 'ssh-mine', user: 'mine-alice' });
      bob = await userWithRoles(scene.gh, 'mine-bob', ['ssh-mine']);
    });
    after(async () => {
      await scene?.stop();
    });

    test('alice sees her session and not bob’s; the admin sees only his own here', async () => {
      const a = live(scene.token, 'alice-marker');
      const b = live(bob.token, 'bob-marker');
      const [aliceId, bobId] = await Promise.all([a.id, b.id]);

      const alices = await mine(scene.token);
      assert.deepEqual(
        alices.map((s) => s.id),
        [aliceId],
      );
      assert.equal(alices[0]?.principal.name, 'mine-alice');
      assert.equal(alices[0]?.status, 'active');
      assert.deepEqual(
        (await mine(bob.token)).map((s) => s.id),
        [bobId],
      );
      assert.deepEqual(
        (await mine(scene.token, '?status=ended')).map((s) => s.id),
        [],
      );
      // The admin may read everyone's on /v1/sessions (the control), yet here sees none of theirs.
      const everyone = (await scene.admin('GET', '/v1/sessions?status=active')).json.sessions as SessionRow[];
      assert.ok(everyone.some((s) => s.id === aliceId) && everyone.some((s) => s.id === bobId));
      assert.deepEqual(
        (await mine(scene.gh.adminToken)).map((s) => s.id),
        [],
      );

      // Alice cannot end bob's (not found, as if it were not there) and it goes on.
      const tried = await as(scene.token, 'DELETE', `/v1/users/me/sessions/${bobId}`);
      assert.equal(tried.status, 404, tried.text);
      assert.equal(tried.json.code, 'not_found');
      // Nor can the admin here, who could on /v1/sessions: this route is the caller's own sessions only.
      const byAdmin = await as(scene.gh.adminToken, 'DELETE', `/v1/users/me/sessions/${bobId}`);
      assert.equal(byAdmin.status, 404, byAdmin.text);
      const bobs = await as(scene.gh.adminToken, 'GET', `/v1/sessions/${bobId}`);
      assert.equal(bobs.json.status, 'active');

      // Positive control: she ends her own; her ssh is told, and it shows as terminated.
      const ended = await as(scene.token, 'DELETE', `/v1/users/me/sessions/${aliceId}`);
      assert.equal(ended.status, 200, ended.text);
      assert.equal(ended.json.status, 'terminated');
      assert.match((await a.run).stderr, /session terminated \(terminated by mine-alice\)/);
      assert.equal((await mine(scene.token, '?status=terminated'))[0]?.id, aliceId);
      const again = await as(scene.token, 'DELETE', `/v1/users/me/sessions/${aliceId}`);
      assert.equal(again.status, 409, 'an ended session cannot be ended again');

      // Bob ends his own too (his control), leaving the scene clean.
      assert.equal((await as(bob.token, 'DELETE', `/v1/users/me/sessions/${bobId}`)).status, 200);
      await b.run;
    });

    test('a malformed id is refused (400); an agent has no profile sessions here (403)', async () => {
      assert.equal((await as(scene.token, 'DELETE', '/v1/users/me/sessions/not-a-session')).status, 400);
      const unknown = await as(scene.token, 'DELETE', `/v1/users/me/sessions/sess_${'z'.repeat(26)}`);
      assert.equal(unknown.status, 404, unknown.text);
      assert.equal((await as(scene.token, 'GET', '/v1/users/me/sessions?status=nope')).status, 400);
      const agent = await scene.admin('POST', '/v1/agents', { name: 'mine-agent', roles: ['ssh-mine'] });
      assert.equal(agent.status, 201, agent.text);
      const creds = await scene.admin('POST', `/v1/agents/${agent.json.id}/credentials`, { ttl: 600 });
      assert.equal(creds.status, 201, creds.text);
      assert.equal((await as(creds.json.access_token, 'GET', '/v1/auth/whoami')).status, 200);
      assert.equal((await as(creds.json.access_token, 'GET', '/v1/users/me/sessions')).status, 403);
    });
  });
