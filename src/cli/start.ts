// `gatehouse start [--config FILE]`: runs Gatehouse in this process until SIGINT or SIGTERM. Loaded only
// for the server's commands (program.ts), so the client's commands do not load the server.
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, unknownVariables } from '../config/load.js';
import { parseDuration } from '../lib/duration.js';
import { StartupError, startGatehouse, VERSION } from '../server.js';

/** How long a stop may take after http.shutdown_drain (README: "within 10 s"). */
const SHUTDOWN_LIMIT_MS = 9500;

const USAGE = `usage: gatehouse start [--config FILE]
       gatehouse admin reset [--config FILE] [--user NAME] [--force]
       gatehouse backend copy --from URL --to URL [--force]

start runs Gatehouse; admin reset restores admin access when no admin can log in (gatehouse admin
reset --help); backend copy moves the state into another store (gatehouse backend copy --help).
Settings come from FILE (YAML) and GATEHOUSE_* environment variables; see README.md. The client's
commands (login, ssh, db, kube, …) are listed by gatehouse --help (docs/cli.md).`;

/** Every port this process listens on, for the start line (roles decide which exist). */
function listeners(g: Awaited<ReturnType<typeof startGatehouse>>): string[] {
  const at = (a: { host: string; port: number }) => `${a.host.includes(':') ? `[${a.host}]` : a.host}:${a.port}`;
  return [
    g.authUrl && `auth API ${g.authUrl}`,
    g.webUrl && `web ${g.webUrl}`,
    g.sshAddr && `SSH ${at(g.sshAddr)}`,
    g.kubeAddr && `Kubernetes https://${at(g.kubeAddr)}`,
    g.dbAddr && `PostgreSQL ${at(g.dbAddr)}`,
    g.metricsUrl && `metrics ${g.metricsUrl}/metrics`,
  ].filter((x): x is string => Boolean(x));
}

/** Runs `gatehouse [start] [--config FILE]` and answers the exit code once Gatehouse has stopped. */
export async function startCommand(argv: string[]): Promise<number> {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        config: { type: 'string', short: 'c' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean' },
      },
    });
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (parsed.values.version) {
    process.stdout.write(`gatehouse ${VERSION}\n`);
    return 0;
  }
  const command = parsed.positionals[0] ?? 'start';
  if (parsed.values.help || command !== 'start') {
    process.stdout.write(`${USAGE}\n`);
    return parsed.values.help ? 0 : 2;
  }

  let gatehouse: Awaited<ReturnType<typeof startGatehouse>>;
  let shutdownDrainMs = 0;
  try {
    const config = loadConfig({ ...(typeof parsed.values.config === 'string' ? { file: parsed.values.config } : {}) });
    shutdownDrainMs = parseDuration(config.http.shutdown_drain) ?? 0;
    for (const warning of unknownVariables()) process.stderr.write(`gatehouse: warning: ${warning}\n`);
    gatehouse = await startGatehouse(config);
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`gatehouse: ${e.message}\n`);
      return 2;
    }
    if (e instanceof StartupError) {
      process.stderr.write(`gatehouse: ${e.message}\n`);
      return 1;
    }
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'EADDRINUSE') {
      process.stderr.write(
        `gatehouse: cannot listen: ${err.message}; set GATEHOUSE_AUTH_ADDR, GATEHOUSE_WEB_ADDR or GATEHOUSE_METRICS_ADDR\n`,
      );
      return 1;
    }
    throw e;
  }

  if (gatehouse.bootstrap.generatedKey) {
    process.stdout.write(
      `\nFirst start: created user "admin". Its API key, shown only this once, is\n\n  ${gatehouse.bootstrap.generatedKey}\n\nand it was also written to ${gatehouse.bootstrap.keyFile} (mode 0600).\n\n`,
    );
  }
  process.stdout.write(`Gatehouse ${VERSION}: ${listeners(gatehouse).join(', ')}\n`);
  // The same as a log record, for whoever reads the log rather than the terminal.
  gatehouse.logger.info({ version: VERSION, listeners: listeners(gatehouse) }, `Gatehouse ${VERSION} started`);

  await new Promise<void>((resolveStop) => {
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) {
        process.stderr.write('gatehouse: forced exit\n');
        process.exit(1);
      }
      stopping = true;
      process.stdout.write(`gatehouse: ${signal}, shutting down (in-flight requests finish first)\n`);
      // Every door and listener ends what it holds within its own bound (server.ts close()); this is
      // the last resort, so that nothing missed there keeps a process alive holding its ports and spool.
      setTimeout(() => {
        process.stderr.write(`gatehouse: still stopping ${SHUTDOWN_LIMIT_MS / 1000} s after ${signal}: exiting now\n`);
        process.exit(1);
      }, shutdownDrainMs + SHUTDOWN_LIMIT_MS).unref();
      gatehouse.close().then(resolveStop, (e) => {
        process.stderr.write(`gatehouse: error while stopping: ${(e as Error).message}\n`);
        resolveStop();
      });
    };
    process.on('SIGINT', () => stop('SIGINT'));
    process.on('SIGTERM', () => stop('SIGTERM'));
  });
  return 0;
}
