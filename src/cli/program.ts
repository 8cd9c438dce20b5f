// The `gatehouse` command line, on commander: the server's own commands (start, admin reset, backend
// copy: each keeps its parser and its exact behaviour, and loads the server only when run) and the
// client's (login, status, ssh, db, kube, …: docs/cli.md), which load nothing of the server. Exit
// codes: 0 done, 1 the operation failed (one line, a problem's detail), 2 bad usage.
import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { registerApplyCommands } from './apply.js';
import { registerAppCommands } from './apps.js';
import { registerClusterCommands } from './cluster.js';
import { registerCompletionCommand } from './completion.js';
import { createContext, failure, type GlobalOptions, type Runner } from './context.js';
import { registerDbCommands } from './db.js';
import { FORMATS } from './format.js';
import { registerKubeCommands } from './kube.js';
import { registerLoginCommands } from './login.js';
import { registerMcpCommands } from './mcp-connect.js';
import { type Output, processOutput } from './output.js';
import { registerPlayCommand } from './play.js';
import { registerSshCommands } from './ssh.js';
import { registerViewCommands } from './views.js';

const VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/** The server's commands, each with a parser of its own: argv goes to them untouched. */
const SERVER_COMMANDS: Record<string, (argv: string[]) => Promise<number>> = {
  start: async (argv) => (await import('./start.js')).startCommand(argv),
  admin: async (argv) => (await import('./admin-reset.js')).adminCommand(argv.slice(1)),
  backend: async (argv) => (await import('./backend-copy.js')).backendCommand(argv.slice(1)),
};

/** `gatehouse`, `gatehouse --config F`: start, as before there was a client. */
const startsServer = (argv: string[]) =>
  argv.length === 0 || argv[0] === '--config' || argv[0] === '-c' || argv[0]?.startsWith('--config=');

export interface CliIo {
  env: NodeJS.ProcessEnv;
  out: Output;
  columns?: number;
  isTTY?: boolean;
}

const defaultIo = (): CliIo => ({
  env: process.env,
  out: processOutput,
  ...(process.stdout.columns ? { columns: process.stdout.columns } : {}),
  isTTY: Boolean(process.stdout.isTTY),
});

export async function runCli(argv: string[], io: CliIo = defaultIo()): Promise<number> {
  const server = startsServer(argv) ? SERVER_COMMANDS.start : SERVER_COMMANDS[argv[0] as string];
  if (server) return server(argv);
  let exitCode = 0;
  const program = buildProgram(io, (code) => {
    exitCode = code;
  });
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    // Help and the version are answers; anything else commander refuses is bad usage.
    const answered = ['commander.helpDisplayed', 'commander.version', 'commander.help'].includes(error.code);
    return answered ? 0 : 2;
  }
  return exitCode;
}

export function buildProgram(io: CliIo, setExit: (code: number) => void): Command {
  const program = new Command('gatehouse');
  const run: Runner =
    (action) =>
    async (...args) => {
      const command = args[args.length - 1] as Command;
      try {
        const ctx = createContext(command.optsWithGlobals() as GlobalOptions, io);
        await action(ctx, ...(args as never[]));
        if (ctx.exitCode !== 0) setExit(ctx.exitCode);
      } catch (error) {
        const { line, code } = failure(error);
        io.out.stderr(`gatehouse: ${line}\n`);
        setExit(code);
      }
    };
  program
    .description('Gatehouse: run the server, or use it from the terminal (docs/cli.md)')
    .version(`gatehouse ${VERSION}`, '--version', 'print the version')
    .option('--profile <name>', 'the profile to use (GATEHOUSE_PROFILE; default: default)')
    .option('--format <format>', `output: ${FORMATS.join(', ')} (default: table)`)
    .configureHelp({ helpWidth: 100, sortSubcommands: false })
    .configureOutput({
      writeOut: (s) => io.out.stdout(s),
      writeErr: (s) => io.out.stderr(s),
      outputError: (s, write) => write(`gatehouse: ${s.replace(/^error: /, '')}`),
    })
    .exitOverride();
  for (const [name, summary] of [
    ['start', 'run Gatehouse: the API, the console and the proxies (gatehouse start --help)'],
    ['admin', 'break-glass: restore admin access (gatehouse admin reset --help)'],
    ['backend', 'copy the state into another store (gatehouse backend copy --help)'],
  ] as const) {
    // Listed for help; argv never reaches them here (runCli hands these to their own parsers).
    program.command(name).description(summary).helpOption(false).allowUnknownOption().allowExcessArguments();
  }
  registerLoginCommands(program, run);
  registerSshCommands(program, run);
  registerDbCommands(program, run);
  registerKubeCommands(program, run);
  registerAppCommands(program, run);
  registerMcpCommands(program, run);
  registerViewCommands(program, run);
  registerPlayCommand(program, run);
  registerApplyCommands(program, run);
  registerClusterCommands(program, run);
  registerCompletionCommand(program, run);
  // Every subcommand answers errors and help the way the program does.
  const inherit = (cmd: Command) => {
    for (const sub of cmd.commands) {
      sub.exitOverride().configureOutput(program.configureOutput()).configureHelp({ helpWidth: 100 });
      inherit(sub);
    }
  };
  inherit(program);
  return program;
}
