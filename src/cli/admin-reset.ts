// `gatehouse admin reset`: break-glass recovery of admin access by an operator who holds the data dir
// and the state store (docs/operations.md, "Break-glass: recovering admin access"). Exit codes: 0 done, 1 refused
// or failed, 2 bad usage; every error is one line.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Value } from '@sinclair/typebox/value';
import { resetAdmin } from '../admin-reset.js';
import { type InstanceHolder, runningInstances } from '../backend/instance-lease.js';
import { ConfigError, loadConfig } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { webPublicUrl } from '../config/web-public-url.js';
import { systemClock } from '../lib/clock.js';
import { Name } from '../lib/shapes.js';
import { createServices } from '../services.js';
import { openStores } from '../stores.js';
import { type Output, processOutput } from './output.js';

export const ADMIN_USAGE = `usage: gatehouse admin reset [--config FILE] [--user NAME] [--force]

Break-glass: creates the user NAME (default: admin) with the admin role, or makes that user active
and an admin again, and prints a new API key for it once. Uses the stores configured as for
\`gatehouse start\` (--config FILE, GATEHOUSE_* variables). Stop Gatehouse first: while a server uses
the state store this refuses, unless --force.`;

/** Runs `gatehouse admin <argv…>` and answers the exit code. */
export async function adminCommand(argv: string[], out: Output = processOutput): Promise<number> {
  const usageError = (message: string) => {
    out.stderr(`gatehouse: ${message}\n${ADMIN_USAGE}\n`);
    return 2;
  };
  let parsed: ReturnType<typeof parseFlags>;
  try {
    parsed = parseFlags(argv);
  } catch (e) {
    return usageError((e as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    out.stdout(`${ADMIN_USAGE}\n`);
    return 0;
  }
  if (positionals[0] !== 'reset' || positionals.length > 1) {
    return usageError(positionals[0] === undefined ? 'admin needs a subcommand' : `unknown: ${positionals.join(' ')}`);
  }
  const userName = values.user ?? 'admin';
  if (!Value.Check(Name, userName)) return usageError(`--user: ${Name.description} (at most 64)`);

  let config: Config;
  try {
    config = loadConfig(values.config === undefined ? {} : { file: values.config });
  } catch (e) {
    // A bad setting, or a config file that is not YAML: one line, as `gatehouse start` says it.
    out.stderr(`gatehouse: ${e instanceof ConfigError ? '' : 'cannot load the config: '}${(e as Error).message}\n`);
    return 2;
  }

  let stores: Awaited<ReturnType<typeof openStores>>;
  try {
    stores = await openStores(config, resolve(config.data_dir), { mustExist: true });
  } catch (e) {
    out.stderr(`gatehouse: ${(e as Error).message}\n`);
    return e instanceof ConfigError ? 2 : 1;
  }
  const { backend, auditStore } = stores;
  try {
    // Why a lease in the state store rather than a lock file in the data dir: the store is what must
    // not have a second writer, and only the store is shared by every instance — a data-dir file knows
    // nothing of a server on another host using the same etcd or PostgreSQL, while a lease under
    // `locks/instances/` (taken at start, renewed, deleted on stop, expiring 15 s after a crash) reads
    // the same through every backend. On the embedded SQLite store a running server is also blind to
    // this write: its cache is fed only by its own writes, so it would not see the new key until restarted.
    const holders = await runningInstances(backend);
    if (holders.length > 0 && !values.force) {
      out.stderr(`gatehouse: ${refusal(holders)}\n`);
      return 1;
    }
    const services = await createServices({ config, backend, auditStore, clock: systemClock });
    let result: Awaited<ReturnType<typeof resetAdmin>>;
    try {
      result = await resetAdmin(services, { userName });
    } finally {
      services.close();
    }
    if (holders.length > 0) {
      out.stderr(
        `gatehouse: --force: ${describe(holders)} still uses this store; on the embedded SQLite store it sees the new key only once restarted\n`,
      );
    }
    out.stdout(
      `Admin access restored: user "${result.user.name}" (${result.user.id}) was ${result.action} and holds the admin role.${removedKeys(result.removedMfaDevices)} Its new API key, shown only this once and saved nowhere:\n` +
        `${result.apiKey}\n${howToUse(config, result.requiresMfa)}`,
    );
    return 0;
  } catch (e) {
    out.stderr(`gatehouse: admin reset failed: ${(e as Error).message}\n`);
    return 1;
  } finally {
    await auditStore.close().catch(() => undefined);
    await backend.close().catch(() => undefined);
  }
}

function parseFlags(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      config: { type: 'string', short: 'c' },
      user: { type: 'string', short: 'u' },
      force: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

const removedKeys = (n: number) =>
  n === 0 ? '' : ` ${n === 1 ? 'Its 1 security key was' : `Its ${n} security keys were`} removed (auth.mfa.removed).`;

/** Where the key works: the API, or only the console when a role asks for a security key there. */
function howToUse(config: Config, requiresMfa: boolean): string {
  if (requiresMfa) {
    const [, port] = /:(\d+)$/.exec(config.web_addr) ?? [];
    const web = webPublicUrl(config, config.tls ? 'https' : 'http', Number(port ?? 3080));
    return (
      'A role of this user requires a security key (require_mfa), so the API gives this key no tokens: sign in at the console, ' +
      `${new URL('/login', web).href}, with this key and register a new security key when asked. Delete this API key once a regular admin exists again.\n`
    );
  }
  const scheme = config.tls ? 'https' : 'http';
  return (
    'Get a token with it while Gatehouse runs (KEY=the key above), and delete this key once a regular admin exists again:\n' +
    `  curl -s -XPOST ${scheme}://${config.auth_addr}/v1/auth/token -H 'content-type: application/json' -d "{\\"api_key\\":\\"$KEY\\"}"\n`
  );
}

const describe = (holders: InstanceHolder[]) => holders.map((h) => `${h.holder} (since ${h.since})`).join(', ');

function refusal(holders: InstanceHolder[]): string {
  const expiries = holders.map((h) => h.expiresAt).filter((t): t is number => t !== undefined);
  const gone =
    expiries.length > 0
      ? ` If it has already died, its lease runs out at ${new Date(Math.max(...expiries)).toISOString()}.`
      : '';
  return (
    `refusing to reset: the state store is in use by ${describe(holders)}. ` +
    'Stop it (Ctrl-C or SIGTERM) and run this again, or pass --force to reset while it runs ' +
    `(on the embedded SQLite store it sees the new key only once restarted).${gone}`
  );
}
