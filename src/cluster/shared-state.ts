// What several Gatehouse instances share beyond the state store: login-throttle counters, agent
// token buckets, the live-session registry and its pub/sub. With `redis_url` they live in Redis;
// without it (the embedded default) in this process. Redis going away never stops a request: each
// piece falls back to its per-instance state, /readyz says so, and it recovers by itself.

import { Gauge } from 'prom-client';
import type { Metrics } from '../observability/metrics.js';
import { openRedisLink, type RedisLink } from './redis-link.js';
import { createSessionBus, type SessionBus } from './session-bus.js';
import { type SharedCounters, sharedCounters } from './shared-counters.js';

export interface SharedState {
  /** The Redis connection, when configured. */
  readonly link?: RedisLink;
  readonly bus: SessionBus;
  /** Counters every instance shares (Redis); absent: each process counts its own. */
  readonly counters?: SharedCounters;
  /**
   * For /readyz: never fails (a Redis outage does not take the instance out of a load balancer, it
   * keeps serving on per-instance state); answers the detail to show instead.
   */
  readiness(): Promise<string>;
  close(): Promise<void>;
}

export const REDIS_FALLBACK_DETAIL =
  'unreachable: per-instance fallback (limits and throttles count per instance; sessions on other instances cannot be confirmed ended)';

export function openSharedState(
  redisUrl: string | undefined,
  opts: { onError?: (error: unknown) => void; onChange?: (up: boolean) => void; identity?: string } = {},
): SharedState {
  if (redisUrl === undefined) {
    const bus = createSessionBus(undefined, undefined, opts.identity);
    return {
      bus,
      readiness: async () => 'in-process',
      close: () => bus.close(),
    };
  }
  const link = openRedisLink(redisUrl, opts.onError ? { onError: opts.onError } : {});
  if (opts.onChange) link.onChange(opts.onChange);
  const bus = createSessionBus(link, opts.onError, opts.identity);
  return {
    link,
    bus,
    counters: sharedCounters(link),
    readiness: async () => (link.up ? 'ok' : REDIS_FALLBACK_DETAIL),
    async close() {
      await bus.close();
      await link.close();
    },
  };
}

/** `<prefix>_redis_up`: 1 while Redis answers, 0 while this instance runs on its per-instance fallback. */
export function registerRedisMetric(metrics: Pick<Metrics, 'registry' | 'prefix'>, link: RedisLink): void {
  new Gauge({
    name: `${metrics.prefix}_redis_up`,
    help: '1 while Redis answers; 0 while this instance counts limits and throttles on its own (fallback).',
    registers: [metrics.registry],
    collect() {
      this.set(link.up ? 1 : 0);
    },
  });
}
