// Runs the `gatehouse` client as a person does: a child process (bin/gatehouse.mjs, the build when fresh, spawned
// asynchronously so the servers this test process hosts keep answering), with HOME and
// GATEHOUSE_HOME in a temporary folder of its own.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliHome {
  dir: string;
  env: Record<string, string>;
  /** Runs `gatehouse <args>` to its end; `input` is written to its stdin. */
  run(args: string[], opts?: { env?: Record<string, string>; input?: string }): Promise<CliResult>;
  /** Starts `gatehouse <args>` and leaves it running (a tunnel); the caller ends it. */
  spawn(args: string[], opts?: { env?: Record<string, string> }): ChildProcess;
  remove(): void;
}

export function cliHome(): CliHome {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-cli-'));
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: dir,
    GATEHOUSE_HOME: join(dir, '.gatehouse'),
    NO_COLOR: '1',
  };
  const start = (args: string[], extra: Record<string, string> = {}) =>
    spawn(process.execPath, ['bin/gatehouse.mjs', ...args], {
      env: { ...env, ...extra },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
  return {
    dir,
    env,
    run(args, opts = {}) {
      const child = start(args, opts.env);
      let stdout = '';
      let stderr = '';
      child.stdout?.on('data', (d) => {
        stdout += d;
      });
      child.stderr?.on('data', (d) => {
        stderr += d;
      });
      child.stdin?.end(opts.input ?? '');
      return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
    },
    spawn: (args, opts = {}) => start(args, opts.env),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** The pid of a child of `parent` whose command is `comm` (ssh, psql), once it runs. */
export async function childNamed(parent: number, comm: string, waitMs = 30_000): Promise<number> {
  for (const end = Date.now() + waitMs; Date.now() < end; await new Promise((r) => setTimeout(r, 100))) {
    for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        // pid (comm) state ppid …: comm may hold spaces, so read after its closing parenthesis.
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        if (ppid === parent && stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) === comm) return Number(pid);
      } catch {
        // gone meanwhile
      }
    }
  }
  throw new Error(`no ${comm} child of ${parent} within ${waitMs} ms`);
}
