// The SSH proxy's policies end to end, with real parts: a real sshd as the target, the real OpenSSH
// client (ssh and sftp) through Gatehouse. sftp metadata events, host key pinning, the user-CA login
// upstream, and the role options (port_forwarding, record_input, max_session_ttl), and the agent kill
// switch on a live session. Each check has a positive control where one makes sense.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { api, startTestServer, type TestServer } from './helpers/gatehouse.js';
import { generateClientKey, type SshClientOptions, type SshRun, sshExec } from './helpers/ssh-client.js';
import { requireSshd, type Sshd, startSshd } from './helpers/sshd.js';
import { until } from './helpers/until.js';

interface Event {
  type: string;
  actor: { kind: string; id?: string; name?: string };
  session_id?: string;
  target?: { kind: string; id?: string; name?: string };
  data: Record<string, unknown>;
}
interface SessionRow {
  id: string;
  type: string;
  status: string;
  command?: string;
  principal: { kind: string; name: string };
  bytes_out: number;
  end_reason?: string;
  recording: { status: string };
}

/** OpenSSH's fingerprint of a public-key line: SHA256: and the unpadded base64 of the blob's hash. */
function fingerprint(line: string): string {
  const blob = Buffer.from(line.split(' ')[1] as string, 'base64');
  return `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
}

/**
 * Runs the real sftp client in batch mode through the proxy, with the same isolation as sshExec:
 * no config, agent or default keys, its own known_hosts. The user (login@server) goes in -o User=.
 */
function sftpBatch(opts: { port: number; user: string; identityFile: string; batch: string; dir: string }) {
  const batchFile = join(opts.dir, `batch-${randomBytes(4).toString('hex')}`);
  const knownHosts = join(opts.dir, `known_hosts-${randomBytes(4).toString('hex')}`);
  writeFileSync(batchFile, opts.batch);
  writeFileSync(knownHosts, '');
  const o = (option: string) => ['-o', option];
  const args = [
    '-b',
    batchFile,
    '-F',
    '/dev/null',
    ...o('BatchMode=yes'),
    ...o('IdentitiesOnly=yes'),
    ...o('IdentityAgent=none'),
    '-i',
    opts.identityFile,
    ...o(`UserKnownHostsFile=${knownHosts}`),
    ...o('GlobalKnownHostsFile=/dev/null'),
    ...o('StrictHostKeyChecking=accept-new'),
    ...o('LogLevel=ERROR'),
    ...o('ConnectTimeout=10'),
    ...o(`User=${opts.user}`),
    '-P',
    String(opts.port),
    '127.0.0.1',
  ];
  const env = { ...process.env };
  for (const key of ['SSH_AUTH_SOCK', 'SSH_AGENT_PID', 'SSH_ASKPASS', 'DISPLAY']) delete env[key];
  return new Promise<SshRun>((resolve, reject) => {
    const child = spawn('sftp', args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') });
    });
  });
}

if (requireSshd('SSH proxy policies')) {
  describe('SSH proxy policies with a real sshd and OpenSSH client', () => {
    let gh: TestServer;
    let sshd: Sshd;
    let dir: string;
    let login: string;
    const extraSshds: Sshd[] = [];
    const netServers: Server[] = [];
    /** Private key paths by user name. */
    const keyOf: Record<string, string> = {};

    const admin = (method: string, path: string, body?: unknown) =>
      api(gh.url, method, path, { token: gh.adminToken, ...(body !== undefined ? { body } : {}) });
    const as = (identityFile: string, user: string, extra: Partial<SshClientOptions> = {}): SshClientOptions => ({
      port: gh.gatehouse.sshAddr?.port as number,
      user,
      identityFile,
      timeoutMs: 30_000,
      ...extra,
    });
    const events = async (type: string, extra = '') =>
      (await admin('GET', `/v1/events?type=${type}&per_page=100${extra}`)).json.events as Array<Event>;
    const sessionsWhere = async (query: string) =>
      (await admin('GET', `/v1/sessions?per_page=100&${query}`)).json.sessions as SessionRow[];
    const session = async (id: string) => (await admin('GET', `/v1/sessions/${id}`)).json as SessionRow;

    async function addServer(name: string, port: number): Promise<{ id: string; publicKey: string }> {
      const srv = await admin('POST', '/v1/resources', {
        kind: 'server',
        name,
        address: `127.0.0.1:${port}`,
        labels: { env: 'dev' },
      });
      assert.equal(srv.status, 201, srv.text);
      return { id: srv.json.id, publicKey: srv.json.ssh_public_key };
    }
    async function addUser(name: string, roles: string[]): Promise<string> {
      const user = await admin('POST', '/v1/users', { name, roles });
      assert.equal(user.status, 201, user.text);
      const key = await generateClientKey(dir);
      const k = await admin('POST', `/v1/users/${user.json.id}/ssh-keys`, { public_key: key.publicLine });
      assert.equal(k.status, 201, k.text);
      keyOf[name] = key.privatePath;
      return user.json.id;
    }
    async function addRole(name: string, options: Record<string, unknown>): Promise<void> {
      const role = await admin('POST', '/v1/roles', { name, allow: {}, options });
      assert.equal(role.status, 201, role.text);
    }
    /** The newest session of a principal with this command, once it exists. */
    const sessionOf = (principal: string, command: string, status?: string) =>
      until(`the session of ${principal}`, async () =>
        (await sessionsWhere(`principal=${principal}${status ? `&status=${status}` : ''}`)).find(
          (s) => s.command === command,
        ),
      );

    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'gh-ssh-policy-'));
      sshd = await startSshd({ allowTcpForwarding: true });
      login = sshd.login;
      gh = await startTestServer();
      const web = await addServer('web-1', sshd.port);
      sshd.authorize(web.publicKey);
      const role = await admin('POST', '/v1/roles', {
        name: 'dev-ssh',
        allow: {
          resources: [{ kinds: ['server'], labels: { env: 'dev' } }],
          logins: [login],
          rules: [{ resources: ['sessions'], verbs: ['list', 'read', 'create'] }],
        },
      });
      assert.equal(role.status, 201, role.text);
      await addRole('forwarder', { port_forwarding: true });
      await addRole('input-recorded', { record_input: true });
      await addRole('short-lived', { max_session_ttl: '2s' });
      await addUser('alice', ['dev-ssh']);
      await addUser('carol', ['dev-ssh', 'forwarder']);
      await addUser('dave', ['dev-ssh', 'input-recorded']);
      await addUser('erin', ['dev-ssh', 'short-lived']);
    });

    after(async () => {
      await gh?.stop();
      await sshd?.stop();
      for (const s of extraSshds) await s.stop();
      for (const n of netServers) n.close();
      rmSync(dir, { recursive: true, force: true });
    });

    test('sftp: a 100 KiB file goes up and comes back; transfers are events with paths and sizes, never contents', async () => {
      const remoteDir = mkdtempSync(join(tmpdir(), 'gh-sftp-remote-'));
      try {
        // Recognisable content: a marker that must not show up in any event.
        const marker = `sftp-secret-content-${randomBytes(6).toString('hex')}`;
        const size = 100 * 1024;
        const content = Buffer.alloc(size);
        const block = Buffer.from(`${marker}\n`);
        for (let pos = 0; pos < size; pos += block.length) block.copy(content, pos);
        const local = join(dir, 'upload.bin');
        const back = join(dir, 'download.bin');
        writeFileSync(local, content);
        const remote = join(remoteDir, 'file.bin');
        const run = await sftpBatch({
          port: gh.gatehouse.sshAddr?.port as number,
          user: `${login}@web-1`,
          identityFile: keyOf.alice as string,
          batch: `put ${local} ${remote}\nget ${remote} ${back}\n`,
          dir,
        });
        assert.equal(run.code, 0, `sftp failed: ${run.stderr}`);
        assert.ok(readFileSync(remote).equals(content), 'the target holds the uploaded bytes');
        assert.ok(readFileSync(back).equals(content), 'the bytes came back unchanged');

        const s = await until('the ended sftp session', async () => {
          const found = (await sessionsWhere('principal=alice&type=subsystem'))[0];
          return found && found.status !== 'active' ? found : undefined;
        });
        assert.equal(s.type, 'subsystem');
        assert.equal(s.command, 'sftp');
        assert.equal(s.status, 'ended');
        assert.equal(s.recording.status, 'none');

        const transfers = await until('both transfer events', async () => {
          const found = (await events('session.file_transfer', `&session_id=${s.id}`)).filter(
            (e) => e.data.path === remote,
          );
          return found.length >= 2 ? found : undefined;
        });
        const written = transfers.filter((e) => e.data.bytes_written === size);
        const read = transfers.filter((e) => e.data.bytes_read === size);
        assert.equal(written.length, 1, JSON.stringify(transfers));
        assert.equal(written[0]?.data.bytes_read, 0);
        assert.equal(read.length, 1, JSON.stringify(transfers));
        assert.equal(read[0]?.data.bytes_written, 0);
        assert.equal(written[0]?.actor.name, 'alice');
        const all = JSON.stringify(await events('session.*', `&session_id=${s.id}`));
        assert.doesNotMatch(all, new RegExp(marker));
        assert.ok(!all.includes(content.subarray(0, 48).toString('base64')), 'no base64 of the contents');
        assert.ok(!all.includes(content.subarray(0, 48).toString('hex')), 'no hex of the contents');
      } finally {
        rmSync(remoteDir, { recursive: true, force: true });
      }
    });

    test('host key pinning: pinned on first use; a changed key refuses the connection until the pin is reset', async () => {
      const first = await startSshd();
      extraSshds.push(first);
      const srv = await addServer('pin-1', first.port);
      first.authorize(srv.publicKey);

      const ok = await sshExec('echo pinned-ok', as(keyOf.alice as string, `${login}@pin-1`));
      assert.equal(ok.stdout, 'pinned-ok\n', ok.stderr);
      const pinned = await until(
        'the pin event',
        async () => (await events('resource.host_key.pinned', `&target=${srv.id}`))[0],
      );
      assert.equal(pinned.data.fingerprint, fingerprint(first.hostPublicKey));
      const res = await admin('GET', `/v1/resources/${srv.id}`);
      assert.equal(res.json.ssh_host_key_fingerprint, fingerprint(first.hostPublicKey));
      // Positive control: the same key again is a match.
      const again = await sshExec('echo still-ok', as(keyOf.alice as string, `${login}@pin-1`));
      assert.equal(again.stdout, 'still-ok\n', again.stderr);

      // The server is "rebuilt": same address, a new host key.
      await first.stop();
      const second = await startSshd({ port: first.port });
      extraSshds.push(second);
      second.authorize(srv.publicKey);
      assert.notEqual(fingerprint(second.hostPublicKey), fingerprint(first.hostPublicKey));

      const refused = await sshExec('echo should-not-run', as(keyOf.alice as string, `${login}@pin-1`));
      assert.notEqual(refused.code, 0);
      assert.doesNotMatch(refused.stdout, /should-not-run/);
      assert.match(refused.stderr, /host key of pin-1 does not match the pinned key/);
      const failed = await until('the upstream failure', async () =>
        (await events('session.upstream_failed', `&target=${srv.id}`)).find(
          (e) => e.data.reason === 'host_key_mismatch',
        ),
      );
      assert.equal(failed.actor.name, 'alice');
      // sshd never saw a login attempt from the proxy: no credential was offered to the new key.
      assert.doesNotMatch(second.logs(), /Accepted publickey/);

      const reset = await admin('DELETE', `/v1/resources/${srv.id}/ssh-host-key`);
      assert.equal(reset.status, 204, reset.text);
      const afterReset = await sshExec('echo repinned-ok', as(keyOf.alice as string, `${login}@pin-1`));
      assert.equal(afterReset.stdout, 'repinned-ok\n', afterReset.stderr);
      const repinned = await admin('GET', `/v1/resources/${srv.id}`);
      assert.equal(repinned.json.ssh_host_key_fingerprint, fingerprint(second.hostPublicKey));
    });

    test('user CA: a target that trusts GET /v1/auth/ssh-ca accepts the proxy without its key in authorized_keys', async () => {
      const ca = await admin('GET', '/v1/auth/ssh-ca');
      assert.equal(ca.status, 200, ca.text);
      const trusting = await startSshd({ trustedUserCaKeys: [ca.json.public_key] });
      extraSshds.push(trusting);
      await addServer('ca-1', trusting.port); // its ssh_public_key is NOT authorized
      const run = await sshExec('echo via-certificate', as(keyOf.alice as string, `${login}@ca-1`));
      assert.equal(run.stdout, 'via-certificate\n', run.stderr);
      assert.equal(run.code, 0);
      const log = await until('the certificate in the target log', async () => {
        const m = /Accepted certificate ID "([^"]*)"/.exec(trusting.logs());
        return m ? (m[1] as string) : undefined;
      });
      assert.match(log, /user:alice/);
      assert.match(log, new RegExp(`${login}@ca-1`));

      // Negative control: a target that neither trusts the CA nor has the server's key.
      const neither = await startSshd();
      extraSshds.push(neither);
      const srv = await addServer('nocred-1', neither.port);
      const refused = await sshExec('echo should-not-run', as(keyOf.alice as string, `${login}@nocred-1`));
      assert.notEqual(refused.code, 0);
      assert.doesNotMatch(refused.stdout, /should-not-run/);
      assert.match(refused.stderr, /nocred-1 refused Gatehouse's credentials for login/);
      const failed = await until('the upstream failure', async () =>
        (await events('session.upstream_failed', `&target=${srv.id}`)).find((e) => e.data.reason === 'auth_failed'),
      );
      assert.equal(failed.actor.name, 'alice');
    });

    test('port_forwarding: a role with the option lets ssh -W reach a loopback service; without it, refused', async () => {
      const greeting = `pong-${randomBytes(4).toString('hex')}`;
      const echo = createServer((socket) => {
        socket.on('error', () => {});
        socket.end(`${greeting}\n`);
      });
      netServers.push(echo);
      await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
      const port = (echo.address() as { port: number }).port;
      const destination = `127.0.0.1:${port}`;

      const allowed = await sshExec(undefined, {
        ...as(keyOf.carol as string, `${login}@web-1`),
        extraArgs: ['-o', 'ExitOnForwardFailure=yes', '-W', destination],
      });
      assert.equal(allowed.stdout, `${greeting}\n`, allowed.stderr);
      const forward = await until('the port_forward event', async () =>
        (await events('session.port_forward')).find((e) => e.data.destination === destination),
      );
      assert.equal(forward.actor.name, 'carol');
      assert.equal(forward.target?.name, 'web-1');

      // Control: alice holds no role with port_forwarding.
      const refused = await sshExec(undefined, {
        ...as(keyOf.alice as string, `${login}@web-1`),
        extraArgs: ['-o', 'ExitOnForwardFailure=yes', '-W', destination],
      });
      assert.notEqual(refused.code, 0);
      assert.doesNotMatch(refused.stdout, new RegExp(greeting));
      const rejected = await until('the rejection', async () =>
        (await events('session.rejected')).find((e) => e.actor.name === 'alice' && e.data.forward === destination),
      );
      assert.match(String(rejected.data.reason), /port forwarding/);
      assert.equal((await events('session.port_forward')).filter((e) => e.actor.name === 'alice').length, 0);
    });

    test('record_input: the cast holds "i" events with what was typed only when a role asks', async () => {
      const castOf = async (user: string) => {
        const marker = `typed-${randomBytes(4).toString('hex')}`;
        const run = await sshExec(undefined, {
          ...as(keyOf[user] as string, `${login}@web-1`, { tty: true }),
          stdin: `echo ${marker}; exit 0\n`,
        });
        assert.equal(run.code, 0, run.stderr);
        const s = await until(`${user}'s uploaded shell recording`, async () => {
          const found = (await sessionsWhere(`principal=${user}&type=shell`))[0];
          return found?.recording.status === 'uploaded' ? found : undefined;
        });
        const cast = await admin('GET', `/v1/sessions/${s.id}/recording`);
        assert.equal(cast.status, 200, cast.text);
        const lines = cast.text
          .trim()
          .split('\n')
          .slice(1)
          .map((l) => JSON.parse(l) as [number, string, string]);
        return { marker, lines };
      };

      const recorded = await castOf('dave');
      const input = recorded.lines
        .filter((e) => e[1] === 'i')
        .map((e) => e[2])
        .join('');
      assert.ok(input.includes(`echo ${recorded.marker}; exit 0`), `input events: ${JSON.stringify(input)}`);
      assert.ok(recorded.lines.some((e) => e[1] === 'o' && e[2].includes(recorded.marker)));

      // Control: alice's roles do not ask for input.
      const plain = await castOf('alice');
      assert.equal(plain.lines.filter((e) => e[1] === 'i').length, 0);
      assert.ok(
        plain.lines.some((e) => e[1] === 'o' && e[2].includes(plain.marker)),
        'output is still recorded',
      );
    });

    test('max_session_ttl: a 2 s role ends `sleep 30` in seconds; the user is told; the record says why', async () => {
      const started = Date.now();
      const run = await sshExec('sleep 30', as(keyOf.erin as string, `${login}@web-1`));
      const took = Date.now() - started;
      assert.ok(took < 8_000, `the session lasted ${took} ms`);
      assert.ok(took >= 1_900, `the session ended before its TTL (${took} ms)`);
      assert.notEqual(run.code, 0);
      assert.match(run.stderr, /max_session_ttl/);

      const s = await sessionOf('erin', 'sleep 30');
      const done = await until('the terminated record', async () => {
        const r = await session(s.id);
        return r.status !== 'active' ? r : undefined;
      });
      assert.equal(done.status, 'terminated');
      assert.match(done.end_reason ?? '', /max_session_ttl/);
      const terminated = await until(
        'the terminated event',
        async () => (await events('session.terminated', `&session_id=${s.id}`))[0],
      );
      assert.equal(terminated.actor.kind, 'system');
      assert.match(String(terminated.data.reason), /max_session_ttl/);

      // Control: a short command under the same TTL ends normally.
      const quick = await sshExec('echo quick', as(keyOf.erin as string, `${login}@web-1`));
      assert.equal(quick.stdout, 'quick\n', quick.stderr);
      assert.equal(quick.code, 0);
      const q = await sessionOf('erin', 'echo quick');
      const qDone = await until('the quick session end', async () => {
        const r = await session(q.id);
        return r.status !== 'active' ? r : undefined;
      });
      assert.equal(qDone.status, 'ended');
    });

    test('agents: an agent connects with its key; suspending it ends its live session and refuses the next', async () => {
      const owner = await admin('POST', '/v1/users', { name: 'olivia', roles: ['dev-ssh'] });
      assert.equal(owner.status, 201, owner.text);
      const agent = await admin('POST', '/v1/agents', { name: 'deploy-bot', roles: ['dev-ssh'], owner: owner.json.id });
      assert.equal(agent.status, 201, agent.text);
      const key = await generateClientKey(dir);
      const k = await admin('POST', `/v1/agents/${agent.json.id}/ssh-keys`, { public_key: key.publicLine });
      assert.equal(k.status, 201, k.text);

      const ok = await sshExec('echo agent-ok', as(key.privatePath, `${login}@web-1`));
      assert.equal(ok.stdout, 'agent-ok\n', ok.stderr);

      const running = sshExec('echo started; sleep 30; echo never', as(key.privatePath, `${login}@web-1`));
      const live = await until('the live agent session', async () => {
        const s = (await sessionsWhere('principal=deploy-bot&status=active')).find((x) =>
          x.command?.includes('sleep 30'),
        );
        return s && s.bytes_out > 0 ? s : undefined;
      });
      assert.equal(live.principal.kind, 'agent');
      const suspendedAt = Date.now();
      const patch = await admin('PATCH', `/v1/agents/${agent.json.id}`, { status: 'suspended' });
      assert.equal(patch.status, 200, patch.text);
      const run = await running;
      const took = Date.now() - suspendedAt;
      assert.ok(took < 3_000, `the session outlived the suspension by ${took} ms`);
      assert.match(run.stdout, /started/);
      assert.doesNotMatch(run.stdout, /never/);
      assert.match(run.stderr, /agent_suspended/);
      const done = await until('the terminated record', async () => {
        const r = await session(live.id);
        return r.status !== 'active' ? r : undefined;
      });
      assert.equal(done.status, 'terminated');
      assert.equal(done.end_reason, 'agent_suspended');

      const refused = await sshExec('echo should-not-run', as(key.privatePath, `${login}@web-1`));
      assert.equal(refused.code, 255);
      assert.doesNotMatch(refused.stdout, /should-not-run/);
    });
  });
}
