// Runs the real kubectl (the machine image ships 1.27–1.33) against a kubeconfig, in a HOME of its
// own so its discovery cache never leaks between tests; optionally under a pseudo-terminal (script(1))
// for `exec -it`.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';

export interface KubectlRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export const kubectlBinary = (minor?: number): string => {
  const path = minor === undefined ? '/usr/bin/kubectl' : `/usr/lib/google-cloud-sdk/bin/kubectl.1.${minor}`;
  if (!existsSync(path)) throw new Error(`${path} is missing: the machine image ships kubectl 1.27–1.33`);
  return path;
};

export function kubectl(
  args: string[],
  opts: {
    kubeconfig: string;
    home: string;
    minor?: number;
    stdin?: string | Buffer;
    timeoutMs?: number;
    onStdout?: (s: string) => void;
  },
): Promise<KubectlRun> & { kill(): void } {
  const child = spawn(kubectlBinary(opts.minor ?? 33), args, {
    env: { PATH: process.env.PATH ?? '', HOME: opts.home, KUBECONFIG: opts.kubeconfig },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
    opts.onStdout?.(stdout);
  });
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  child.stdin.on('error', () => {});
  if (opts.stdin !== undefined) child.stdin.end(opts.stdin);
  else child.stdin.end();
  const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 30_000);
  const done = new Promise<KubectlRun>((resolve) => {
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  }) as Promise<KubectlRun> & { kill(): void };
  done.kill = () => child.kill('SIGINT');
  return done;
}
