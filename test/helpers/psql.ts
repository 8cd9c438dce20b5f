// Runs the real psql (and pgbench) as child processes, asynchronously: the proxy under test lives in
// this process, so a synchronous spawn would block the very event loop that must answer it.
import { spawn, spawnSync } from 'node:child_process';
import { connect as netConnect } from 'node:net';
import { serialize } from 'pg-protocol';

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function run(
  command: string,
  args: string[],
  opts: { env?: Record<string, string>; input?: string; timeoutMs?: number } = {},
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      env: { PATH: process.env.PATH ?? '', ...opts.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(opts.input ?? '');
  });
}

/** A libpq connection string through the proxy. */
export const through = (port: number, dbUser: string, database: string, dbName: string, extra = '') =>
  `host=127.0.0.1 port=${port} user=${dbUser}@${database} dbname=${dbName} sslmode=disable ${extra}`.trim();

/** psql straight to the machine's PostgreSQL (no proxy) as postgres on database test: setup and checks. */
export const directPsql = (args: string[]) =>
  run('psql', ['-X', '-h', '127.0.0.1', '-U', 'postgres', '-d', 'test', ...args]);

/** psql with the password in PGPASSWORD (never on the command line), -X: no ~/.psqlrc. */
export const psql = (conninfo: string, password: string, args: string[], input?: string) =>
  run('psql', ['-X', '-v', 'ON_ERROR_STOP=1', conninfo, ...args], {
    env: { PGPASSWORD: password, PGCONNECT_TIMEOUT: '10' },
    ...(input === undefined ? {} : { input }),
  });

/** Whether the machine's PostgreSQL (127.0.0.1:5432, trust, database `test`) answers. */
export function requirePostgres(what: string): boolean {
  const r = spawnSync('psql', ['-X', '-h', '127.0.0.1', '-U', 'postgres', '-d', 'test', '-tAc', 'select 1'], {
    encoding: 'utf8',
    timeout: 10_000,
  });
  if (r.status === 0) return true;
  if (process.env.CI === 'true')
    throw new Error(`${what}: PostgreSQL at 127.0.0.1:5432 (db test) is required under CI`);
  console.log(`# ${what} skipped: no PostgreSQL at 127.0.0.1:5432`);
  return false;
}

/**
 * What psql's Ctrl-C sends: a CancelRequest (pg-protocol's, 16 bytes) on a connection of its own to
 * host:port; resolves once the server has closed it (PostgreSQL answers a cancel with nothing).
 */
export function sendCancelRequest(port: number, pid: number, secret: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const s = netConnect({ host: '127.0.0.1', port }, () => s.end(serialize.cancel(pid, secret)));
    s.on('close', () => resolve());
    s.on('error', () => resolve());
  });
}
