// Runs the real `gatehouse` command (bin/gatehouse.mjs: the build when it is fresh, as CI runs it, else
// the sources through tsx) as a child process on free ports.
import { type ChildProcess, spawn } from 'node:child_process';

export interface Running {
  child: ChildProcess;
  output: () => string;
  authUrl: string;
  webUrl: string;
}

/** A child Gatehouse's listeners on free loopback ports, quiet logs, no webhook deliveries. */
export const CHILD_ENV: Record<string, string> = {
  GATEHOUSE_AUTH_ADDR: '127.0.0.1:0',
  GATEHOUSE_WEB_ADDR: '127.0.0.1:0',
  GATEHOUSE_SSH_ADDR: '127.0.0.1:0',
  GATEHOUSE_DB_ADDR: '127.0.0.1:0',
  GATEHOUSE_KUBE_ADDR: '127.0.0.1:0',
  GATEHOUSE_METRICS_ADDR: '127.0.0.1:0',
  GATEHOUSE_WEBHOOKS_DELIVER: 'false',
  GATEHOUSE_LOG_LEVEL: 'warn',
};

const spawnGatehouse = (env: Record<string, string>, args: string[]): ChildProcess =>
  spawn(process.execPath, ['bin/gatehouse.mjs', ...args], {
    env: {
      PATH: process.env.PATH ?? '',
      ...CHILD_ENV,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });

/** Runs a command that ends by itself (`admin reset …`): its exit code and what it wrote where. */
export function runToExit(
  env: Record<string, string>,
  args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawnGatehouse(env, args);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d) => {
    stdout += d;
  });
  child.stderr?.on('data', (d) => {
    stderr += d;
  });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

export function run(env: Record<string, string>, args: string[] = ['start']): Promise<Running> {
  const child = spawnGatehouse(env, args);
  let out = '';
  child.stdout?.on('data', (d) => {
    out += d;
  });
  child.stderr?.on('data', (d) => {
    out += d;
  });
  return new Promise((resolve, reject) => {
    // Generous: several instances compiling through tsx at once on a loaded 2-core machine are slow.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no start within 60 s:\n${out}`));
    }, 60_000);
    const check = () => {
      // The start line lists what this process's roles listen on (an auth-only one has no web).
      const line = /^Gatehouse \S+: (.*)\n/m.exec(out)?.[1];
      if (line === undefined) return;
      const authUrl = /auth API (https?:\/\/[^\s,]+)/.exec(line)?.[1] ?? '';
      const webUrl = /web (https?:\/\/[^\s,]+)/.exec(line)?.[1] ?? '';
      clearTimeout(timer);
      resolve({ child, output: () => out, authUrl, webUrl });
    };
    child.stdout?.on('data', check);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(Object.assign(new Error(`exited ${code}:\n${out}`), { output: out, code }));
    });
  });
}

export const stop = (r: Running, signal: NodeJS.Signals = 'SIGTERM') =>
  new Promise<number | null>((resolve) => {
    r.child.removeAllListeners('exit');
    r.child.on('exit', (code) => resolve(code));
    r.child.kill(signal);
  });
