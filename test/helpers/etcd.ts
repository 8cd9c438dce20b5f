// Real etcd members on loopback for the etcd backend's tests (Debian etcd-server; .ci/run installs
// it). One member, or a cluster of three whose members can be stopped and started again.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './sshd.js';
import { until } from './until.js';

export const ETCD_BIN = ['/usr/bin/etcd', '/usr/local/bin/etcd'].find((p) => existsSync(p));

export interface EtcdMember {
  name: string;
  clientUrl: string;
  /** host:port, as GATEHOUSE_BACKEND_URL takes it. */
  hostPort: string;
  stop(signal?: NodeJS.Signals): Promise<void>;
  start(): Promise<void>;
}

export interface EtcdCluster {
  members: EtcdMember[];
  /** etcd://h1,h2,h3 with the given prefix. */
  url(prefix?: string): string;
  close(): Promise<void>;
}

export async function startEtcd(size = 1): Promise<EtcdCluster> {
  if (!ETCD_BIN) throw new Error('etcd is not installed (apt-get install etcd-server etcd-client)');
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-etcd-'));
  const ports = await Promise.all(Array.from({ length: size }, async () => [await freePort(), await freePort()]));
  const names = ports.map((_, i) => `m${i}`);
  const cluster = names.map((n, i) => `${n}=http://127.0.0.1:${ports[i]?.[1]}`).join(',');
  const members: EtcdMember[] = names.map((name, i) => {
    const [client, peer] = ports[i] as number[];
    let child: ChildProcess | undefined;
    const member: EtcdMember = {
      name,
      clientUrl: `http://127.0.0.1:${client}`,
      hostPort: `127.0.0.1:${client}`,
      async start() {
        child = spawn(
          ETCD_BIN as string,
          [
            `--name=${name}`,
            `--data-dir=${join(dir, name)}`,
            `--listen-client-urls=http://127.0.0.1:${client}`,
            `--advertise-client-urls=http://127.0.0.1:${client}`,
            `--listen-peer-urls=http://127.0.0.1:${peer}`,
            `--initial-advertise-peer-urls=http://127.0.0.1:${peer}`,
            `--initial-cluster=${cluster}`,
            '--initial-cluster-state=new',
            '--heartbeat-interval=100',
            '--election-timeout=1000',
            '--log-level=error',
          ],
          { stdio: 'ignore' },
        );
      },
      async stop(signal = 'SIGTERM') {
        const c = child;
        if (!c || c.exitCode !== null) return;
        const exited = new Promise((r) => c.once('exit', r));
        c.kill(signal);
        await exited;
      },
    };
    return member;
  });
  await Promise.all(members.map((m) => m.start()));
  await until(
    'etcd healthy',
    async () => {
      const res = await fetch(`${members[0]?.clientUrl}/health`).catch(() => undefined);
      const ok = res?.ok === true && ((await res.json()) as { health: string }).health === 'true';
      return ok ? true : undefined;
    },
    20_000,
  );
  return {
    members,
    url: (prefix = '/gatehouse/') =>
      `etcd://${members.map((m) => m.hostPort).join(',')}?prefix=${encodeURIComponent(prefix)}`,
    async close() {
      await Promise.all(members.map((m) => m.stop('SIGKILL')));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
