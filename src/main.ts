// The gatehouse command: `gatehouse start [--config FILE]`, `gatehouse admin reset …` (break-glass).
// First, before any native addon loads: refuse a Node.js release we do not support, in one line.
import './node-version.js';
import { parseArgs } from 'node:util';
import { adminCommand } from './cli/admin-reset.js';
import { ConfigError, loadConfig } from './config/load.js';
import { StartupError, startGatehouse, VERSION } from './server.js';

const USAGE = `usage: gatehouse start [--config FILE]
       gatehouse admin reset [--config FILE] [--user NAME] [--force]

start runs Gatehouse; admin reset restores admin access when no admin can log in (gatehouse admin
reset --help). Settings come from FILE (YAML) and GATEHOUSE_* environment variables; see README.md.`;

async function main(argv: string[]): Promise<number> {
  if (argv[0] === 'admin') return adminCommand(argv.slice(1));
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
  try {
    const config = loadConfig({ ...(typeof parsed.values.config === 'string' ? { file: parsed.values.config } : {}) });
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
  process.stdout.write(
    `Gatehouse ${VERSION}: auth API ${gatehouse.authUrl}${gatehouse.webUrl ? `, web ${gatehouse.webUrl}` : ''}${gatehouse.metricsUrl ? `, metrics ${gatehouse.metricsUrl}/metrics` : ''}\n`,
  );

  await new Promise<void>((resolveStop) => {
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) {
        process.stderr.write('gatehouse: forced exit\n');
        process.exit(1);
      }
      stopping = true;
      process.stdout.write(`gatehouse: ${signal}, shutting down (in-flight requests finish first)\n`);
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

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e) => {
    process.stderr.write(`gatehouse: ${(e as Error).stack ?? String(e)}\n`);
    process.exit(1);
  },
);
