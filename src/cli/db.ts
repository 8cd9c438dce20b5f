// Databases from the terminal: `db ls` (what you reach, as which users and names), `db connect`
// (runs psql through a private tunnel: a Unix socket in a folder only you may enter, each connection
// opened with a fresh one-time ticket, so no secret is on psql's command line, in its environment or
// in `ps`), and `proxy db` (the same tunnel on 127.0.0.1:PORT, for any driver or GUI, no password).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { runForeground, untilInterrupted } from './child.js';
import { type CliContext, CliError, portOption, type Runner } from './context.js';
import { type DbTarget, type DbTicket, startDbTunnel } from './db-tunnel.js';
import { reachable, registerReachableList } from './reach.js';

/** The one value a role allows (no glob), or undefined. */
const only = (values: string[]) => (values.length === 1 && !values[0]?.includes('*') ? values[0] : undefined);

/** The database, user and name to connect as: given, else the only one your roles allow. */
async function resolveTarget(
  ctx: CliContext,
  database: string,
  opts: { dbUser?: string; dbName?: string },
  required: boolean,
): Promise<DbTarget> {
  const [db] = await reachable(ctx, 'database', database);
  if (!db) throw new CliError(`no database named ${database} that you may reach (gatehouse db ls)`);
  const dbUser = opts.dbUser ?? only(db.db_users);
  const dbName = opts.dbName ?? only(db.db_names);
  if (required && !dbUser)
    throw new CliError(`--db-user: name one (your roles allow ${db.db_users.join(', ') || 'none'} on ${db.name})`, 2);
  if (required && !dbName)
    throw new CliError(`--db-name: name one (your roles allow ${db.db_names.join(', ') || 'none'} on ${db.name})`, 2);
  return { database: db.name, ...(dbUser ? { dbUser } : {}), ...(dbName ? { dbName } : {}) };
}

function ticketer(ctx: CliContext, database: string) {
  const { gh } = ctx.client();
  return async (dbUser: string, dbName: string): Promise<DbTicket> => {
    const t = await gh.ok(gh.api.POST('/v1/sessions', { body: { database, db_user: dbUser, db_name: dbName } }));
    if (!t.ticket || !t.proxy || !t.database) throw new CliError('Gatehouse answered no database ticket');
    return { ticket: t.ticket, proxy: t.proxy, database: { name: t.database.name ?? database } };
  };
}

interface DbOptions {
  dbUser?: string;
  dbName?: string;
}

export function registerDbCommands(program: Command, run: Runner): void {
  const db = program.command('db').description('PostgreSQL databases through Gatehouse');
  registerReachableList(
    db,
    run,
    'database',
    'the databases you may reach, with the users and names your roles allow',
    () => [
      { header: 'name', value: (d) => d.name },
      { header: 'db users', value: (d) => d.db_users },
      { header: 'db names', value: (d) => d.db_names },
      { header: 'labels', value: (d) => d.labels },
    ],
  );
  db.command('connect')
    .description('run psql on a database, signed in with a one-time ticket (never shown)')
    .argument('<db>', 'the database resource (name or id)')
    .argument('[psql-args...]', "psql's own arguments (after --)")
    .option('--db-user <user>', 'the database user (default: the only one your roles allow)')
    .option('--db-name <name>', 'the database to open (default: the only one your roles allow)')
    .action(
      run(async (ctx: CliContext, database: string, psqlArgs: string[], opts: DbOptions) => {
        const target = await resolveTarget(ctx, database, opts, true);
        // A Unix socket in a new 0700 folder: only this user can reach the tunnel while psql runs.
        const dir = mkdtempSync(join(tmpdir(), 'gatehouse-db-'));
        const socketPort = 5432;
        const tunnel = await startDbTunnel(
          { target, ticket: ticketer(ctx, target.database), log: (l) => ctx.out.stderr(`gatehouse: ${l}\n`) },
          { path: join(dir, `.s.PGSQL.${socketPort}`) },
        );
        try {
          const conninfo = `host=${dir} port=${socketPort} user=${target.dbUser} dbname=${target.dbName}`;
          // The caller's own password or service settings have no place on this connection.
          const { PGPASSWORD: _p, PGSERVICE: _s, ...env } = ctx.env;
          ctx.exitCode = await runForeground(ctx.env.GATEHOUSE_PSQL ?? 'psql', [conninfo, ...psqlArgs], env);
        } finally {
          tunnel.close();
          rmSync(dir, { recursive: true, force: true });
        }
      }),
    );

  const proxy = program.command('proxy').description('local tunnels through Gatehouse, for any client');
  proxy
    .command('db')
    .description(
      'a local PostgreSQL endpoint on 127.0.0.1:PORT: clients connect with no password, each connection with a fresh ticket',
    )
    .argument('<db>', 'the database resource (name or id)')
    .requiredOption('--port <port>', 'the local port (0: a free one, printed)', portOption)
    .option('--db-user <user>', "the database user (default: each client's own user name)")
    .option('--db-name <name>', "the database to open (default: each client's own)")
    .action(
      run(async (ctx: CliContext, database: string, opts: DbOptions & { port: number }) => {
        const target = await resolveTarget(ctx, database, opts, false);
        const tunnel = await startDbTunnel(
          { target, ticket: ticketer(ctx, target.database), log: (l) => ctx.out.stderr(`gatehouse: ${l}\n`) },
          { port: opts.port },
        ).catch((e: NodeJS.ErrnoException) => {
          throw new CliError(`--port ${opts.port}: ${e.code === 'EADDRINUSE' ? 'already in use' : e.message}`);
        });
        const address = tunnel.address() as { port: number };
        const user = target.dbUser ?? '<db user>';
        const name = target.dbName ?? '<db name>';
        ctx.print.item(
          { database: target.database, host: '127.0.0.1', port: address.port, db_user: user, db_name: name },
          {
            'Tunnel to': target.database,
            Listening: `127.0.0.1:${address.port} (any local program can use it while it runs; Ctrl-C ends it)`,
            Connect: `psql "host=127.0.0.1 port=${address.port} user=${user} dbname=${name}"`,
          },
        );
        await untilInterrupted(() => tunnel.close());
      }),
    );
}
