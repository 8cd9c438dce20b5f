// Live sessions do not outlive what allowed them: with a real sshd, OpenSSH client and psql, a session
// ends within about a second of its SSH key's deletion, its token's revocation (the one it logged in
// with, or the one its ticket was asked with) or its user's role removal — and a session whose
// roles changed but still allow it goes on (the positive controls).
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import ssh2 from 'ssh2';
import { createDbRole, registerPostgres } from './helpers/db-resource.js';
import { api, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';
import { psql, requirePostgres, through } from './helpers/psql.js';
import { generateClientKey, type SshRun, sshExec } from './helpers/ssh-client.js';
import { registerSshdServer, requireSshd, type Sshd, startSshd } from './helpers/sshd.js';
import { until } from './helpers/until.js';

interface SessionRow {
  id: string;
  status: string;
  end_reason?: string;
  principal: { id: string };
}

/** Waits for the one active session of a principal (polling, a running client meanwhile). */
const liveSessionOf = (gh: TestServer, principalId: string) =>
  until(`a live session of ${principalId}`, async () => {
    const list = await api(gh.url, 'GET', `/v1/sessions?status=active&principal=${principalId}`, {
      token: gh.adminToken,
    });
    return (list.json.sessions as SessionRow[])[0];
  });

/** Milliseconds from now until the session's record says terminated (polled every 50 ms). */
async function msUntilTerminated(gh: TestServer, id: string, since: number): Promise<number> {
  await until(`session ${id} to be terminated`, async () => {
    const s = (await api(gh.url, 'GET', `/v1/sessions/${id}`, { token: gh.adminToken })).json as SessionRow;
    return s.status === 'terminated' ? true : undefined;
  });
  return Date.now() - since;
}

async function terminatedEvent(gh: TestServer, id: string) {
  const events = (
    await api(gh.url, 'GET', `/v1/events?type=session.terminated&session_id=${id}`, { token: gh.adminToken })
  ).json.events;
  assert.equal(events.length, 1, JSON.stringify(events));
  return events[0] as { actor: { kind: string; name: string }; data: { reason: string; detail: string } };
}

if (requireSshd('live sessions re-checked')) {
  describe('SSH sessions end with what allowed them', () => {
    let gh: TestServer;
    let sshd: Sshd;
    let dir: string;
    const admin = (method: string, path: string, body?: unknown) =>
      api(gh.url, method, path, { token: gh.adminToken, ...(body !== undefined ? { body } : {}) });
    const port = () => gh.gatehouse.sshAddr?.port as number;
    const sshAs = (auth: { identityFile: string } | { password: string }, command: string): Promise<SshRun> =>
      sshExec(command, { port: port(), user: `${sshd.login}@web-1`, timeoutMs: 30_000, ...auth });

    /** A user with the SSH role and a registered key of its own. */
    async function keyedUser(name: string, roles = ['ssh-dev']) {
      const user = await userWithRoles(gh, name, roles);
      const key = await generateClientKey(dir);
      const added = await admin('POST', `/v1/users/${user.id}/ssh-keys`, { public_key: key.publicLine });
      assert.equal(added.status, 201, added.text);
      return { ...user, keyId: added.json.id as string, keyPath: key.privatePath };
    }

    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'gatehouse-recheck-'));
      sshd = await startSshd();
      gh = await startTestServer({ 'login_throttle.max_failures': 100_000 });
      await registerSshdServer(admin, sshd, 'web-1', { env: 'dev' });
      for (const name of ['ssh-dev', 'ssh-dev-too']) {
        const role = await admin('POST', '/v1/roles', {
          name,
          allow: {
            resources: [{ kinds: ['server'], labels: { env: 'dev' } }],
            logins: [sshd.login],
            rules: [{ resources: ['sessions'], verbs: ['create', 'list', 'read'] }],
          },
        });
        assert.equal(role.status, 201, role.text);
      }
    });
    after(async () => {
      await gh?.stop();
      await sshd?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    test('deleting the SSH key ends the session it opened within a second; another key holder goes on', async () => {
      const alice = await keyedUser('alice');
      const bob = await keyedUser('bob');
      const doomed = sshAs({ identityFile: alice.keyPath }, 'echo started; sleep 30; echo never');
      const control = sshAs({ identityFile: bob.keyPath }, 'sleep 3; echo control-finished');
      const session = await liveSessionOf(gh, alice.id);
      await liveSessionOf(gh, bob.id);
      const shown = (await admin('GET', `/v1/sessions/${session.id}`)).json;
      assert.equal(shown.origin, undefined, 'what opened a session (token and key ids) is never answered');

      const deleted = await admin('DELETE', `/v1/users/${alice.id}/ssh-keys/${alice.keyId}`);
      assert.equal(deleted.status, 204, deleted.text);
      const since = Date.now();
      assert.ok((await msUntilTerminated(gh, session.id, since)) <= 1000, 'terminated within a second');
      const run = await doomed;
      assert.doesNotMatch(run.stdout, /never/);
      assert.match(run.stderr, /session terminated \(token_revoked\)/);
      const event = await terminatedEvent(gh, session.id);
      assert.equal(event.data.reason, 'token_revoked');
      assert.match(event.data.detail, /SSH key was removed/);
      assert.equal(event.actor.name, 'access-recheck');

      const ok = await control;
      assert.equal(ok.code, 0, ok.stderr);
      assert.match(ok.stdout, /control-finished/, "positive control: bob's session went on");
    });

    test('a connection that lost its key opens no new session on the same connection', async () => {
      const carol = await keyedUser('carol');
      const client = new ssh2.Client();
      await new Promise<void>((resolve, reject) => {
        client.once('ready', () => resolve()).once('error', reject);
        client.connect({
          host: '127.0.0.1',
          port: port(),
          username: `${sshd.login}@web-1`,
          privateKey: readFileSync(carol.keyPath),
        });
      });
      const exec = (command: string) =>
        new Promise<{ out: string; err: string; code: number | null }>((resolve, reject) => {
          client.exec(command, (error, channel) => {
            if (error) return reject(error);
            let out = '';
            let err = '';
            let code: number | null = null;
            channel.on('data', (d: Buffer) => {
              out += d;
            });
            channel.stderr.on('data', (d: Buffer) => {
              err += d;
            });
            channel.on('exit', (c: number | null) => {
              code = c;
            });
            channel.on('close', () => resolve({ out, err, code }));
          });
        });
      try {
        const first = await exec('echo first-channel');
        assert.match(first.out, /first-channel/, 'positive control: the key works before its deletion');
        assert.equal((await admin('DELETE', `/v1/users/${carol.id}/ssh-keys/${carol.keyId}`)).status, 204);
        const second = await exec('echo second-channel');
        assert.doesNotMatch(second.out, /second-channel/);
        assert.match(second.err, /SSH key was removed/);
      } finally {
        client.end();
      }
    });

    test("revoking the token a session logged in with, or its ticket's token, ends it; changed roles that still allow go on", async () => {
      const dave = await userWithRoles(gh, 'dave', ['ssh-dev']);
      const erin = await userWithRoles(gh, 'erin', ['ssh-dev']);
      const frank = await userWithRoles(gh, 'frank', ['ssh-dev']);
      const ticket = await api(gh.url, 'POST', '/v1/sessions', {
        token: erin.token,
        body: { server: 'web-1', login: sshd.login },
      });
      assert.equal(ticket.status, 201, ticket.text);
      const byToken = sshAs({ password: dave.token }, 'sleep 30; echo never');
      const byTicket = sshAs({ password: ticket.json.ticket }, 'sleep 30; echo never');
      const control = sshAs({ password: frank.token }, 'sleep 3; echo control-finished');
      const [d, e] = [await liveSessionOf(gh, dave.id), await liveSessionOf(gh, erin.id)];
      await liveSessionOf(gh, frank.id);

      // frank's roles change, and still allow the session.
      const changed = await admin('PATCH', `/v1/users/${frank.id}`, { roles: ['ssh-dev-too'] });
      assert.equal(changed.status, 200, changed.text);
      assert.equal((await api(gh.url, 'DELETE', '/v1/auth/revoke', { token: dave.token })).status, 200);
      assert.equal((await api(gh.url, 'DELETE', '/v1/auth/revoke', { token: erin.token })).status, 200);
      const since = Date.now();
      assert.ok((await msUntilTerminated(gh, d.id, since)) <= 1000);
      assert.ok((await msUntilTerminated(gh, e.id, since)) <= 1000);
      for (const run of [await byToken, await byTicket]) assert.doesNotMatch(run.stdout, /never/);
      assert.equal((await terminatedEvent(gh, e.id)).data.reason, 'token_revoked');

      const ok = await control;
      assert.equal(ok.code, 0, ok.stderr);
      assert.match(ok.stdout, /control-finished/, "positive control: frank's roles changed but still allow it");
    });
  });
}

if (requirePostgres('live sessions re-checked')) {
  describe('psql sessions end with what allowed them', () => {
    let gh: TestServer;
    const admin = (method: string, path: string, body?: unknown) =>
      api(gh.url, method, path, { token: gh.adminToken, ...(body !== undefined ? { body } : {}) });

    before(async () => {
      gh = await startTestServer({ 'login_throttle.max_failures': 100_000 });
      await registerPostgres(gh, { labels: { env: 'dev' } });
      await createDbRole(gh, 'db-dev', { labels: { env: 'dev' } });
      await createDbRole(gh, 'db-dev-too', { labels: { env: 'dev' } });
    });
    after(async () => {
      await gh?.stop();
    });

    test("removing the user's role ends the psql session; a role change that still allows it goes on", async () => {
      const gina = await userWithRoles(gh, 'gina', ['db-dev']);
      const hank = await userWithRoles(gh, 'hank', ['db-dev']);
      const port = gh.gatehouse.dbAddr?.port as number;
      const doomed = psql(through(port, 'postgres', 'pg', 'test'), gina.token, ['-c', "select pg_sleep(30), 'never'"]);
      const control = psql(through(port, 'postgres', 'pg', 'test'), hank.token, [
        '-tA',
        '-c',
        "select pg_sleep(3), 'control-finished'",
      ]);
      const session = await liveSessionOf(gh, gina.id);
      await liveSessionOf(gh, hank.id);

      assert.equal((await admin('PATCH', `/v1/users/${hank.id}`, { roles: ['db-dev-too'] })).status, 200);
      const removed = await admin('PATCH', `/v1/users/${gina.id}`, { roles: ['auditor'] });
      assert.equal(removed.status, 200, removed.text);
      const since = Date.now();
      assert.ok((await msUntilTerminated(gh, session.id, since)) <= 1000, 'terminated within a second');
      const run = await doomed;
      assert.notEqual(run.code, 0);
      assert.doesNotMatch(run.stdout, /never/);
      const event = await terminatedEvent(gh, session.id);
      assert.equal(event.data.reason, 'access_revoked');

      const ok = await control;
      assert.equal(ok.code, 0, ok.stderr);
      assert.match(ok.stdout, /control-finished/, "positive control: hank's new role still allows it");
    });
  });
}
