// Real redis-server processes on free loopback ports, in temporary directories (Debian redis-server
// and redis-tools; .ci/run installs them): one server that can be stopped and started again on the
// same port, or a 6-node cluster (3 masters, 3 replicas) whose nodes can be killed.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './sshd.js';
import { until } from './until.js';

const exec = promisify(execFile);
export const REDIS_SERVER = ['/usr/bin/redis-server', '/usr/local/bin/redis-server'].find((p) => existsSync(p));
const REDIS_CLI = ['/usr/bin/redis-cli', '/usr/local/bin/redis-cli'].find((p) => existsSync(p));

export interface RedisNode {
  port: number;
  stop(signal?: NodeJS.Signals): Promise<void>;
  start(): Promise<void>;
  cli(...args: string[]): Promise<string>;
}

function redisNode(dir: string, port: number, extra: string[] = []): RedisNode {
  let child: ChildProcess | undefined;
  const cli = async (...args: string[]) =>
    (await exec(REDIS_CLI as string, ['-p', String(port), ...args], { timeout: 10_000 })).stdout.trim();
  return {
    port,
    cli,
    async start() {
      mkdirSync(dir, { recursive: true });
      child = spawn(
        REDIS_SERVER as string,
        ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', ...extra],
        { stdio: 'ignore' },
      );
      await until(`redis-server on ${port}`, async () =>
        (await cli('ping').catch(() => '')) === 'PONG' ? true : undefined,
      );
    },
    async stop(signal = 'SIGTERM') {
      const c = child;
      if (!c || c.exitCode !== null || c.signalCode !== null) return;
      const exited = new Promise((r) => c.once('exit', r));
      c.kill(signal);
      await exited;
    },
  };
}

export function redisMissing(): string | undefined {
  if (!REDIS_SERVER || !REDIS_CLI)
    return 'redis-server and redis-cli are not installed (apt-get install redis-server redis-tools)';
  return undefined;
}

export interface RedisServer extends RedisNode {
  url: string;
  close(): Promise<void>;
}

export async function startRedis(): Promise<RedisServer> {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-redis-'));
  const node = redisNode(dir, await freePort());
  await node.start();
  return {
    ...node,
    url: `redis://127.0.0.1:${node.port}`,
    async close() {
      await node.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface RedisCluster {
  nodes: RedisNode[];
  /** redis+cluster://127.0.0.1:p1,… as GATEHOUSE_REDIS_URL takes it. */
  url: string;
  /** The node that is master for the key's slot now. */
  masterOf(key: string): Promise<RedisNode>;
  /** The same for many keys at once, in their order. */
  mastersOf(keys: string[]): Promise<RedisNode[]>;
  /** Waits until every slot is served by a reachable master. */
  healthy(): Promise<void>;
  close(): Promise<void>;
}

export async function startRedisCluster(): Promise<RedisCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-redis-cluster-'));
  const ports: number[] = [];
  while (ports.length < 6) {
    const p = await freePort();
    // The cluster bus listens on --cluster-port; pick it as another free port.
    if (!ports.includes(p)) ports.push(p);
  }
  const busPorts = await Promise.all(ports.map(() => freePort()));
  const nodes = ports.map((port, i) =>
    redisNode(join(dir, String(port)), port, [
      '--cluster-enabled',
      'yes',
      '--cluster-port',
      String(busPorts[i]),
      '--cluster-config-file',
      join(dir, `${port}.conf`),
      '--cluster-node-timeout',
      '1000',
    ]),
  );
  await Promise.all(nodes.map((n) => n.start()));
  await exec(
    REDIS_CLI as string,
    ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '1', '--cluster-yes'],
    { timeout: 30_000 },
  );
  const cluster: RedisCluster = {
    nodes,
    url: `redis+cluster://${ports.map((p) => `127.0.0.1:${p}`).join(',')}`,
    async masterOf(key) {
      return (await cluster.mastersOf([key]))[0] as RedisNode;
    },
    async mastersOf(keys) {
      for (const n of nodes) {
        // One redis-cli for all the keys' slots (one per key took ~5 ms each), then one CLUSTER NODES.
        const run = exec(REDIS_CLI as string, ['-p', String(n.port)], { timeout: 10_000 });
        run.child.stdin?.end(keys.map((k) => `CLUSTER KEYSLOT ${k}\n`).join(''));
        const slots = await run.then(
          (r) => r.stdout.trim().split('\n').map(Number),
          () => undefined,
        );
        if (!slots || slots.length !== keys.length || slots.some(Number.isNaN)) continue;
        // Lines: id host:port@bus flags master-id ping pong epoch state slot-ranges…
        const served: Array<{ node: RedisNode; ranges: Array<[number, number]> }> = [];
        for (const line of (await n.cli('cluster', 'nodes')).split('\n')) {
          const [, addr, flags, , , , , , ...ranges] = line.split(' ');
          if (!flags?.includes('master') || flags.includes('fail')) continue;
          const port = Number(addr?.split('@')[0]?.split(':')[1]);
          const node = nodes.find((x) => x.port === port);
          if (!node) continue;
          served.push({
            node,
            ranges: ranges.map((r) => {
              const [lo, hi] = r.split('-').map(Number) as [number, number | undefined];
              return [lo, hi ?? lo];
            }),
          });
        }
        return slots.map((slot, i) => {
          const master = served.find((m) => m.ranges.some(([lo, hi]) => slot >= lo && slot <= hi));
          if (!master) throw new Error(`no master serves ${keys[i]}`);
          return master.node;
        });
      }
      throw new Error('no redis node answers');
    },
    async healthy() {
      await until(
        'redis cluster ok',
        async () => {
          for (const n of nodes) {
            const info = await n.cli('cluster', 'info').catch(() => undefined);
            if (info?.includes('cluster_state:ok')) return true;
          }
          return undefined;
        },
        30_000,
      );
    },
    async close() {
      await Promise.all(nodes.map((n) => n.stop()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await cluster.healthy();
  // cluster_state:ok comes before the replicas' first sync (~5 s here): a master killed before its
  // replica synced is never failed over (the replica's data is too old to be promoted), and a
  // failover test then waits for what cannot happen (CI on Node 22, 2026-12-03).
  await until(
    'every redis replica synced with its master',
    async () => {
      const infos = await Promise.all(nodes.map((n) => n.cli('info', 'replication')));
      return infos.every((i) => i.includes('role:master') || i.includes('master_link_status:up')) ? true : undefined;
    },
    30_000,
  );
  return cluster;
}

/**
 * POST /v1/auth/token from a given loopback source address (127.x.y.z all reach 127.0.0.1 on Linux),
 * so each throttle test counts against a source of its own instead of everything from 127.0.0.1.
 */
export function tokenRequestFrom(
  baseUrl: string,
  localAddress: string,
  apiKey: string,
): Promise<{ status: number; retryAfter: string | undefined }> {
  const body = JSON.stringify({ api_key: apiKey });
  const url = new URL('/v1/auth/token', baseUrl);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        localAddress,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on('end', () => {
          const retry = res.headers['retry-after'];
          resolve({ status: res.statusCode ?? 0, retryAfter: Array.isArray(retry) ? retry[0] : retry });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
