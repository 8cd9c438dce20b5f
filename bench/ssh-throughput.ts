// SSH throughput and session-memory benchmark (npm run bench:ssh).
//
//  Throughput: SSH_BENCH_MIB MiB (256) of random bytes from a file on ssh's stdin (as with `<`) into
//  `cat > /dev/null`, by the real OpenSSH client along three paths:
//    (1) direct     ssh → sshd
//    (2) jump       ssh -J (OpenSSH's own jump host: a second sshd with TCP forwarding) → sshd
//    (3) Gatehouse  ssh → Gatehouse's SSH proxy (a child process) → sshd
//  SSH_BENCH_ROUNDS rounds (3), each running every path once, in a rotating order; the table shows
//  medians. MiB/s counts the whole ssh run (connect, auth, transfer); "connect" is the median time
//  of `ssh … true` on the same path, so the transfer alone is roughly the difference.
//
//  Sessions: SSH_BENCH_SESSIONS (200) idle sessions held open through Gatehouse at once, measured
//  first, on the fresh proxy; its process's VmRSS before and with them open gives the memory per session.
//
// Everything listens on 127.0.0.1. Without Gatehouse's SSH proxy, (3) and the sessions part report
// "Gatehouse SSH proxy not available" and the rest still runs. The exit code is 0 unless (1) or (2) fail.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, platform, release, tmpdir, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { generateClientKey, type SshClientOptions, type SshRun, sshExec } from '../test/helpers/ssh-client.js';
import { type Sshd, sshdMissing, startSshd } from '../test/helpers/sshd.js';
import { type GatehouseSshReady, READY_PREFIX } from './child-protocol.js';
import { intEnv, median } from './stats.js';

const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(BENCH_DIR, '..');

const MIB = intEnv('SSH_BENCH_MIB', 256, 1);
const ROUNDS = intEnv('SSH_BENCH_ROUNDS', 3, 1);
const SESSIONS = intEnv('SSH_BENCH_SESSIONS', 200, 1);
/** How many idle sessions are being opened at once (each is a full ssh handshake through the proxy). */
const OPEN_PARALLEL = 20;
const UNAVAILABLE = 'Gatehouse SSH proxy not available';
const SERVER_NAME = 'bench-target';

// ---------------------------------------------------------------------------------------------
// Clean-up

const sshds: Sshd[] = [];
const children: ChildProcess[] = [];
const tmpDirs: string[] = [];
let interrupted = false;
let cleaning: Promise<void> | undefined;

async function stopChild(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  proc.kill('SIGTERM');
  proc.stdin?.end();
  const timedOut = await Promise.race([
    exited.then(() => false),
    new Promise<boolean>((r) => setTimeout(() => r(true), 10_000).unref()),
  ]);
  if (timedOut) {
    proc.kill('SIGKILL');
    await exited;
  }
}

function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    await Promise.all([...children.map(stopChild), ...sshds.map((s) => s.stop())]);
    for (const dir of tmpDirs) rmSync(dir, { recursive: true, force: true });
  })();
  return cleaning;
}

function onSignal(): void {
  if (interrupted) return;
  interrupted = true;
  console.error('\ninterrupted; stopping the servers');
  void cleanup().finally(() => process.exit(130));
}
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

// ---------------------------------------------------------------------------------------------
// Helpers

/** Resident memory of a process in MiB (VmRSS), or undefined without /proc. */
function rssMiB(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const m = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** First line a command prints on stdout or stderr (ssh -V writes to stderr). */
function versionOf(cmd: string, args: string[]): string {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  return `${r.stdout ?? ''}${r.stderr ?? ''}`.trim().split('\n')[0] || 'unknown';
}

async function writePayload(path: string, mib: number): Promise<void> {
  const out = createWriteStream(path);
  for (let i = 0; i < mib; i++) {
    if (!out.write(randomBytes(1 << 20))) await new Promise<void>((r) => out.once('drain', () => r()));
  }
  await new Promise<void>((res, rej) => out.end((e?: Error | null) => (e ? rej(e) : res())));
}

function describeFailure(run: SshRun): string {
  return `exit ${run.code}: ${run.stderr.trim() || run.stdout.trim() || '(no output)'}`;
}

async function json(
  url: string,
  init: RequestInit & { token?: string; body?: string },
): Promise<Record<string, unknown>> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  const res = await fetch(url, { ...init, headers });
  const text = await res.text();
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${url}: ${res.status} ${text}`);
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}

/** Starts bench/serve-gatehouse-ssh.ts and waits for its ready line. */
function spawnGatehouse(dataDir: string, apiKey: string): Promise<{ proc: ChildProcess; info: GatehouseSshReady }> {
  const proc = spawn(process.execPath, ['--import', 'tsx', join(BENCH_DIR, 'serve-gatehouse-ssh.ts'), dataDir], {
    cwd: ROOT,
    env: { ...process.env, BENCH_API_KEY: apiKey },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  children.push(proc);
  const stderr: string[] = [];
  proc.stderr?.setEncoding('utf8');
  proc.stderr?.on('data', (s: string) => {
    stderr.push(s);
    if (process.env.SSH_BENCH_VERBOSE) process.stderr.write(`[gatehouse] ${s}`);
  });
  return new Promise((resolvePromise, reject) => {
    let ready = false;
    const timer = setTimeout(() => {
      if (!ready) reject(new Error('Gatehouse was not ready after 60 s'));
    }, 60_000);
    const lines = createInterface({ input: proc.stdout as NodeJS.ReadableStream });
    lines.on('line', (line) => {
      if (!ready && line.startsWith(READY_PREFIX)) {
        ready = true;
        clearTimeout(timer);
        resolvePromise({ proc, info: JSON.parse(line.slice(READY_PREFIX.length)) as GatehouseSshReady });
      } else process.stderr.write(`[gatehouse] ${line}\n`);
    });
    proc.on('exit', (code, signal) => {
      clearTimeout(timer);
      const lines = stderr.join('').trim().split('\n');
      const said = lines.find((l) => /\b\w*Error\b/.test(l))?.trim() ?? lines.slice(-5).join('\n');
      if (!ready) reject(new Error(`Gatehouse exited before it was ready (code ${code}, signal ${signal}): ${said}`));
    });
    proc.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
  });
}

interface Path {
  label: string;
  client: SshClientOptions;
}

interface GatehousePath extends Path {
  proc: ChildProcess;
}

/**
 * Starts Gatehouse with its SSH proxy, registers the target sshd as a server and a user with the
 * bench key, and proves a login works. Throws with the reason when any of it is missing.
 */
async function setUpGatehouse(
  tmp: string,
  target: Sshd,
  key: { privatePath: string; publicLine: string },
): Promise<GatehousePath> {
  const apiKey = `bench-${randomBytes(24).toString('hex')}`;
  const { proc, info } = await spawnGatehouse(join(tmp, 'gatehouse-data'), apiKey);
  if (!info.ssh || !info.url) throw new Error(info.sshUnavailable ?? 'no SSH address announced');
  const url = info.url;
  const { access_token: token } = (await json(`${url}/v1/auth/token`, {
    method: 'POST',
    body: JSON.stringify({ api_key: apiKey }),
  })) as { access_token: string };
  const server = await json(`${url}/v1/resources`, {
    method: 'POST',
    token,
    body: JSON.stringify({ kind: 'server', name: SERVER_NAME, address: `${target.host}:${target.port}` }),
  });
  if (typeof server.ssh_public_key !== 'string') {
    throw new Error(`POST /v1/resources returned no ssh_public_key: ${JSON.stringify(server)}`);
  }
  target.authorize(server.ssh_public_key);
  const user = await json(`${url}/v1/users`, {
    method: 'POST',
    token,
    body: JSON.stringify({ name: 'bench-ssh-user', roles: ['access'], traits: { logins: [target.login] } }),
  });
  await json(`${url}/v1/users/${String(user.id)}/ssh-keys`, {
    method: 'POST',
    token,
    body: JSON.stringify({ public_key: key.publicLine }),
  });
  const client: SshClientOptions = {
    host: info.ssh.host,
    port: info.ssh.port,
    user: `${target.login}@${SERVER_NAME}`,
    identityFile: key.privatePath,
  };
  const probe = await sshExec('echo gatehouse-ok', { ...client, timeoutMs: 30_000 });
  if (probe.code !== 0 || probe.stdout.trim() !== 'gatehouse-ok') {
    throw new Error(`a login through the proxy failed (${describeFailure(probe)})`);
  }
  return { label: '(3) Gatehouse', client, proc };
}

interface Sample {
  seconds: number;
  mibPerS: number;
}

async function transfer(path: Path, payload: string): Promise<Sample> {
  const started = process.hrtime.bigint();
  const run = await sshExec('cat > /dev/null', { ...path.client, stdinFile: payload, timeoutMs: 30 * 60_000 });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (run.code !== 0) throw new Error(`${path.label}: ${describeFailure(run)}`);
  return { seconds, mibPerS: MIB / seconds };
}

async function connectSeconds(path: Path): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 3; i++) {
    const started = process.hrtime.bigint();
    const run = await sshExec('true', path.client);
    if (run.code !== 0) throw new Error(`${path.label}: ${describeFailure(run)}`);
    times.push(Number(process.hrtime.bigint() - started) / 1e9);
  }
  return median(times);
}

/**
 * Opens SESSIONS idle sessions through the proxy, reads its RSS, then closes them; returns the
 * report lines. Run on a fresh proxy, before the throughput runs leave garbage in its heap for new
 * sessions to reuse.
 */
async function idleSessions(gh: GatehousePath): Promise<string[]> {
  const out: string[] = [];
  const pid = gh.proc.pid;
  const before = rssMiB(pid);
  const closers: Array<() => void> = [];
  const runs: Array<Promise<SshRun>> = [];
  let opened = 0;
  const started = Date.now();
  const openOne = () =>
    new Promise<void>((ready, failed) => {
      const run = sshExec('echo ready; exec cat', {
        ...gh.client,
        timeoutMs: 15 * 60_000,
        stdin: (child) => {
          closers.push(() => child.stdin.end());
          let seen = '';
          child.stdout.on('data', (b: Buffer) => {
            seen += b.toString();
            if (seen.includes('ready\n')) ready();
          });
        },
      });
      runs.push(run);
      run.then((r) => failed(new Error(`an idle session ended before it was ready (${describeFailure(r)})`)), failed);
    });
  let failure: unknown;
  try {
    let next = 0;
    const worker = async () => {
      while (next < SESSIONS && !interrupted) {
        next++;
        await openOne();
        opened++;
      }
    };
    await Promise.all(Array.from({ length: OPEN_PARALLEL }, worker));
    const openSeconds = (Date.now() - started) / 1000;
    await new Promise((r) => setTimeout(r, 2000)); // let the proxy settle
    const during = rssMiB(pid);
    out.push(`- opened ${opened} sessions in ${openSeconds.toFixed(1)} s (${OPEN_PARALLEL} handshakes at a time)`);
    if (before !== undefined && during !== undefined) {
      out.push(`- proxy process VmRSS: ${before.toFixed(1)} MiB before, ${during.toFixed(1)} MiB with them open`);
      out.push(`- per session: ${(((during - before) * 1024) / opened).toFixed(0)} KiB`);
    } else out.push('- VmRSS unavailable (no /proc)');
  } catch (e) {
    failure = e;
  } finally {
    for (const close of closers) close();
    await Promise.allSettled(runs);
  }
  if (failure !== undefined) {
    out.push(`- FAILED after ${opened} sessions: ${failure instanceof Error ? failure.message : String(failure)}`);
  } else {
    await new Promise((r) => setTimeout(r, 2000));
    const after = rssMiB(pid);
    if (after !== undefined) out.push(`- VmRSS after closing them all: ${after.toFixed(1)} MiB`);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const wallStart = Date.now();
  const cpu = cpus();
  console.log('# Gatehouse SSH benchmark\n');
  console.log(`- CPU: ${cpu[0]?.model.trim() ?? 'unknown'} × ${cpu.length} cores`);
  console.log(`- Memory: ${(totalmem() / 2 ** 30).toFixed(1)} GiB; OS: ${platform()} ${release()}`);
  console.log(`- Node ${process.version}; ${versionOf('ssh', ['-V'])}; ciphers and MACs: OpenSSH defaults`);
  const [load1, load5] = loadavg();
  console.log(`- Load average before the run: ${load1?.toFixed(2)} (1 min), ${load5?.toFixed(2)} (5 min)`);
  console.log(`- ${MIB} MiB per copy into \`cat > /dev/null\`, ${ROUNDS} rounds, paths in a rotating order\n`);

  const missing = sshdMissing();
  if (missing !== undefined) throw new Error(`OpenSSH cannot run here: ${missing}`);

  const tmp = mkdtempSync(join(tmpdir(), 'gatehouse-ssh-bench-'));
  tmpDirs.push(tmp);
  const payload = join(tmp, 'payload.bin');
  process.stdout.write(`Writing ${MIB} MiB of random bytes… `);
  await writePayload(payload, MIB);
  console.log('done');

  const key = await generateClientKey(tmp);
  const target = await startSshd({ authorizedKeys: [key.publicLine] });
  sshds.push(target);
  const jump = await startSshd({ authorizedKeys: [key.publicLine], allowTcpForwarding: true });
  sshds.push(jump);
  console.log(`Target sshd on 127.0.0.1:${target.port}, jump-host sshd on 127.0.0.1:${jump.port}`);

  // `ssh -J` runs a second ssh for the jump host, which gets our -F file but not our -o options.
  const jumpConfig = join(tmp, 'jump_ssh_config');
  writeFileSync(
    jumpConfig,
    [
      'Host *',
      '  IdentitiesOnly yes',
      '  IdentityAgent none',
      `  IdentityFile ${key.privatePath}`,
      '  StrictHostKeyChecking accept-new',
      `  UserKnownHostsFile ${join(tmp, 'jump_known_hosts')}`,
      '  BatchMode yes',
      '  LogLevel ERROR',
      '',
    ].join('\n'),
  );
  const direct: Path = {
    label: '(1) direct',
    client: { port: target.port, user: target.login, identityFile: key.privatePath },
  };
  const viaJump: Path = {
    label: '(2) ssh -J',
    client: {
      ...direct.client,
      configFile: jumpConfig,
      extraArgs: ['-J', `${jump.login}@127.0.0.1:${jump.port}`],
    },
  };

  let gh: GatehousePath | undefined;
  let ghUnavailable: string | undefined;
  process.stdout.write('Starting Gatehouse with its SSH proxy… ');
  try {
    gh = await setUpGatehouse(tmp, target, key);
    console.log(`proxy at ${gh.client.host}:${gh.client.port}`);
  } catch (e) {
    ghUnavailable = `${UNAVAILABLE}: ${e instanceof Error ? e.message : String(e)}`;
    console.log(`\n${ghUnavailable}`);
  }

  let sessionReport: string[] = [`skipped: ${ghUnavailable}`];
  if (gh) {
    process.stdout.write(`Holding ${SESSIONS} idle sessions open through Gatehouse… `);
    sessionReport = await idleSessions(gh);
    console.log('done');
  }

  const paths: Path[] = [direct, viaJump, ...(gh ? [gh] : [])];
  const connect = new Map<Path, number>();
  for (const p of paths) connect.set(p, await connectSeconds(p));

  const samples = new Map<Path, Sample[]>(paths.map((p) => [p, []]));
  console.log('');
  for (let round = 0; round < ROUNDS && !interrupted; round++) {
    const order = paths.map((_, i) => paths[(i + round) % paths.length] as Path);
    const parts: string[] = [];
    for (const p of order) {
      const s = await transfer(p, payload);
      samples.get(p)?.push(s);
      parts.push(`${p.label} ${s.mibPerS.toFixed(0)} MiB/s (${s.seconds.toFixed(2)} s)`);
    }
    console.log(`Round ${round + 1}/${ROUNDS}: ${parts.join(', ')}`);
  }
  if (interrupted) return;

  const rate = (p: Path) => median((samples.get(p) ?? []).map((s) => s.mibPerS));
  console.log(`\n## Throughput (median of ${ROUNDS}, ${MIB} MiB each)\n`);
  // The transfer alone: the run less the time a bare `ssh … true` takes on the same path.
  const transferRate = (p: Path) =>
    median((samples.get(p) ?? []).map((s) => MIB / Math.max(1e-3, s.seconds - (connect.get(p) ?? 0))));
  console.log('| Path | MiB/s | seconds | connect (`ssh … true`) | MiB/s less connect |');
  console.log('| --- | ---: | ---: | ---: | ---: |');
  for (const p of paths) {
    const secs = median((samples.get(p) ?? []).map((s) => s.seconds));
    const conn = `${((connect.get(p) ?? 0) * 1000).toFixed(0)} ms`;
    console.log(
      `| ${p.label} | ${rate(p).toFixed(0)} | ${secs.toFixed(2)} | ${conn} | ${transferRate(p).toFixed(0)} |`,
    );
  }
  if (gh) {
    const ratio = (a: number, b: number) => (a / b).toFixed(2);
    console.log(
      `| (3) / (1) | ${ratio(rate(gh), rate(direct))} | | | ${ratio(transferRate(gh), transferRate(direct))} |`,
    );
    console.log(
      `| (3) / (2) | ${ratio(rate(gh), rate(viaJump))} | | | ${ratio(transferRate(gh), transferRate(viaJump))} |`,
    );
  } else {
    console.log('| (3) Gatehouse | n/a | | | n/a |');
    console.log(`\n(3) and its ratios: ${ghUnavailable}`);
  }

  console.log(`\n## ${SESSIONS} concurrent idle sessions through Gatehouse (a fresh proxy, before the copies)\n`);
  for (const line of sessionReport) console.log(line);

  console.log(`\nWall time: ${((Date.now() - wallStart) / 1000).toFixed(1)} s`);
}

main()
  .catch((e: unknown) => {
    console.error(`ssh benchmark failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    process.exitCode = 1;
  })
  .finally(() => cleanup());
