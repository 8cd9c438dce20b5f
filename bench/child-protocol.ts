// The little protocol between bench/run.ts and the servers it spawns: a child prints one line
// `BENCH_READY <json>` on stdout once it listens, and shuts down on SIGTERM, SIGINT or when its
// stdin closes (so it never outlives a parent that died).

import { type ChildProcess, spawn } from 'node:child_process';

export const READY_PREFIX = 'BENCH_READY ';

/** Runs a TypeScript child (tsx) and resolves with what its READY line says, once it printed it. */
export function startBenchChild<T>(script: string, args: string[] = []): Promise<{ proc: ChildProcess } & T> {
  const proc = spawn(process.execPath, ['--import', 'tsx', script, ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    proc.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const line = out.split('\n').find((l) => l.startsWith(READY_PREFIX));
      if (line) resolve({ proc, ...JSON.parse(line.slice(READY_PREFIX.length)) });
    });
    proc.on('exit', (code) => reject(new Error(`${script} exited (${code})`)));
  });
}

export interface GatehouseReady {
  url: string;
  agents: number;
  setupMs: number;
  /** BENCH_INPROCESS_REFERENCE: the minimal pipeline served in Gatehouse's own process, and its token. */
  reference?: { url: string; token: string };
}

export interface BareReady {
  url: string;
}

/** bench/serve-gatehouse-ssh.ts: the API URL, and the SSH proxy's address or why there is none. */
export interface GatehouseSshReady {
  url?: string;
  ssh?: { host: string; port: number };
  sshUnavailable?: string;
}

/** bench/serve-gatehouse-audit.ts: the API URL and an admin access token. */
export interface GatehouseAuditReady {
  url: string;
  token: string;
}

export function announceReady(info: GatehouseReady | BareReady | GatehouseSshReady | GatehouseAuditReady): void {
  process.stdout.write(`${READY_PREFIX}${JSON.stringify(info)}\n`);
}

let stopping = false;

/** True once shutdown has begun: errors from work cut short by it are expected. */
export const isStopping = (): boolean => stopping;

/** Runs stop() once on the first termination signal or when the parent's end of stdin closes, then exits. */
export function exitOnParentGone(stop: () => Promise<void>): void {
  const shutdown = (code: number) => {
    if (stopping) return;
    stopping = true;
    const hardExit = setTimeout(() => process.exit(code), 5_000);
    hardExit.unref();
    stop()
      .catch((e: unknown) => {
        process.stderr.write(`bench child: shutdown failed: ${String(e)}\n`);
      })
      .finally(() => process.exit(code));
  };
  process.on('SIGTERM', () => shutdown(0));
  process.on('SIGINT', () => shutdown(0));
  process.stdin.on('end', () => shutdown(0));
  process.stdin.on('error', () => shutdown(0));
  process.stdin.resume();
}
