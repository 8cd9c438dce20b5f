// The SSH test harness (test/helpers/sshd.ts, test/helpers/ssh-client.ts) against a real OpenSSH
// server, without Gatehouse: exec with exit codes, a PTY session, a refused key, parallel instances,
// and stop() freeing the port. Without OpenSSH the suite skips loudly, or fails when CI=true.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { generateClientKey, sshExec } from './helpers/ssh-client.js';
import { requireSshd, type Sshd, startSshd } from './helpers/sshd.js';

/** Resolves true when something can listen on 127.0.0.1:port right now. */
function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

if (requireSshd('sshd test harness')) {
  describe('sshd test harness', () => {
    let dir: string;
    let sshd: Sshd;
    let key: { privatePath: string; publicLine: string };

    before(async () => {
      dir = await mkdtemp(join(tmpdir(), 'gatehouse-harness-test-'));
      key = await generateClientKey(dir);
      sshd = await startSshd({ authorizedKeys: [key.publicLine] });
    });
    after(async () => {
      await sshd?.stop();
      await rm(dir, { recursive: true, force: true });
    });

    const client = () => ({ port: sshd.port, user: sshd.login, identityFile: key.privatePath });

    test('exec returns stdout and the remote exit code', async () => {
      const run = await sshExec('echo hello; exit 3', client());
      assert.equal(run.stdout, 'hello\n', run.stderr);
      assert.equal(run.code, 3, `${run.stderr}\n${sshd.logs()}`);
    });

    test('stdin reaches the remote command', async () => {
      const run = await sshExec('wc -c', { ...client(), stdin: Buffer.alloc(100_000, 'x') });
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout.trim(), '100000');
    });

    test('the host key is the one it announces', async () => {
      const knownHostsFile = join(dir, 'known_hosts');
      await writeFile(knownHostsFile, `[127.0.0.1]:${sshd.port} ${sshd.hostPublicKey}\n`);
      const ok = await sshExec('true', { ...client(), knownHostsFile });
      assert.equal(ok.code, 0, ok.stderr);
      const other = await startSshd();
      try {
        await writeFile(knownHostsFile, `[127.0.0.1]:${sshd.port} ${other.hostPublicKey}\n`);
        const mismatch = await sshExec('true', { ...client(), knownHostsFile });
        assert.equal(mismatch.code, 255);
        assert.match(mismatch.stderr, /HOST IDENTIFICATION HAS CHANGED|Host key verification failed/);
      } finally {
        await other.stop();
      }
    });

    test('a PTY session with scripted stdin', async () => {
      const run = await sshExec(undefined, {
        ...client(),
        tty: true,
        extraArgs: ['-o', 'SetEnv=TERM=dumb'],
        stdin: (child) => {
          child.stdin.write('stty size; echo "do""ne"; exit 7\n');
        },
      });
      assert.equal(run.code, 7, `${run.stdout}\n${run.stderr}`);
      // The PTY echoes the typed line; "done" (not "do""ne") appears only as the command's output.
      assert.match(run.stdout, /^\d+ \d+\r?$/m, run.stdout);
      assert.match(run.stdout, /^done\r?$/m, run.stdout);
    });

    test('tty: true with a command allocates a PTY', async () => {
      const run = await sshExec('tty; test -t 0', { ...client(), tty: true });
      assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
      assert.match(run.stdout, /^\/dev\/pts\/\d+\r?$/m);
      const plain = await sshExec('test -t 0', client());
      assert.equal(plain.code, 1, plain.stderr);
    });

    test('an unknown key is refused', async () => {
      const stranger = await generateClientKey(dir);
      const run = await sshExec('echo should-not-run', { ...client(), identityFile: stranger.privatePath });
      assert.equal(run.code, 255);
      assert.equal(run.stdout, '');
      assert.match(run.stderr, /Permission denied/);
    });

    test('no key at all is refused (nothing from the user config or agent leaks in)', async () => {
      const run = await sshExec('echo should-not-run', { port: sshd.port, user: sshd.login });
      assert.equal(run.code, 255);
      assert.match(run.stderr, /Permission denied/);
    });

    test('a password is refused by this sshd (password and keyboard-interactive are off)', async () => {
      const run = await sshExec('echo should-not-run', {
        port: sshd.port,
        user: sshd.login,
        password: 'not-a-password',
      });
      assert.equal(run.code, 255);
      assert.match(run.stderr, /Permission denied \(publickey\)/);
    });

    test('authorize() adds a key after start', async () => {
      const late = await generateClientKey(dir);
      const before = await sshExec('true', { ...client(), identityFile: late.privatePath });
      assert.equal(before.code, 255);
      sshd.authorize(late.publicLine);
      const afterwards = await sshExec('echo in', { ...client(), identityFile: late.privatePath });
      assert.equal(afterwards.code, 0, afterwards.stderr);
      assert.equal(afterwards.stdout, 'in\n');
    });

    test('logs() has what sshd said', () => {
      assert.match(sshd.logs(), /Server listening on 127\.0\.0\.1 port \d+/);
      assert.match(sshd.logs(), /Accepted publickey for /);
    });

    test('a timeout kills ssh and says so', async () => {
      await assert.rejects(sshExec('sleep 5', { ...client(), timeoutMs: 1500 }), /ssh timed out after 1500 ms/);
    });

    test('two instances at once get different ports, and stop() frees the port', async () => {
      const [a, b] = await Promise.all([startSshd(), startSshd({ allowTcpForwarding: true })]);
      const aDir = a.dir;
      try {
        assert.notEqual(a.port, b.port);
        assert.notEqual(a.hostPublicKey, b.hostPublicKey);
        for (const s of [a, b]) {
          s.authorize(key.publicLine);
          const run = await sshExec('echo $SSH_CONNECTION', { ...client(), port: s.port });
          assert.equal(run.code, 0, run.stderr);
          assert.match(run.stdout, new RegExp(` ${s.port}\\n$`));
        }
        assert.equal(await canListen(a.port), false);
      } finally {
        await a.stop();
      }
      assert.equal(await canListen(a.port), true);
      const gone = await sshExec('true', { ...client(), port: a.port });
      assert.equal(gone.code, 255);
      assert.match(gone.stderr, /Connection refused/);
      assert.equal(existsSync(aDir), false);
      await b.stop();
      await b.stop(); // idempotent
    });

    test('a jump host (ssh -J) through an sshd that allows TCP forwarding', async () => {
      const jump = await startSshd({ allowTcpForwarding: true, authorizedKeys: [key.publicLine] });
      try {
        // -J's inner ssh gets our -F file but none of our -o options: the file pins the same choices.
        const config = join(dir, 'jump_config');
        await writeFile(
          config,
          [
            'Host *',
            '  IdentitiesOnly yes',
            '  IdentityAgent none',
            `  IdentityFile ${key.privatePath}`,
            '  StrictHostKeyChecking accept-new',
            `  UserKnownHostsFile ${join(dir, 'jump_known_hosts')}`,
            '  BatchMode yes',
            '  LogLevel ERROR',
            '',
          ].join('\n'),
        );
        const run = await sshExec('echo through', {
          ...client(),
          configFile: config,
          extraArgs: ['-J', `${jump.login}@127.0.0.1:${jump.port}`],
        });
        assert.equal(run.code, 0, `${run.stderr}\n${jump.logs()}`);
        assert.equal(run.stdout, 'through\n');
        assert.match(jump.logs(), /Accepted publickey/);
        assert.match(sshd.logs(), new RegExp(`Accepted publickey for ${sshd.login} from 127\\.0\\.0\\.1`));
      } finally {
        await jump.stop();
      }
    });
  });
}
