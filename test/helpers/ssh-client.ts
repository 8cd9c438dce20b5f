// Runs the real OpenSSH client (ssh) against a test server, with no user config, agent or default
// keys leaking in: -F /dev/null, IdentitiesOnly, IdentityAgent none, its own known_hosts file.
import { type ChildProcessWithoutNullStreams, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, openSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

export interface SshRun {
  /** ssh's exit code: the remote command's, or 255 when ssh itself failed (auth, connection). */
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface SshClientOptions {
  port: number;
  /** 127.0.0.1 unless given. */
  host?: string;
  /** Login user, passed with -l; e.g. 'root' for an sshd, 'root@web-1' for the Gatehouse proxy. */
  user: string;
  /** Private key file (-i). Without it no key at all is offered (IdentityFile none). */
  identityFile?: string;
  /**
   * Answer to every password / keyboard-interactive prompt: ssh reads it through SSH_ASKPASS
   * (SSH_ASKPASS_REQUIRE=force) from a 0600 file that a temp askpass script prints, never from a
   * command line. One try only (NumberOfPasswordPrompts=1).
   */
  password?: string;
  /** Called with everything received on stdout so far, each time more arrives (to act mid-session). */
  onStdout?: (soFar: string) => void;
  /** known_hosts to check the server against (StrictHostKeyChecking=yes); default: a fresh temp file with accept-new. */
  knownHostsFile?: string;
  /**
   * ssh_config file for -F; default /dev/null, so no user or system config leaks in. `ssh -J`
   * passes it on to the jump host's ssh (which gets none of our -o options), so a jump test
   * writes its choices here.
   */
  configFile?: string;
  /** More ssh arguments, placed before the defaults: an `-o Key=value` here wins over the same default. */
  extraArgs?: string[];
  /** Force a PTY (-tt); otherwise -T. */
  tty?: boolean;
  /** What ssh reads on stdin: a string or Buffer written then closed, or a function given the child to drive it. Default: closed at once. */
  stdin?: string | Buffer | ((child: ChildProcessWithoutNullStreams) => void);
  /** A file opened as ssh's stdin (the shell's `<`: no copy through this process). Wins over stdin. */
  stdinFile?: string;
  /** Kill ssh and reject after this long (default 30 s). */
  timeoutMs?: number;
}

/** Shell-quotes one argument for an error message. */
const quote = (arg: string) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`);

/** The ssh argument list for opts (without the temp files' set-up); exported for tests and benches. */
export function sshArgs(
  command: string | undefined,
  opts: SshClientOptions,
  files: { knownHostsFile: string; strict: boolean },
): string[] {
  const o = (option: string) => ['-o', option];
  return [
    ...(opts.extraArgs ?? []),
    '-F',
    opts.configFile ?? '/dev/null',
    ...o(`BatchMode=${opts.password !== undefined ? 'no' : 'yes'}`),
    ...o('IdentitiesOnly=yes'),
    ...o('IdentityAgent=none'),
    ...(opts.identityFile !== undefined ? ['-i', opts.identityFile] : o('IdentityFile=none')),
    ...(opts.password !== undefined ? o('NumberOfPasswordPrompts=1') : []),
    ...o(`UserKnownHostsFile=${files.knownHostsFile}`),
    ...o('GlobalKnownHostsFile=/dev/null'),
    ...o(`StrictHostKeyChecking=${files.strict ? 'yes' : 'accept-new'}`),
    ...o('LogLevel=ERROR'),
    ...o('ConnectTimeout=10'),
    opts.tty ? '-tt' : '-T',
    '-p',
    String(opts.port),
    '-l',
    opts.user,
    opts.host ?? '127.0.0.1',
    ...(command !== undefined ? ['--', command] : []),
  ];
}

/** Runs ssh once and resolves with its exit code and output; rejects (after killing it) on timeout. */
export async function sshExec(command: string | undefined, opts: SshClientOptions): Promise<SshRun> {
  const dir = await mkdtemp(join(tmpdir(), 'gatehouse-ssh-client-'));
  try {
    const knownHostsFile = opts.knownHostsFile ?? join(dir, 'known_hosts');
    if (opts.knownHostsFile === undefined) await writeFile(knownHostsFile, '');
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const key of ['SSH_AUTH_SOCK', 'SSH_AGENT_PID', 'SSH_ASKPASS', 'SSH_ASKPASS_REQUIRE', 'DISPLAY'])
      delete env[key];
    if (opts.password !== undefined) {
      const secret = join(dir, 'secret');
      await writeFile(secret, opts.password, { mode: 0o600 });
      const askpass = join(dir, 'askpass');
      await writeFile(askpass, `#!/bin/sh\nexec cat '${secret.replace(/'/g, `'\\''`)}'\n`, { mode: 0o700 });
      await chmod(askpass, 0o700);
      env.SSH_ASKPASS = askpass;
      env.SSH_ASKPASS_REQUIRE = 'force';
    }
    const args = sshArgs(command, opts, { knownHostsFile, strict: opts.knownHostsFile !== undefined });
    return await run(args, env, opts);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function run(args: string[], env: NodeJS.ProcessEnv, opts: SshClientOptions): Promise<SshRun> {
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const stdinFd = opts.stdinFile !== undefined ? openSync(opts.stdinFile, 'r') : undefined;
  let child: ChildProcessWithoutNullStreams;
  try {
    child = spawn('ssh', args, {
      env,
      stdio: [stdinFd ?? 'pipe', 'pipe', 'pipe'],
    }) as ChildProcessWithoutNullStreams;
  } finally {
    if (stdinFd !== undefined) closeSync(stdinFd); // the child has its own copy
  }
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  child.stdout.on('data', (b: Buffer) => {
    stdout.push(b);
    opts.onStdout?.(Buffer.concat(stdout).toString('utf8'));
  });
  child.stderr.on('data', (b: Buffer) => stderr.push(b));
  return new Promise<SshRun>((resolve, reject) => {
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(new Error(`cannot run ssh: ${e.message}`));
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      const result = {
        code,
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
      };
      if (timedOut) {
        reject(
          new Error(
            `ssh timed out after ${timeoutMs} ms and was killed: ssh ${args.map(quote).join(' ')}\n` +
              `stderr: ${result.stderr || '(empty)'}\nstdout: ${result.stdout.slice(-2000) || '(empty)'}`,
          ),
        );
      } else resolve(result);
    });
    if (child.stdin) {
      child.stdin.on('error', () => {}); // ssh may exit before reading everything
      if (opts.stdinFile !== undefined) {
        // stdin is the file itself
      } else if (typeof opts.stdin === 'function') opts.stdin(child);
      else if (opts.stdin !== undefined) child.stdin.end(opts.stdin);
      else child.stdin.end();
    }
  });
}

/** Makes a passphrase-less client key pair in dir (a fresh file name each call). */
export async function generateClientKey(
  dir: string,
  type: 'ed25519' = 'ed25519',
): Promise<{ privatePath: string; publicLine: string }> {
  const privatePath = join(dir, `id_${type}_${randomBytes(4).toString('hex')}`);
  await execFileAsync('ssh-keygen', ['-q', '-t', type, '-N', '', '-C', 'gatehouse-test-client', '-f', privatePath]);
  return { privatePath, publicLine: (await readFile(`${privatePath}.pub`, 'utf8')).trim() };
}
