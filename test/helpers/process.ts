// Runs the real `gatehouse` command (src/main.ts through tsx) as a child process on free ports.
import { type ChildProcess, spawn } from 'node:child_process';

export interface Running {
  child: ChildProcess;
  output: () => string;
  authUrl: string;
  webUrl: string;
}

const spawnGatehouse = (env: Record<string, string>, args: string[]): ChildProcess =>
  spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], {
    env: {
      PATH: process.env.PATH ?? '',
      GATEHOUSE_AUTH_ADDR: '127.0.0.1:0',
      GATEHOUSE_WEB_ADDR: '127.0.0.1:0',
      GATEHOUSE_SSH_ADDR: '127.0.0.1:0',
      GATEHOUSE_DB_ADDR: '127.0.0.1:0',
      GATEHOUSE_KUBE_ADDR: '127.0.0.1:0',
      GATEHOUSE_METRICS_ADDR: '127.0.0.1:0',
      GATEHOUSE_WEBHOOKS_DELIVER: 'false',
      GATEHOUSE_LOG_LEVEL: 'warn',
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
    const timer = setTimeout(() => reject(new Error(`no start within 20 s:\n${out}`)), 20_000);
    const check = () => {
      const m = /auth API (http:\/\/[^\s,]+), web (http:\/\/[^\s,]+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, output: () => out, authUrl: m[1] as string, webUrl: m[2] as string });
      }
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
