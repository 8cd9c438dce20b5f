// What an SSH connection opens after it authenticated is checked again, and ends with what allowed
// it: with a real sshd and the OpenSSH client, an `ssh -N -L` forward is a session of its own (its
// open stream is cut within about a second of its key's deletion, or of its role losing
// port_forwarding, and a new forward on the same connection is refused), a connection whose key or
// token is gone is ended, and a command sent on one never reaches the target. Users whose access
// stands (or changed but still allows it) go on: the positive controls.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import ssh2 from 'ssh2';
import { api, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';
import { generateClientKey, sshArgs } from './helpers/ssh-client.js';
import { registerSshdServer, requireSshd, type Sshd, startSshd } from './helpers/sshd.js';
import { until } from './helpers/until.js';

interface SessionRow {
  id: string;
  type: string;
  status: string;
  ended_at: string | null;
  end_reason?: string;
  command?: string;
}

interface Event {
  session_id?: string;
  data: Record<string, unknown>;
  actor: { name?: string };
}

/** A free loopback port (for ssh -L to listen on). */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** A TCP stream through a forward: it echoes what it is sent, and says when it closed. */
interface Stream {
  socket: Socket;
  /** Resolves with Date.now() when the socket closed. */
  closed: Promise<number>;
  /** Sends a line and resolves true once it comes back, false if the stream closes first. */
  echo(line: string): Promise<boolean>;
}

function openStream(port: number): Promise<Stream> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (d: Buffer) => {
      received += d.toString();
    });
    const closed = new Promise<number>((r) => socket.once('close', () => r(Date.now())));
    socket.once('error', reject);
    socket.once('connect', () => {
      socket.removeListener('error', reject);
      socket.on('error', () => {});
      resolve({
        socket,
        closed,
        echo: (line) =>
          new Promise<boolean>((done) => {
            const from = received.length;
            const check = () => {
              if (received.slice(from).includes(line)) {
                socket.off('data', check);
                done(true);
              }
            };
            socket.on('data', check);
            void closed.then(() => done(received.slice(from).includes(line)));
            socket.write(`${line}\n`);
          }),
      });
    });
  });
}

/** The promise's value, or undefined if it has not settled within ms. */
const within = <T>(promise: Promise<T>, ms: number): Promise<T | undefined> =>
  Promise.race([promise, new Promise<undefined>((r) => setTimeout(r, ms))]);

/** What a new stream through the forward gets: its echo, or refused / closed without one. */
async function tryStream(port: number): Promise<'echoed' | 'refused' | 'closed'> {
  let stream: Stream;
  try {
    stream = await openStream(port);
  } catch {
    return 'refused'; // nothing listens there any more: the ssh client has exited
  }
  const echoed = await within(stream.echo('probe'), 3000);
  stream.socket.destroy();
  return echoed ? 'echoed' : 'closed';
}

if (requireSshd('SSH forwards and connections re-checked')) {
  describe('SSH forwards and connections end with what allowed them', () => {
    let gh: TestServer;
    let sshd: Sshd;
    let dir: string;
    let echoPort: number;
    let echo: Server;
    const children: ChildProcess[] = [];
    const admin = (method: string, path: string, body?: unknown) =>
      api(gh.url, method, path, { token: gh.adminToken, ...(body !== undefined ? { body } : {}) });
    const port = () => gh.gatehouse.sshAddr?.port as number;
    const user = () => `${sshd.login}@web-1`;

    /** A user with these roles and a registered key of its own. */
    async function keyedUser(name: string, roles: string[]) {
      const u = await userWithRoles(gh, name, roles);
      const key = await generateClientKey(dir);
      const added = await admin('POST', `/v1/users/${u.id}/ssh-keys`, { public_key: key.publicLine });
      assert.equal(added.status, 201, added.text);
      return { ...u, keyId: added.json.id as string, keyPath: key.privatePath };
    }

    /** `ssh -N -L <local>:127.0.0.1:<echo>` with the user's key; resolves once a stream echoes through it. */
    async function forward(identityFile: string) {
      const local = await freePort();
      const knownHostsFile = join(dir, `known_hosts_${local}`);
      writeFileSync(knownHostsFile, '');
      const args = sshArgs(
        undefined,
        {
          port: port(),
          user: user(),
          identityFile,
          extraArgs: ['-N', '-L', `127.0.0.1:${local}:127.0.0.1:${echoPort}`, '-o', 'ExitOnForwardFailure=yes'],
        },
        { knownHostsFile, strict: false },
      );
      const child = spawn('ssh', args, { stdio: ['ignore', 'ignore', 'pipe'] });
      children.push(child);
      let stderr = '';
      child.stderr?.on('data', (d: Buffer) => {
        stderr += d.toString();
      });
      const exited = new Promise<number>((r) => child.once('exit', () => r(Date.now())));
      const stream = await until(`ssh -L on ${local} to forward`, async () => {
        if (child.exitCode !== null) throw new Error(`ssh exited ${child.exitCode}: ${stderr}`);
        const s = await openStream(local).catch(() => undefined);
        if (!s) return undefined;
        if (await s.echo('hello')) return s;
        s.socket.destroy();
        return undefined;
      });
      return { local, child, exited, stream };
    }

    /** The principal's one port_forward session in this status, once there is one. */
    const forwardSessionOf = (principal: string, status = 'active') =>
      until(`a ${status} port_forward session of ${principal}`, async () => {
        const list = await admin('GET', `/v1/sessions?status=${status}&type=port_forward&principal=${principal}`);
        return (list.json.sessions as SessionRow[])[0];
      });
    const events = async (type: string, extra = '') =>
      (await admin('GET', `/v1/events?type=${type}&per_page=100${extra}`)).json.events as Event[];

    /** An ssh2 connection (not OpenSSH: it keeps one connection and opens channels on it when told). */
    async function connection(auth: { privateKey: Buffer } | { password: string }) {
      const client = new ssh2.Client();
      const closed = new Promise<number>((r) => client.once('close', () => r(Date.now())));
      await new Promise<void>((resolve, reject) => {
        client.once('ready', () => resolve()).once('error', reject);
        client.connect({ host: '127.0.0.1', port: port(), username: user(), ...auth });
      });
      client.on('error', () => {});
      /** Runs a command; `refused` when the channel could not even be opened (the connection is gone). */
      const exec = (command: string) =>
        new Promise<{ out: string; err: string; refused?: string }>((resolve) => {
          try {
            client.exec(command, (error, channel) => {
              if (error) return resolve({ out: '', err: '', refused: error.message });
              let out = '';
              let err = '';
              channel.on('data', (d: Buffer) => {
                out += d;
              });
              channel.stderr.on('data', (d: Buffer) => {
                err += d;
              });
              channel.on('close', () => resolve({ out, err }));
            });
          } catch (error) {
            resolve({ out: '', err: '', refused: (error as Error).message });
          }
        });
      return { client, closed, exec };
    }

    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'gatehouse-recheck-ssh-'));
      echo = createServer((socket) => {
        socket.on('error', () => {});
        socket.pipe(socket);
      });
      await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
      echoPort = (echo.address() as { port: number }).port;
      sshd = await startSshd({ allowTcpForwarding: true });
      gh = await startTestServer({ 'login_throttle.max_failures': 100_000 });
      await registerSshdServer(admin, sshd, 'web-1', { env: 'dev' });
      const roles = [
        {
          name: 'ssh-dev',
          allow: {
            resources: [{ kinds: ['server'], labels: { env: 'dev' } }],
            logins: [sshd.login],
            rules: [{ resources: ['sessions'], verbs: ['create', 'list', 'read'] }],
          },
        },
        { name: 'forwarder', allow: {}, options: { port_forwarding: true } },
        { name: 'forwarder-too', allow: {}, options: { port_forwarding: true } },
        { name: 'forwards-briefly', allow: {}, options: { port_forwarding: true, max_session_ttl: '2s' } },
      ];
      for (const role of roles) {
        const created = await admin('POST', '/v1/roles', role);
        assert.equal(created.status, 201, created.text);
      }
    });
    after(async () => {
      for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
      await gh?.stop();
      await sshd?.stop();
      echo?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    test("deleting the SSH key cuts its open ssh -L stream within a second, refuses a new one and ends the connection; another user's forward goes on", async () => {
      const alice = await keyedUser('fwd-alice', ['ssh-dev', 'forwarder']);
      const bob = await keyedUser('fwd-bob', ['ssh-dev', 'forwarder']);
      const a = await forward(alice.keyPath);
      const b = await forward(bob.keyPath);

      const deleted = await admin('DELETE', `/v1/users/${alice.id}/ssh-keys/${alice.keyId}`);
      assert.equal(deleted.status, 204, deleted.text);
      const since = Date.now();
      const cut = await within(a.stream.closed, 5000);
      assert.ok(
        cut !== undefined && cut - since <= 1500,
        `the open stream was cut within ~1 s (${cut && cut - since})`,
      );
      assert.notEqual(await tryStream(a.local), 'echoed', 'a new forward through that connection is refused');
      const ended = await within(a.exited, 5000);
      assert.ok(ended !== undefined, 'the connection was ended');
      // The forward was a session of its own: terminated with the reason, its opening still an event.
      const session = await forwardSessionOf(alice.id, 'terminated');
      assert.ok(Date.parse(session.ended_at ?? '') - since <= 1000, 'terminated within a second');
      assert.equal(session.command, `127.0.0.1:${echoPort}`);
      const terminated = (await events('session.terminated', `&session_id=${session.id}`))[0];
      assert.equal(terminated?.data.reason, 'token_revoked');
      const opened = (await events('session.port_forward')).find((e) => e.session_id === session.id);
      assert.equal(opened?.data.destination, `127.0.0.1:${echoPort}`, 'the session.port_forward event stays');

      assert.equal(b.child.exitCode, null, "positive control: bob's connection stands");
      assert.ok(await within(b.stream.echo('still-here'), 3000), "positive control: bob's open stream goes on");
      assert.equal(await tryStream(b.local), 'echoed', 'positive control: bob opens a new forward');
      await forwardSessionOf(bob.id);
    });

    test('a role losing port_forwarding cuts the open forward and refuses new ones on the same connection, which stays; a change that keeps it goes on', async () => {
      const carol = await keyedUser('fwd-carol', ['ssh-dev', 'forwarder']);
      const dave = await keyedUser('fwd-dave', ['ssh-dev', 'forwarder']);
      const c = await forward(carol.keyPath);
      const d = await forward(dave.keyPath);

      const kept = await admin('PATCH', `/v1/users/${dave.id}`, { roles: ['ssh-dev', 'forwarder-too'] });
      assert.equal(kept.status, 200, kept.text);
      const dropped = await admin('PATCH', `/v1/users/${carol.id}`, { roles: ['ssh-dev'] });
      assert.equal(dropped.status, 200, dropped.text);
      const since = Date.now();
      const cut = await within(c.stream.closed, 5000);
      assert.ok(
        cut !== undefined && cut - since <= 1500,
        `the open stream was cut within ~1 s (${cut && cut - since})`,
      );
      assert.equal(await tryStream(c.local), 'closed', 'a new forward on the same connection is refused');
      const session = await forwardSessionOf(carol.id, 'terminated');
      assert.ok(Date.parse(session.ended_at ?? '') - since <= 1000, 'terminated within a second');
      assert.equal((await events('session.terminated', `&session_id=${session.id}`))[0]?.data.reason, 'access_revoked');
      const rejected = await until('the forward rejection', async () =>
        (await events('session.rejected')).find((e) => e.actor.name === 'fwd-carol' && e.data.forward),
      );
      assert.match(String(rejected.data.detail), /port forwarding/);
      assert.equal(c.child.exitCode, null, 'the connection itself still stands (its login is still allowed)');

      assert.ok(
        await within(d.stream.echo('still-here'), 3000),
        "positive control: dave's roles changed but still allow forwarding",
      );
      assert.equal(await tryStream(d.local), 'echoed');
    });

    test('an open forward ends at max_session_ttl, as any session', async () => {
      const erin = await keyedUser('fwd-erin', ['ssh-dev', 'forwards-briefly']);
      const e = await forward(erin.keyPath);
      assert.ok((await within(e.stream.closed, 10_000)) !== undefined, 'the stream was cut');
      const ended = await forwardSessionOf(erin.id, 'terminated');
      assert.match(String(ended.end_reason), /max_session_ttl/);
    });

    test('an idle connection is ended when its key is deleted or its token revoked; one whose grounds stand stays', async () => {
      const frank = await keyedUser('conn-frank', ['ssh-dev']);
      const gina = await userWithRoles(gh, 'conn-gina', ['ssh-dev']);
      const hank = await keyedUser('conn-hank', ['ssh-dev']);
      const byKey = await connection({ privateKey: readFileSync(frank.keyPath) });
      const byToken = await connection({ password: gina.token });
      const control = await connection({ privateKey: readFileSync(hank.keyPath) });
      for (const c of [byKey, byToken, control]) assert.match((await c.exec('echo ready')).out, /ready/);

      assert.equal((await admin('DELETE', `/v1/users/${frank.id}/ssh-keys/${frank.keyId}`)).status, 204);
      assert.equal((await api(gh.url, 'DELETE', '/v1/auth/revoke', { token: gina.token })).status, 200);
      const since = Date.now();
      for (const c of [byKey, byToken]) {
        const ended = await within(c.closed, 5000);
        assert.ok(ended !== undefined && ended - since <= 1500, `the idle connection was ended within ~1 s`);
      }
      const ok = await control.exec('echo control-still-works');
      assert.match(ok.out, /control-still-works/, "positive control: hank's idle connection stands");
      control.client.end();
    });

    test('a command sent on a connection that lost its key never reaches the target', async () => {
      const ivan = await keyedUser('conn-ivan', ['ssh-dev']);
      const conn = await connection({ privateKey: readFileSync(ivan.keyPath) });
      const before = join(dir, 'ran-before');
      const afterDeletion = join(dir, 'ran-after');
      try {
        await conn.exec(`touch ${before}`);
        assert.ok(existsSync(before), 'positive control: a command runs while the key stands');
        const started = () => (sshd.logs().match(/Starting session: command/g) ?? []).length;
        const commandsBefore = started();
        assert.ok(commandsBefore > 0, "positive control: sshd's log names each command it starts");
        assert.equal((await admin('DELETE', `/v1/users/${ivan.id}/ssh-keys/${ivan.keyId}`)).status, 204);
        const run = await conn.exec(`touch ${afterDeletion}; echo ran`);
        assert.doesNotMatch(run.out, /ran/);
        // Refused as a channel (the connection still open) or with the connection already ended.
        if (run.refused === undefined) assert.match(run.err, /SSH key was removed/);
        await within(conn.closed, 5000);
        assert.ok(!existsSync(afterDeletion), 'the target never ran the command');
        assert.equal(started(), commandsBefore, 'the target was never even asked to start it');
      } finally {
        conn.client.end();
      }
    });
  });
}
