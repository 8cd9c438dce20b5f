// Another program run in the foreground (ssh, psql): it owns the terminal; Ctrl-C is its to handle
// (the terminal sends SIGINT to both, and this process must not die under it); its exit status is ours,
// or 128 + the signal that killed it.
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { CliError } from './context.js';

export async function runForeground(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const ignore = () => {};
  process.on('SIGINT', ignore);
  try {
    return await new Promise<number>((resolve, reject) => {
      const child = spawn(command, args, { stdio: 'inherit', env });
      child.once('error', (e) => reject(new CliError(`cannot run ${command}: ${e.message}`)));
      // Killed by a signal: 128 + its number, as a shell reports it (SIGKILL 137, SIGTERM 143).
      child.once('exit', (code, signal) => resolve(code ?? (signal ? 128 + (constants.signals[signal] ?? 0) : 1)));
    });
  } finally {
    process.off('SIGINT', ignore);
  }
}

/** Waits for Ctrl-C or SIGTERM (a tunnel runs until then), then runs `stop`. */
export function untilInterrupted(stop: () => void): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      stop();
      resolve();
    };
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
}
