// A real PostgreSQL primary and streaming standby on loopback, made from the machine's binaries
// (initdb, pg_basebackup -R, pg_ctl in /usr/lib/postgresql/<ver>/bin), run as the postgres user in a
// temporary directory. Synchronous replication is on by default: the primary names the standby in
// synchronous_standby_names, so a COMMIT returns only once the standby has flushed its WAL.
import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './sshd.js';
import { until } from './until.js';

const run = promisify(execFile);

function binDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (!versions[0]) throw new Error(`no PostgreSQL server binaries under ${root} (apt-get install postgresql)`);
  return join(root, versions[0], 'bin');
}

/** Runs a PostgreSQL binary as the postgres user (the server refuses to run as root). */
async function asPostgres(bin: string, args: string[]): Promise<string> {
  const cmd = process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
  const { stdout } = await run(cmd[0] as string, cmd[1] as string[], { timeout: 60_000 });
  return stdout;
}

export interface PgNode {
  name: string;
  port: number;
  /** host:port, as a multi-host URL lists it. */
  hostPort: string;
  dataDir: string;
  /** `pg_ctl stop -m <mode>`; immediate is a crash (no shutdown checkpoint). */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  start(): Promise<void>;
  /** `pg_ctl promote -w`: a standby becomes a primary. */
  promote(): Promise<void>;
  sql<T extends pg.QueryResultRow = pg.QueryResultRow>(text: string, params?: unknown[]): Promise<T[]>;
}

export interface PgReplication {
  primary: PgNode;
  standby: PgNode;
  /** postgres://postgres@p1,p2/postgres?target_session_attrs=read-write plus extra parameters. */
  url(params?: Record<string, string>): string;
  close(): Promise<void>;
}

export async function startReplication(opts: { synchronous?: boolean } = {}): Promise<PgReplication> {
  const bin = binDir();
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-pgrepl-'));
  const uid = Number((await run('id', ['-u', 'postgres'])).stdout.trim());
  const gid = Number((await run('id', ['-g', 'postgres'])).stdout.trim());
  if (process.getuid?.() === 0) chownSync(dir, uid, gid);
  const nodes: PgNode[] = [];

  function node(name: string, port: number): PgNode {
    const dataDir = join(dir, name);
    const ctl = (...args: string[]) => asPostgres(join(bin, 'pg_ctl'), ['-D', dataDir, ...args]);
    const n: PgNode = {
      name,
      port,
      hostPort: `127.0.0.1:${port}`,
      dataDir,
      async stop(mode = 'fast') {
        await ctl('stop', '-m', mode, '-w').catch(() => {}); // already stopped is fine
      },
      async start() {
        await ctl('start', '-w', '-t', '60', '-l', join(dir, `${name}.log`));
      },
      async promote() {
        await ctl('promote', '-w', '-t', '60');
      },
      async sql(text, params = []) {
        const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres' });
        await client.connect();
        try {
          return (await client.query(text, params)).rows;
        } finally {
          await client.end().catch(() => {});
        }
      },
    };
    nodes.push(n);
    return n;
  }

  try {
    const primary = node('primary', await freePort());
    const standby = node('standby', await freePort());
    await asPostgres(join(bin, 'initdb'), ['-D', primary.dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8']);
    const common = [
      "listen_addresses = '127.0.0.1'",
      `unix_socket_directories = '${dir}'`,
      'wal_level = replica',
      'max_wal_senders = 5',
      'hot_standby = on',
      'shared_buffers = 32MB',
      'log_min_messages = warning',
    ];
    writeFileSync(
      join(primary.dataDir, 'postgresql.auto.conf'),
      [
        ...common,
        `port = ${primary.port}`,
        opts.synchronous === false ? '' : "synchronous_standby_names = 'standby'",
        '',
      ].join('\n'),
    );
    await primary.start();
    // -R writes standby.signal and primary_conninfo; application_name names it for synchronous_standby_names.
    await asPostgres(join(bin, 'pg_basebackup'), [
      '-d',
      `host=127.0.0.1 port=${primary.port} user=postgres application_name=standby`,
      '-D',
      standby.dataDir,
      '-R',
      '-X',
      'stream',
    ]);
    await asPostgres('/bin/sh', [
      '-c',
      `printf '%s\\n' "port = ${standby.port}" "synchronous_standby_names = ''" >> '${join(standby.dataDir, 'postgresql.auto.conf')}'`,
    ]);
    await standby.start();
    if (opts.synchronous !== false) {
      await until('the standby streaming synchronously', async () => {
        const rows = await primary.sql<{ s: string }>(
          "SELECT sync_state AS s FROM pg_stat_replication WHERE application_name = 'standby'",
        );
        return rows[0]?.s === 'sync' ? true : undefined;
      });
    }
    return {
      primary,
      standby,
      url(params = {}) {
        const q = new URLSearchParams({ target_session_attrs: 'read-write', ...params });
        return `postgres://postgres@${primary.hostPort},${standby.hostPort}/postgres?${q}`;
      },
      async close() {
        await Promise.all(nodes.map((n) => n.stop('immediate')));
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await Promise.all(nodes.map((n) => n.stop('immediate')));
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}
