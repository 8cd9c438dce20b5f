// The one Redis connection of a Gatehouse process (node-redis; a single server or a cluster), and its
// health. Every caller goes through `run`, which fails fast (no offline queue, a short timeout) so a
// Redis outage costs a request nothing: the caller falls back to its per-instance state instead.
// Reconnection is node-redis's own, with jittered backoff so instances restarted together do not
// reconnect in lockstep (reconnect storms: Teleport #6255).
import type { createClient } from 'redis';
import { ConfigError } from '../config/load.js';

/** The commands Gatehouse uses, the same on a single server and on a cluster (one key each). */
export interface RedisCommands {
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  set(key: string, value: string, options: { PX: number }): Promise<unknown>;
  get(key: string): Promise<string | null>;
  del(key: string): Promise<number>;
  sPublish(channel: string, message: string): Promise<number>;
  sSubscribe(channel: string, listener: (message: string) => void): Promise<void>;
}

export interface RedisLink {
  /** For operators: redis://host:port or the cluster's seed list, without credentials. */
  readonly target: string;
  /** Whether the last command or probe reached Redis. */
  readonly up: boolean;
  /** Runs commands, within timeoutMs (default 1 s); marks the link down when Redis does not answer. */
  run<T>(use: (redis: RedisCommands) => Promise<T>, timeoutMs?: number): Promise<T>;
  /** Called with true when Redis becomes reachable again, false when it is lost. */
  onChange(listener: (up: boolean) => void): void;
  /** Subscribes on a sharded channel; node-redis subscribes again after a reconnect or failover. */
  subscribe(channel: string, listener: (message: string) => void): Promise<void>;
  close(): Promise<void>;
}

const PROBE_MS = 1000;
// Generous for a LAN round trip, yet short enough that a silent Redis costs a request little.
const COMMAND_TIMEOUT_MS = 1000;
/** While a cluster node's client reconnects, how often the slot map is read again (see below). */
const TOPOLOGY_REFRESH_MS = 1000;

/** redis://[user:pass@]host:port[/db] or redis+cluster://h1:p1,h2:p2 (rediss:// and rediss+cluster:// for TLS). */
export function parseRedisUrl(url: string): { cluster: boolean; urls: string[]; target: string } {
  const m = /^(rediss?)(\+cluster)?:\/\/(.+)$/.exec(url);
  if (!m) throw new ConfigError('config key redis_url: expected redis://host:port or redis+cluster://h1:p1,h2:p2');
  const [, scheme, cluster, rest] = m as unknown as [string, string, string | undefined, string];
  const at = rest.lastIndexOf('@');
  const auth = at >= 0 ? rest.slice(0, at + 1) : '';
  const hosts = (at >= 0 ? rest.slice(at + 1) : rest).split(',').filter((h) => h.length > 0);
  if (hosts.length === 0 || (!cluster && hosts.length > 1)) {
    throw new ConfigError('config key redis_url: redis:// takes one host:port; list several with redis+cluster://');
  }
  for (const h of hosts) {
    if (!/^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?(\/\d+)?$/.test(h))
      throw new ConfigError(`config key redis_url: ${h} is not host:port`);
  }
  return {
    cluster: cluster !== undefined,
    urls: hosts.map((h) => `${scheme}://${auth}${h}`),
    target: `${scheme}${cluster ?? ''}://${hosts.join(',')}`,
  };
}

/** Full jitter over an exponential bound: 100 ms, 200 ms, … up to 3 s. */
const reconnectStrategy = (retries: number) => Math.floor(Math.random() * Math.min(3000, 100 * 2 ** retries)) + 50;

type Client = {
  on(event: 'error', listener: (e: Error) => void): unknown;
  connect(): Promise<unknown>;
  destroy(): void;
};

export function openRedisLink(url: string, opts: { onError?: (error: Error) => void } = {}): RedisLink {
  const { cluster, urls, target } = parseRedisUrl(url);
  const listeners: Array<(up: boolean) => void> = [];
  let up = false;
  let closed = false;
  let lastError = '';
  let commands: RedisCommands | undefined;
  let subscriberCommands: RedisCommands | undefined;
  const clients: Client[] = [];

  function setUp(next: boolean, error?: Error) {
    if (error && error.message !== lastError) {
      lastError = error.message;
      opts.onError?.(error);
    }
    if (next === up) return;
    up = next;
    if (next) lastError = '';
    for (const l of listeners) l(next);
  }

  // node-redis is loaded only when Redis is configured: importing it costs about half a second of
  // start-up, which an embedded process should not pay.
  const ready = import('redis').then(({ createClient, createCluster }) => {
    if (closed) return;
    const socket = { reconnectStrategy, connectTimeout: 2000 };
    const client = cluster
      ? createCluster({
          rootNodes: urls.map((u) => ({ url: u })),
          defaults: { socket, disableOfflineQueue: true },
          // A master gone: without an offline queue its commands fail at once and no MOVED ever
          // comes, so node-redis learns of the promoted replica only from the slot map it reads
          // again while that master's client reconnects, by default once 5 s have passed and then
          // every 5 s. Every second instead: the shared counters come back soon after the
          // failover, and a map read while the failover is still under way is read again soon.
          topologyRefreshOnReconnectionAttemptStrategy: TOPOLOGY_REFRESH_MS,
        })
      : createClient({ url: urls[0] as string, socket, disableOfflineQueue: true });
    // A single server needs a second connection in subscriber mode; a cluster keeps its own per shard.
    const subscriber = cluster ? undefined : (client as ReturnType<typeof createClient>).duplicate();
    // node-redis reports connection trouble as 'error' events; an unhandled one would end the process.
    client.on('error', (e: Error) => setUp(false, e));
    subscriber?.on('error', () => {});
    commands = client as unknown as RedisCommands;
    subscriberCommands = (subscriber ?? client) as unknown as RedisCommands;
    for (const c of [client, subscriber]) {
      if (!c) continue;
      clients.push(c as unknown as Client);
      // Pending until the first connection; node-redis keeps retrying meanwhile. A connection that
      // completes after close() (destroy() does not stop one under way) is ended then: left open, its
      // socket kept the process alive (a cluster test's file never exited).
      c.connect().then(
        () => {
          if (closed) destroy(c as unknown as Client);
        },
        (e: Error) => {
          if (!closed) setUp(false, e);
        },
      );
    }
  });

  function destroy(c: Client): void {
    try {
      // destroy, not close: close waits for replies that a down server never sends.
      c.destroy();
    } catch {
      // never connected, or destroyed already
    }
  }

  async function run<T>(use: (redis: RedisCommands) => Promise<T>, timeoutMs = COMMAND_TIMEOUT_MS): Promise<T> {
    if (!commands) throw new Error('the redis client is not loaded yet');
    const redis = commands;
    let timer: NodeJS.Timeout | undefined;
    try {
      const result = await Promise.race([
        use(redis),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`redis did not answer within ${timeoutMs} ms`)), timeoutMs);
        }),
      ]);
      setUp(true);
      return result;
    } catch (error) {
      // A script or type error is Redis answering; only a connection problem or silence is "down".
      const e = error as Error;
      if (!/ERR|WRONGTYPE|NOSCRIPT/.test(e.message)) setUp(false, e);
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  // Health is probed, not only inferred from traffic, so /readyz and the metric see an outage (and
  // the recovery) even when no request happens to need Redis.
  const probe = async () => {
    await run((r) => r.get('gatehouse:probe')).catch(() => undefined);
  };
  const probeTimer = setInterval(probe, PROBE_MS);
  probeTimer.unref();
  void ready.then(probe);

  return {
    target,
    get up() {
      return up;
    },
    run,
    onChange(listener) {
      listeners.push(listener);
    },
    async subscribe(channel, listener) {
      await ready;
      // Until the first connection, subscribing fails (no offline queue): keep trying, with jitter.
      for (let attempt = 0; !closed && subscriberCommands; attempt++) {
        try {
          return await subscriberCommands.sSubscribe(channel, listener);
        } catch {
          await new Promise((r) => setTimeout(r, reconnectStrategy(Math.min(attempt, 5))).unref());
        }
      }
    },
    async close() {
      closed = true;
      clearInterval(probeTimer);
      await ready.catch(() => undefined);
      for (const c of clients) destroy(c);
    },
  };
}
