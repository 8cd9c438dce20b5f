// Gatehouse's SSH user CA against a real OpenSSH server that trusts it (TrustedUserCAKeys) and has no
// authorized keys (AuthorizedKeysFile none), so only a certificate can log in. The ssh2 client logs in
// with what UserCa.issue() returns. Without sshd the suite skips with a loud message, or fails when
// CI=true (as test/audit-postgres.test.ts does for PostgreSQL).
import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import ssh2, { type ParsedKey } from 'ssh2';
import {
  CLOCK_SKEW_SECONDS,
  createUserCa,
  generateUserCaKey,
  type IssueOptions,
  type UserCa,
} from '../src/ssh-keys/user-ca.js';

const { Client, utils } = ssh2;
const SSHD = '/usr/sbin/sshd';
const SSH_KEYGEN = '/usr/bin/ssh-keygen';
const LOGIN = userInfo().username;

function sshdMissing(): string | undefined {
  for (const bin of [SSHD, SSH_KEYGEN]) {
    try {
      accessSync(bin, constants.X_OK);
    } catch {
      return `${bin} is not installed (apt-get install openssh-server openssh-client)`;
    }
  }
  try {
    if (!existsSync('/run/sshd')) mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  } catch (e) {
    return `sshd's privilege-separation directory /run/sshd is missing and cannot be created (${(e as Error).message})`;
  }
  return undefined;
}

interface TargetSshd {
  port: number;
  logs(): string;
  /** Waits until the log matches (sshd may log a moment after the client sees the result). */
  waitForLog(pattern: RegExp | string, timeoutMs?: number): Promise<string>;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** sshd on a free loopback port, in its own temp dir with its own host key. */
async function startSshd(config: string[]): Promise<TargetSshd> {
  const dir = await mkdtemp(join(tmpdir(), 'gh-user-ca-sshd-'));
  const hostKey = join(dir, 'host_key');
  // ssh2's ed25519 generator can emit a malformed key (see user-ca.ts); a CA key is always good.
  await writeFile(hostKey, generateUserCaKey('test-host-key'), { mode: 0o600 });
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    const cfg = join(dir, 'sshd_config');
    await writeFile(
      cfg,
      [
        `Port ${port}`,
        'ListenAddress 127.0.0.1',
        `HostKey ${hostKey}`,
        ...config,
        'PubkeyAuthentication yes',
        'PasswordAuthentication no',
        'KbdInteractiveAuthentication no',
        'PermitRootLogin yes',
        'UsePAM no',
        'StrictModes no',
        'PidFile none',
        'LogLevel VERBOSE',
        '',
      ].join('\n'),
    );
    const child: ChildProcess = spawn(SSHD, ['-D', '-e', '-f', cfg], { stdio: ['ignore', 'ignore', 'pipe'] });
    let log = '';
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      log += chunk;
    });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const listening = await new Promise<boolean>((resolve) => {
      const deadline = setTimeout(() => resolve(false), 10_000);
      const check = () => {
        if (log.includes('Server listening')) {
          clearTimeout(deadline);
          resolve(true);
        }
      };
      child.stderr?.on('data', check);
      child.once('exit', () => {
        clearTimeout(deadline);
        resolve(false);
      });
    });
    if (!listening) {
      child.kill();
      await exited;
      if (attempt < 3 && /Address already in use/.test(log)) continue;
      await rm(dir, { recursive: true, force: true });
      throw new Error(`sshd did not start:\n${log}`);
    }
    const logs = () => log;
    return {
      port,
      logs,
      async waitForLog(pattern, timeoutMs = 5000) {
        const matches = () => (typeof pattern === 'string' ? log.includes(pattern) : pattern.test(log));
        const until = Date.now() + timeoutMs;
        while (!matches() && Date.now() < until) await new Promise((r) => setTimeout(r, 25));
        assert.ok(matches(), `sshd log does not show ${pattern}:\n${log}`);
        return log;
      },
      async stop() {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
        await exited;
        await rm(dir, { recursive: true, force: true });
      },
    };
  }
}

type Outcome = { ok: true; stdout: string; code: number | null } | { ok: false; error: string };

/** Logs in with the ssh2 client and runs command. */
function runWith(port: number, auth: { type: 'publickey'; username: string; key: ParsedKey }, command: string) {
  return new Promise<Outcome>((resolve) => {
    const client = new Client();
    let settled = false;
    const done = (outcome: Outcome) => {
      if (settled) return;
      settled = true;
      client.end();
      resolve(outcome);
    };
    client.on('error', (error) => done({ ok: false, error: error.message }));
    client.on('close', () => done({ ok: false, error: 'connection closed' }));
    client.on('ready', () => {
      client.exec(command, (error, stream) => {
        if (error) return done({ ok: false, error: error.message });
        let stdout = '';
        let code: number | null = null;
        stream.on('data', (d: Buffer) => {
          stdout += d.toString('utf8');
        });
        stream.stderr.resume();
        stream.on('exit', (c: number | null) => {
          code = c;
        });
        stream.on('close', () => done({ ok: true, stdout, code }));
      });
    });
    client.connect({ host: '127.0.0.1', port, username: auth.username, authHandler: [auth], readyTimeout: 10_000 });
  });
}

const base = (over: Partial<IssueOptions> = {}): IssueOptions => ({
  login: LOGIN,
  keyId: `gatehouse session s_${Math.random().toString(36).slice(2, 10)} principal=u_alice`,
  ttlSeconds: 300,
  ...over,
});

/** ssh-keygen -L of a certificate line. */
function describeCert(certificate: string, dir: string): string {
  const file = join(dir, `cert-${Math.random().toString(36).slice(2)}-cert.pub`);
  execFileSync('sh', ['-c', 'cat > "$1"', 'sh', file], { input: `${certificate}\n` });
  return execFileSync(SSH_KEYGEN, ['-L', '-f', file], { encoding: 'utf8' });
}

describe('user CA: issuing (no sshd needed)', () => {
  const ca = createUserCa(generateUserCaKey());

  test('the CA public key is an OpenSSH ed25519 line that ssh2 reads', () => {
    assert.match(ca.publicKey, /^ssh-ed25519 [A-Za-z0-9+/]+=* \S+$/);
    const parsed = utils.parseKey(ca.publicKey);
    assert.ok(!(parsed instanceof Error) && !Array.isArray(parsed));
    assert.equal(parsed.type, 'ssh-ed25519');
  });

  test('generateUserCaKey is OpenSSH private-key text', () => {
    assert.match(generateUserCaKey(), /^-----BEGIN OPENSSH PRIVATE KEY-----\n/);
  });

  test('issue() returns a cert line, a parsed key presenting it, and an authHandler entry', () => {
    const now = new Date('2030-01-01T00:00:00Z');
    const issued = ca.issue(base({ ttlSeconds: 120, now }));
    assert.match(issued.certificate, /^ssh-ed25519-cert-v01@openssh\.com [A-Za-z0-9+/]+=* /);
    assert.equal(issued.privateKey.type, 'ssh-ed25519-cert-v01@openssh.com');
    assert.equal(issued.privateKey.isPrivateKey(), true);
    assert.equal(
      issued.privateKey.getPublicSSH().toString('base64'),
      issued.certificate.split(' ')[1],
      'the key presents the certificate',
    );
    assert.equal(utils.parseKey(issued.privateKey), issued.privateKey, "ssh2's parseKey takes it as a parsed key");
    assert.deepEqual(issued.authMethod, { type: 'publickey', username: LOGIN, key: issued.privateKey });
    assert.equal(issued.validAfter.getTime(), now.getTime() - CLOCK_SKEW_SECONDS * 1000);
    assert.equal(issued.validBefore.getTime(), now.getTime() + 120_000);
    assert.notEqual(ca.issue(base()).serial, ca.issue(base()).serial);
  });

  test('issue() never hands out a malformed key (ssh2 keygen bug, mscdex/ssh2#1390)', () => {
    // ~1 in 256 raw ssh2 ed25519 keys is unusable; 1000 issues would almost surely hit one.
    for (let i = 0; i < 1000; i++) {
      const issued = ca.issue(base());
      const signature = issued.privateKey.sign(Buffer.from('data'));
      assert.ok(Buffer.isBuffer(signature) && signature.length === 64, `issue #${i} gave an unusable key`);
    }
  });

  test('issue() refuses bad logins, key ids and lifetimes', () => {
    for (const login of ['', 'a,b', 'root ', 'x'.repeat(65), '-oProxy']) {
      assert.throws(() => ca.issue(base({ login })), /invalid login/, login);
    }
    for (const keyId of ['', 'a\nb', 'x'.repeat(257)]) {
      assert.throws(() => ca.issue(base({ keyId })), /key id/);
    }
    for (const ttlSeconds of [0, -1, 1.5, 86_401, Number.NaN]) {
      assert.throws(() => ca.issue(base({ ttlSeconds })), /ttlSeconds/, String(ttlSeconds));
    }
  });

  test('createUserCa refuses a non-ed25519 CA key and garbage', () => {
    assert.throws(() => createUserCa(utils.generateKeyPairSync('ecdsa', { bits: 256 }).private), /must be ssh-ed25519/);
    assert.throws(() => createUserCa('not a key'), /cannot parse CA key/);
  });
});

const missing = sshdMissing();
if (missing !== undefined) {
  const message = `OpenSSH cannot run here (${missing}); certificate logins through the Gatehouse user CA are NOT tested.`;
  if (process.env.CI === 'true') {
    test('user CA against sshd: OpenSSH must be available in CI', () => assert.fail(message));
  } else {
    console.error(`\n${'!'.repeat(100)}\n!!! ${message}\n${'!'.repeat(100)}\n`);
    test('user CA against sshd', { skip: message }, () => {});
  }
} else {
  describe('user CA: certificate logins against a real sshd', () => {
    let ca: UserCa;
    let sshd: TargetSshd;
    let dir: string;

    before(async () => {
      ca = createUserCa(generateUserCaKey());
      dir = await mkdtemp(join(tmpdir(), 'gh-user-ca-'));
      const caFile = join(dir, 'user_ca.pub');
      await writeFile(caFile, `${ca.publicKey}\n`);
      sshd = await startSshd([`TrustedUserCAKeys ${caFile}`, 'AuthorizedKeysFile none']);
    });
    after(async () => {
      await sshd?.stop();
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    test('ssh-keygen reads the certificate: key id, principal, validity, extensions', () => {
      const issued = ca.issue(base());
      const text = describeCert(issued.certificate, dir);
      assert.match(text, /Type: ssh-ed25519-cert-v01@openssh\.com user certificate/);
      assert.match(text, /Signing CA: ED25519 .* \(using ssh-ed25519\)/);
      assert.ok(text.includes(`Key ID: "${issued.keyId}"`), text);
      assert.ok(text.includes(`Serial: ${issued.serial}`), text);
      assert.match(text, new RegExp(`Principals: \\n\\s+${LOGIN}\\n\\s+Critical Options: \\(none\\)`));
      assert.match(text, /Extensions: \n\s+permit-pty\n*$/);

      const forwarding = describeCert(ca.issue(base({ permitPortForwarding: true })).certificate, dir);
      assert.match(forwarding, /Extensions: \n\s+permit-port-forwarding\n\s+permit-pty\n*$/);
      const bare = describeCert(ca.issue(base({ permitPty: false })).certificate, dir);
      assert.match(bare, /Extensions: \(none\)/);
    });

    test('a certificate login succeeds, runs `echo ok`, and the target logs the key id', async () => {
      const issued = ca.issue(base());
      const outcome = await runWith(sshd.port, issued.authMethod, 'echo ok');
      assert.deepEqual(outcome, { ok: true, stdout: 'ok\n', code: 0 });
      await sshd.waitForLog(`Accepted certificate ID "${issued.keyId}" (serial ${issued.serial})`);
      await sshd.waitForLog(
        new RegExp(
          `Accepted publickey for ${LOGIN} from 127\\.0\\.0\\.1 .* ID ${issued.keyId} \\(serial ${issued.serial}\\)`,
        ),
      );
    });

    test('an expired certificate is refused', async () => {
      const issued = ca.issue(base({ ttlSeconds: 60, now: new Date(Date.now() - 10 * 60_000) }));
      const outcome = await runWith(sshd.port, issued.authMethod, 'echo ok');
      assert.equal(outcome.ok, false);
      assert.match(outcome.ok ? '' : outcome.error, /authentication methods failed/);
      await sshd.waitForLog(/Certificate invalid: expired/);
      assert.ok(!sshd.logs().includes(`Accepted certificate ID "${issued.keyId}"`));
    });

    test('a certificate for another login (principal) is refused', async () => {
      const issued = ca.issue(base({ login: 'gatehouse-someone-else' }));
      const outcome = await runWith(sshd.port, { ...issued.authMethod, username: LOGIN }, 'echo ok');
      assert.equal(outcome.ok, false);
      assert.match(outcome.ok ? '' : outcome.error, /authentication methods failed/);
      await sshd.waitForLog(/Certificate invalid: name is not a listed principal/);
      assert.ok(!sshd.logs().includes(`Accepted certificate ID "${issued.keyId}"`));
    });

    test('a certificate from another CA is refused', async () => {
      const other = createUserCa(generateUserCaKey());
      const issued = other.issue(base());
      const outcome = await runWith(sshd.port, issued.authMethod, 'echo ok');
      assert.equal(outcome.ok, false);
      assert.match(outcome.ok ? '' : outcome.error, /authentication methods failed/);
      assert.ok(!sshd.logs().includes(`Accepted certificate ID "${issued.keyId}"`));
    });

    test('the bare key behind a certificate is refused (only the certificate can log in)', async () => {
      const plain = utils.parseKey(generateUserCaKey());
      assert.ok(!(plain instanceof Error) && !Array.isArray(plain));
      const outcome = await runWith(sshd.port, { type: 'publickey', username: LOGIN, key: plain }, 'echo ok');
      assert.equal(outcome.ok, false);
    });

    test('plain-key logins still work next to the certificate patch', async () => {
      const key = utils.parseKey(generateUserCaKey());
      assert.ok(!(key instanceof Error) && !Array.isArray(key));
      const keyFile = join(dir, 'authorized_keys');
      await writeFile(keyFile, `ssh-ed25519 ${key.getPublicSSH().toString('base64')}\n`);
      const plainSshd = await startSshd([`AuthorizedKeysFile ${keyFile}`]);
      try {
        const outcome = await runWith(plainSshd.port, { type: 'publickey', username: LOGIN, key }, 'echo ok');
        assert.deepEqual(outcome, { ok: true, stdout: 'ok\n', code: 0 });
      } finally {
        await plainSshd.stop();
      }
    });
  });
}
