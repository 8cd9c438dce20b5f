// The SSH proxy end to end with real parts: a real sshd as the target, the real OpenSSH client through
// Gatehouse, real recordings played by asciinema. Checks what a user sees (output, exit codes,
// messages), the session rows, the audit events and the recorded bytes.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { asciinemaCat } from './helpers/asciinema.js';
import { api, startTestServer, type TestServer } from './helpers/gatehouse.js';
import { generateClientKey, type SshClientOptions, sshExec } from './helpers/ssh-client.js';
import { requireSshd, type Sshd, startSshd } from './helpers/sshd.js';
import { until } from './helpers/until.js';

interface Event {
  type: string;
  actor: { kind: string; name?: string };
  data: Record<string, unknown>;
}
interface SessionRow {
  id: string;
  command?: string;
  bytes_out: number;
}

if (requireSshd('SSH proxy')) {
  describe('SSH proxy with a real sshd and OpenSSH client', () => {
    let gh: TestServer;
    let sshd: Sshd;
    let dir: string;
    let aliceKey: string;
    let bobKey: string;
    let serverId: string;
    let login: string;
    let aliceId: string;

    const as = (identityFile: string, user: string, extra: Partial<SshClientOptions> = {}): SshClientOptions => ({
      port: gh.gatehouse.sshAddr?.port as number,
      user,
      identityFile,
      timeoutMs: 30_000,
      ...extra,
    });
    const events = async (type: string, extra = '') =>
      (await api(gh.url, 'GET', `/v1/events?type=${type}&per_page=100${extra}`, { token: gh.adminToken })).json
        .events as Array<Event>;

    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'gh-ssh-proxy-'));
      sshd = await startSshd();
      login = sshd.login;
      gh = await startTestServer();
      const admin = { token: gh.adminToken };
      const srv = await api(gh.url, 'POST', '/v1/resources', {
        ...admin,
        body: { kind: 'server', name: 'web-1', address: `127.0.0.1:${sshd.port}`, labels: { env: 'dev' } },
      });
      assert.equal(srv.status, 201, srv.text);
      serverId = srv.json.id;
      sshd.authorize(srv.json.ssh_public_key);
      const role = await api(gh.url, 'POST', '/v1/roles', {
        ...admin,
        body: {
          name: 'dev-ssh',
          allow: {
            resources: [{ kinds: ['server'], labels: { env: 'dev' } }],
            logins: [login],
            rules: [{ resources: ['sessions'], verbs: ['list', 'read', 'create'] }],
          },
        },
      });
      assert.equal(role.status, 201, role.text);
      const alice = await api(gh.url, 'POST', '/v1/users', { ...admin, body: { name: 'alice', roles: ['dev-ssh'] } });
      assert.equal(alice.status, 201, alice.text);
      aliceId = alice.json.id;
      const bob = await api(gh.url, 'POST', '/v1/users', { ...admin, body: { name: 'bob', roles: [] } });
      const a = await generateClientKey(dir);
      const b = await generateClientKey(dir);
      aliceKey = a.privatePath;
      bobKey = b.privatePath;
      for (const [id, line] of [
        [alice.json.id, a.publicLine],
        [bob.json.id, b.publicLine],
      ]) {
        const k = await api(gh.url, 'POST', `/v1/users/${id}/ssh-keys`, { ...admin, body: { public_key: line } });
        assert.equal(k.status, 201, k.text);
      }
    });

    after(async () => {
      await gh?.stop();
      await sshd?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    test('exec through the proxy: output, stderr and exit status reach the user; the session is recorded', async () => {
      const run = await sshExec('echo hello from $(whoami); echo oops >&2; exit 3', as(aliceKey, `${login}@web-1`));
      assert.equal(run.stdout, `hello from ${login}\n`, run.stderr);
      assert.match(run.stderr, /oops/);
      assert.equal(run.code, 3);

      const list = await api(gh.url, 'GET', '/v1/sessions?server=web-1&type=exec', { token: gh.adminToken });
      assert.equal(list.status, 200);
      const s = list.json.sessions[0];
      assert.equal(s.principal.name, 'alice');
      assert.equal(s.login, login);
      assert.equal(s.resource.id, serverId);
      assert.equal(s.command, 'echo hello from $(whoami); echo oops >&2; exit 3');
      const ended = await until('the session end', async () => {
        const r = await api(gh.url, 'GET', `/v1/sessions/${s.id}`, { token: gh.adminToken });
        return r.json.status === 'ended' && r.json.recording.status === 'uploaded' ? r.json : undefined;
      });
      assert.equal(ended.exit_code, 3);
      assert.ok(ended.bytes_out >= `hello from ${login}\noops\n`.length, JSON.stringify(ended));

      const cast = await api(gh.url, 'GET', `/v1/sessions/${s.id}/recording`, { token: gh.adminToken });
      assert.equal(cast.status, 200);
      assert.equal(cast.headers.get('content-type'), 'application/x-asciicast');
      const [header, ...lines] = cast.text.trim().split('\n');
      assert.equal(JSON.parse(header as string).version, 2);
      const output = lines
        .map((l) => JSON.parse(l))
        .filter((e) => e[1] === 'o')
        .map((e) => e[2])
        .join('');
      assert.match(output, new RegExp(`hello from ${login}`));
      assert.match(output, /oops/);

      const text = await api(gh.url, 'GET', `/v1/sessions/${s.id}/recording?format=text`, { token: gh.adminToken });
      assert.equal(text.status, 200);
      assert.match(text.headers.get('content-type') ?? '', /^text\/plain/);
      assert.match(text.text, new RegExp(`hello from ${login}`));

      const types = (await events('session.*', `&session_id=${s.id}`)).map((e) => e.type).sort();
      assert.deepEqual(types, ['session.command', 'session.end', 'session.start']);
      const read = await events('recording.read', `&session_id=${s.id}`);
      assert.equal(read.length, 2);
    });

    test('a large output reaches the user whole, however fast the target closes', async () => {
      // 16 MiB in one go: far more than the SSH windows hold, so most of it is still queued in the
      // proxy when the target's channel closes.
      const run = await sshExec('head -c 16777216 /dev/zero | tr "\\0" x', as(aliceKey, `${login}@web-1`));
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout.length, 16 * 1024 * 1024);
    });

    test('a PTY shell: scripted input, window size, output recorded and played by asciinema cat', async () => {
      const run = await sshExec(undefined, {
        ...as(aliceKey, `${login}@web-1`, { tty: true }),
        stdin: 'stty size; echo marker-$((6*7)); exit 0\n',
      });
      assert.match(run.stdout, /marker-42/, run.stderr);
      assert.equal(run.code, 0);
      const list = await api(gh.url, 'GET', '/v1/sessions?type=shell', { token: gh.adminToken });
      const id = list.json.sessions[0].id as string;
      await until('the upload', async () => {
        const r = await api(gh.url, 'GET', `/v1/sessions/${id}`, { token: gh.adminToken });
        return r.json.recording.status === 'uploaded' ? true : undefined;
      });
      const cast = await api(gh.url, 'GET', `/v1/sessions/${id}/recording`, { token: gh.adminToken });
      const file = join(dir, `${id}.cast`);
      writeFileSync(file, cast.text);
      const played = asciinemaCat(file);
      assert.equal(played.status, 0);
      assert.match(played.stdout, /marker-42/);
      // The recording is what the user saw: the same lines, in the same order.
      const seen = run.stdout.replace(/\r/g, '');
      const replayed = played.stdout.replace(/\r/g, '');
      assert.ok(replayed.includes(seen.trim().split('\n').slice(-2).join('\n')), `${seen}\n---\n${replayed}`);
    });

    test('RBAC: a login the role does not allow, and a user without the role, are refused with a reason', async () => {
      const wrongLogin = await sshExec('true', as(aliceKey, 'nobody-else@web-1'));
      assert.notEqual(wrongLogin.code, 0);
      assert.match(wrongLogin.stderr, /login nobody-else is not allowed on web-1/);
      const noRole = await sshExec('true', as(bobKey, `${login}@web-1`));
      assert.notEqual(noRole.code, 0);
      assert.match(noRole.stderr, /no server named web-1 that bob may reach/);
      const unknownServer = await sshExec('true', as(aliceKey, `${login}@nope`));
      assert.match(unknownServer.stderr, /no server named nope/);
      const rejected = await events('session.rejected');
      assert.ok(rejected.some((e) => e.actor.name === 'bob' && /may reach/.test(String(e.data.reason))));
      assert.ok(rejected.some((e) => e.actor.name === 'alice' && e.data.login === 'nobody-else'));
      // Positive control: the same key, the allowed login.
      const ok = await sshExec('echo ok', as(aliceKey, `${login}@web-1`));
      assert.equal(ok.stdout, 'ok\n');
    });

    test('an unknown key is refused before anything else', async () => {
      const stranger = await generateClientKey(dir);
      const run = await sshExec('true', as(stranger.privatePath, `${login}@web-1`));
      assert.equal(run.code, 255);
      assert.match(run.stderr, /Permission denied/);
      await until('the rejection event', async () =>
        (await events('session.rejected')).some((e) => e.data.reason === 'authentication failed') ? true : undefined,
      );
    });

    test('an access token as the password (keyboard-interactive), and a one-time ticket', async () => {
      const k = await api(gh.url, 'POST', `/v1/users/${aliceId}/api-keys`, {
        token: gh.adminToken,
        body: { name: 'ssh' },
      });
      const t = await api(gh.url, 'POST', '/v1/auth/token', { body: { api_key: k.json.api_key } });
      const token = t.json.access_token as string;
      const viaToken = await sshExec('echo token-ok', {
        port: gh.gatehouse.sshAddr?.port as number,
        user: `${login}@web-1`,
        password: token,
      });
      assert.equal(viaToken.stdout, 'token-ok\n', viaToken.stderr);

      const bad = await sshExec('true', {
        port: gh.gatehouse.sshAddr?.port as number,
        user: `${login}@web-1`,
        password: 'gha_not-a-real-token',
      });
      assert.equal(bad.code, 255);

      const ticket = await api(gh.url, 'POST', '/v1/sessions', { token, body: { server: 'web-1', login } });
      assert.equal(ticket.status, 201, ticket.text);
      assert.equal(ticket.json.proxy.port, gh.gatehouse.sshAddr?.port);
      assert.equal(ticket.json.ssh_username, `${login}@web-1`);
      assert.match(ticket.json.ssh_command, /^ssh -p \d+ -l '.+@web-1' 127\.0\.0\.1$/);
      const opts = { port: gh.gatehouse.sshAddr?.port as number, user: `${login}@web-1`, password: ticket.json.ticket };
      const first = await sshExec('echo ticket-ok', opts);
      assert.equal(first.stdout, 'ticket-ok\n', first.stderr);
      const second = await sshExec('echo again', opts);
      assert.equal(second.code, 255, 'a ticket works once');

      const refused = await api(gh.url, 'POST', '/v1/sessions', { token, body: { server: 'web-1', login: 'root2' } });
      assert.equal(refused.status, 403);
      const hidden = await api(gh.url, 'POST', '/v1/sessions', { token, body: { server: 'nope', login } });
      assert.equal(hidden.status, 404);
    });

    test('DELETE /v1/sessions/{id} ends a live session: the user is told, the recording is closed', async () => {
      const running = sshExec('echo started; sleep 30; echo never', as(aliceKey, `${login}@web-1`));
      const id = await until('the live session', async () => {
        const r = await api(gh.url, 'GET', '/v1/sessions?status=active', { token: gh.adminToken });
        // Live counters: the session has sent its first line once bytes_out moves.
        const s = (r.json.sessions as SessionRow[]).find((x) => x.command?.includes('sleep 30'));
        return s && s.bytes_out > 0 ? s.id : undefined;
      });
      const live = await api(gh.url, 'GET', `/v1/sessions/${id}/recording`, { token: gh.adminToken });
      assert.equal(live.status, 409);
      assert.equal(live.json.code, 'recording_not_ready');
      const del = await api(gh.url, 'DELETE', `/v1/sessions/${id}`, { token: gh.adminToken });
      assert.equal(del.status, 200, del.text);
      assert.equal(del.json.status, 'terminated');
      const run = await running;
      assert.match(run.stdout, /started/);
      assert.doesNotMatch(run.stdout, /never/);
      assert.match(run.stderr, /session terminated \(terminated by admin\)/);
      const again = await api(gh.url, 'DELETE', `/v1/sessions/${id}`, { token: gh.adminToken });
      assert.equal(again.status, 409);
      const done = await until('the upload', async () => {
        const r = await api(gh.url, 'GET', `/v1/sessions/${id}`, { token: gh.adminToken });
        return r.json.recording.status === 'uploaded' ? r.json : undefined;
      });
      assert.equal(done.status, 'terminated');
      assert.equal(done.end_reason, 'terminated by admin');
      const cast = await api(gh.url, 'GET', `/v1/sessions/${id}/recording?format=text`, { token: gh.adminToken });
      assert.match(cast.text, /started/);
      const terminated = await events('session.terminated', `&session_id=${id}`);
      assert.equal(terminated.length, 1);
      assert.equal(terminated[0]?.actor.name, 'admin');
    });

    test('port forwarding is refused unless a role allows it', async () => {
      const run = await sshExec('true', {
        ...as(aliceKey, `${login}@web-1`),
        extraArgs: ['-o', 'ExitOnForwardFailure=yes', '-W', `127.0.0.1:${sshd.port}`],
      });
      assert.notEqual(run.code, 0);
      // The refusal's event is written as the channel is refused; the client may exit first.
      await until('the session.rejected event', async () =>
        (await events('session.rejected')).some((e) => /port forwarding/.test(String(e.data.reason)))
          ? true
          : undefined,
      );
    });

    test('sessions API: 404 for an unknown id, own sessions only without recordings:read', async () => {
      const missing = await api(gh.url, 'GET', '/v1/sessions/sess_00000000000000000000000000', {
        token: gh.adminToken,
      });
      assert.equal(missing.status, 404);
      const rec = await api(gh.url, 'GET', '/v1/sessions/sess_00000000000000000000000000/recording', {
        token: gh.adminToken,
      });
      assert.equal(rec.status, 404);
    });
  });
}
