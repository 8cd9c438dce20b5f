// A real OpenSSH server as a test target: its own temp dir, host key, authorized_keys and config,
// listening on a free loopback port. Tests log in as the OS user running them (root here).
//
//   const sshd = await startSshd({ authorizedKeys: [publicLine] });
//   … ssh -p sshd.port sshd.login@127.0.0.1 …
//   await sshd.stop();
//
// requireSshd() gates a suite on sshd being runnable: without it the suite fails under CI=true and
// is skipped, loudly, elsewhere (as test/audit-postgres.test.ts does for PostgreSQL).

import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { accessSync, appendFileSync, constants, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { connect, createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { delimiter, join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import type { Reply } from './gatehouse.js';

const execFileAsync = promisify(execFile);

export const SSHD_PATH = '/usr/sbin/sshd';
/** sshd's privilege-separation directory (Debian's build); sshd refuses to start without it. */
const PRIVSEP_DIR = '/run/sshd';

export interface Sshd {
  host: '127.0.0.1';
  port: number;
  /** The OS user tests log in as (os.userInfo().username; root here). */
  login: string;
  /** OpenSSH line of its ed25519 host key ("ssh-ed25519 AAAA… comment"). */
  hostPublicKey: string;
  /** Its temp dir: config, host key, authorized_keys. Removed by stop(). */
  dir: string;
  /** Appends an OpenSSH public-key line to its authorized_keys (read by sshd on every login). */
  authorize(publicLine: string): void;
  /** Everything sshd wrote to stderr so far (LogLevel VERBOSE). */
  logs(): string;
  stop(): Promise<void>;
}

export interface SshdOptions {
  /** OpenSSH public-key lines allowed to log in as `login`. More can be added later with authorize(). */
  authorizedKeys?: string[];
  /** CA public-key lines whose user certificates are accepted (TrustedUserCAKeys). */
  trustedUserCaKeys?: string[];
  /** AllowTcpForwarding (false by default); a jump host for `ssh -J` needs true. */
  allowTcpForwarding?: boolean;
  /**
   * More sshd_config lines. They go before the defaults, so they override them (sshd keeps the
   * first value of a keyword); a `Match` line and everything after it go at the end instead.
   */
  extraConfig?: string[];
  /**
   * Listen on this loopback port instead of a free one (e.g. to replace a stopped sshd on the same
   * address). A port still held by someone else is retried a few times, then startSshd fails.
   */
  port?: number;
}

/** The absolute path of an executable on PATH, or undefined. */
export function findExecutable(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Why sshd/ssh cannot run here, or undefined when they can. */
export function sshdMissing(): string | undefined {
  const missing: string[] = [];
  if (!isExecutable(SSHD_PATH)) missing.push(`${SSHD_PATH} (Debian package openssh-server)`);
  if (!findExecutable('ssh')) missing.push('ssh (openssh-client)');
  if (!findExecutable('ssh-keygen')) missing.push('ssh-keygen (openssh-client)');
  if (missing.length > 0) return `not installed: ${missing.join(', ')}`;
  if (!existsSync(PRIVSEP_DIR)) {
    try {
      mkdirSync(PRIVSEP_DIR, { recursive: true, mode: 0o755 });
    } catch (e) {
      return `sshd needs its privilege-separation directory ${PRIVSEP_DIR}, which is missing and cannot be created (${(e as Error).message})`;
    }
  }
  return undefined;
}

/**
 * Gate for a suite that needs sshd: returns true when sshd can run. Otherwise it registers a test
 * that fails under CI=true (nothing may skip there) or is skipped with a loud message elsewhere,
 * and returns false. Use it as `if (requireSshd('my suite')) { test(…) … }`.
 */
export function requireSshd(suite: string): boolean {
  const why = sshdMissing();
  if (why === undefined) return true;
  const message = `OpenSSH cannot run here (${why}); ${suite} is NOT tested. Install openssh-server and openssh-client (apt-get install openssh-server openssh-client).`;
  if (process.env.CI === 'true') {
    test(`${suite}: OpenSSH must be available in CI`, () => assert.fail(message));
  } else {
    console.error(`\n${'!'.repeat(100)}\n!!! ${message}\n${'!'.repeat(100)}\n`);
    test(suite, { skip: message }, () => {});
  }
  return false;
}

/** A port that was free on 127.0.0.1 a moment ago (sshd may still lose a race for it: startSshd retries). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * A free port below the kernel's ephemeral range, for a server restarted on the same port (a crash
 * test): a port from freePort() is ephemeral, and another test's outgoing connection may be given it
 * as its local port while the server is down, so the restart fails with EADDRINUSE (seen in CI).
 */
export async function freeStablePort(): Promise<number> {
  const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
  const top = Math.min((low ?? 32768) - 1, 65535);
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = 20000 + Math.floor(Math.random() * (top - 20000));
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.unref();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (free) return port;
  }
  throw new Error('no free port below the ephemeral range');
}

/** Resolves with the first bytes the server at port sends (an SSH server sends its banner first). */
function readBanner(port: number, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    let data = '';
    const done = (error?: Error) => {
      clearTimeout(timer);
      socket.destroy();
      if (error) reject(error);
      else resolve(data);
    };
    const timer = setTimeout(() => done(new Error('no banner')), timeoutMs);
    socket.on('data', (chunk: Buffer) => {
      data += chunk.toString('latin1');
      if (data.includes('\n')) done();
    });
    socket.on('error', (e) => done(e));
    socket.on('end', () => done(new Error(`connection closed after ${JSON.stringify(data)}`)));
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Pids of every live descendant of pid (from /proc), children before grandchildren. */
function descendantsOf(pid: number): number[] {
  const parentOf = new Map<number, number>();
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parentOf.set(Number(entry), ppid);
    } catch {
      // gone meanwhile
    }
  }
  const found: number[] = [];
  let frontier = [pid];
  while (frontier.length > 0) {
    const next: number[] = [];
    for (const [child, parent] of parentOf) if (frontier.includes(parent)) next.push(child);
    found.push(...next);
    frontier = next;
  }
  return found;
}

/** Signals a process we started, ignoring one that is already gone. */
function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
}

// sshd -D outlives a test process that dies without calling stop(); kill what is still running at exit.
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) {
    if (child.pid === undefined) continue;
    for (const pid of descendantsOf(child.pid)) signal(pid, 'SIGTERM');
    signal(child.pid, 'SIGTERM');
  }
});

function sshdConfig(dir: string, port: number, opts: SshdOptions): string {
  const extra = opts.extraConfig ?? [];
  const matchAt = extra.findIndex((line) => /^\s*Match\s/i.test(line));
  const before = matchAt === -1 ? extra : extra.slice(0, matchAt);
  const after = matchAt === -1 ? [] : extra.slice(matchAt);
  return [
    '# Written by test/helpers/sshd.ts',
    ...before,
    `Port ${port}`,
    'ListenAddress 127.0.0.1',
    `HostKey ${join(dir, 'ssh_host_ed25519_key')}`,
    `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
    ...(opts.trustedUserCaKeys?.length ? [`TrustedUserCAKeys ${join(dir, 'trusted_user_ca_keys')}`] : []),
    'PubkeyAuthentication yes',
    'PasswordAuthentication no',
    'KbdInteractiveAuthentication no',
    'UsePAM no',
    'StrictModes no',
    'PidFile none',
    'PermitRootLogin prohibit-password',
    `AllowTcpForwarding ${opts.allowTcpForwarding ? 'yes' : 'no'}`,
    'AllowAgentForwarding no',
    'AllowStreamLocalForwarding no',
    'X11Forwarding no',
    'PermitTunnel no',
    'UseDNS no',
    'PrintMotd no',
    'PrintLastLog no',
    // Benchmarks open hundreds of sessions at once; the default (10:30:100) drops unauthenticated
    // connections beyond 10.
    'MaxStartups 1000',
    'LoginGraceTime 30',
    'Subsystem sftp internal-sftp',
    'LogLevel VERBOSE',
    ...after,
    '',
  ].join('\n');
}

/**
 * Starts sshd on a free loopback port (or opts.port); retries with another port when it loses the port
 * to someone else (with opts.port, retries that same port after a short wait).
 */
export async function startSshd(opts: SshdOptions = {}): Promise<Sshd> {
  const why = sshdMissing();
  if (why !== undefined) throw new Error(`cannot start sshd: ${why}`);
  const dir = await mkdtemp(join(tmpdir(), 'gatehouse-sshd-'));
  try {
    const hostKey = join(dir, 'ssh_host_ed25519_key');
    await execFileAsync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'gatehouse-test-sshd', '-f', hostKey]);
    const hostPublicKey = (await readFile(`${hostKey}.pub`, 'utf8')).trim();
    const authorizedKeys = join(dir, 'authorized_keys');
    await writeFile(authorizedKeys, (opts.authorizedKeys ?? []).map((l) => `${l.trim()}\n`).join(''), { mode: 0o600 });
    if (opts.trustedUserCaKeys?.length) {
      await writeFile(join(dir, 'trusted_user_ca_keys'), opts.trustedUserCaKeys.map((l) => `${l.trim()}\n`).join(''));
    }
    const configPath = join(dir, 'sshd_config');

    const failures: string[] = [];
    for (let attempt = 1; attempt <= 5; attempt++) {
      const port = opts.port ?? (await freePort());
      if (opts.port !== undefined && attempt > 1) await sleep(200);
      await writeFile(configPath, sshdConfig(dir, port, opts));
      const started = await launch(configPath, port);
      if ('child' in started) {
        const { child, stderr } = started;
        let stopping: Promise<void> | undefined;
        return {
          host: '127.0.0.1',
          port,
          login: userInfo().username,
          hostPublicKey,
          dir,
          authorize(publicLine: string) {
            appendFileSync(authorizedKeys, `${publicLine.trim()}\n`);
          },
          logs: () => stderr.join(''),
          stop() {
            stopping ??= (async () => {
              await terminate(child);
              await rm(dir, { recursive: true, force: true });
            })();
            return stopping;
          },
        };
      }
      failures.push(`port ${port}: ${started.error}`);
      if (!started.portTaken) break;
    }
    throw new Error(`sshd did not start:\n${failures.join('\n')}`);
  } catch (e) {
    await rm(dir, { recursive: true, force: true });
    throw e;
  }
}

type Launch = { child: ChildProcess; stderr: string[] } | { error: string; portTaken: boolean };

/** Runs sshd -D and waits until it answers with an SSH banner, or exits. */
async function launch(configPath: string, port: number): Promise<Launch> {
  const child = spawn(SSHD_PATH, ['-D', '-e', '-f', configPath], { stdio: ['ignore', 'ignore', 'pipe'] });
  running.add(child);
  const stderr: string[] = [];
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => stderr.push(chunk));
  let exited = false;
  let spawnError: Error | undefined;
  const exit = new Promise<void>((resolve) => {
    child.once('exit', () => {
      exited = true;
      running.delete(child);
      resolve();
    });
    child.once('error', (e) => {
      spawnError = e;
      exited = true;
      running.delete(child);
      resolve();
    });
  });

  const deadline = Date.now() + 15_000;
  while (!exited && Date.now() < deadline) {
    try {
      const banner = await readBanner(port, 1000);
      // Ours, not some other server that took the port: sshd answers with its banner only once listening.
      if (banner.startsWith('SSH-2.0-') && !exited) return { child, stderr };
    } catch {
      // not listening yet
    }
    await Promise.race([exit, sleep(50)]);
  }
  if (!exited) {
    await terminate(child);
    return {
      error: `no SSH banner on 127.0.0.1:${port} within 15 s; sshd said:\n${stderr.join('')}`,
      portTaken: false,
    };
  }
  await exit;
  const log = stderr.join('');
  if (spawnError) return { error: `cannot run ${SSHD_PATH}: ${spawnError.message}`, portTaken: false };
  return {
    error: `sshd exited (code ${child.exitCode}, signal ${child.signalCode}):\n${log}`,
    portTaken: /Address already in use|Cannot bind any address|Bind to port/i.test(log),
  };
}

/** Stops sshd -D and the per-connection sshd processes it forked (they run in sessions of their own). */
async function terminate(child: ChildProcess): Promise<void> {
  const pid = child.pid;
  if (pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const forked = descendantsOf(pid);
  signal(pid, 'SIGTERM');
  for (const p of forked) signal(p, 'SIGTERM');
  const timedOut = await Promise.race([exited.then(() => false), sleep(5000).then(() => true)]);
  if (timedOut) {
    signal(pid, 'SIGKILL');
    await exited;
  }
  running.delete(child);
  // Per-connection processes still there (orphaned now, so found by the pids taken before).
  await sleep(forked.length > 0 ? 100 : 0);
  for (const p of forked) if (commOf(p) === 'sshd') signal(p, 'SIGKILL');
}

function commOf(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return undefined;
  }
}

/**
 * Registers `sshd` through the API as the server `name` (with `labels`) and lets the key Gatehouse
 * generated for it log in: what every SSH proxy test does first. Answers the server's id.
 */
export async function registerSshdServer(
  admin: (method: string, path: string, body?: unknown) => Promise<Reply>,
  sshd: Pick<Sshd, 'port' | 'authorize'>,
  name: string,
  labels: Record<string, string>,
): Promise<string> {
  const srv = await admin('POST', '/v1/resources', { kind: 'server', name, address: `127.0.0.1:${sshd.port}`, labels });
  if (srv.status !== 201) throw new Error(`registering ${name}: ${srv.status} ${srv.text}`);
  sshd.authorize(srv.json.ssh_public_key);
  return srv.json.id as string;
}
