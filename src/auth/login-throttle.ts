// Slows down guessing without ever locking out the right credential. Failures are counted per
// source address and per presented credential (its hash); after max failures of either within a
// window, further *failing* attempts are answered 429 (+ Retry-After) until the window ends. A valid
// credential is never checked against the counters: keys and tokens are 256-bit random, so the
// throttle exists to make failures cheap, and refusing a valid key would let anyone behind the same
// NAT or load balancer lock everyone else out. These counters are one process's; with Redis
// (sharedLoginThrottle, over cluster/shared-counters.ts) every instance counts into the same ones, these serving as the
// fallback while Redis is unreachable.
import type { SharedCounters } from '../cluster/shared-counters.js';
import type { Clock } from '../lib/clock.js';

export interface ThrottleOptions {
  maxFailures: number;
  windowMs: number;
}

/** What the token service asks. Asynchronous because the counters may live in Redis; only failed logins pay for it. */
export interface LoginThrottle {
  /** Seconds to wait, if any of these counters is over the limit now. */
  retryAfter(keys: string[]): Promise<number | undefined>;
  recordFailure(keys: string[]): Promise<void>;
  readonly limit: number;
}

export type LocalLoginThrottle = ReturnType<typeof createLoginThrottle>;

/** The per-process throttle behind the asynchronous interface (the embedded default). */
export const asLoginThrottle = (local: LocalLoginThrottle): LoginThrottle => ({
  retryAfter: async (keys) => local.retryAfter(keys),
  recordFailure: async (keys) => local.recordFailure(keys),
  limit: local.limit,
});

/** The throttle on counters every instance shares; this process's own while they cannot be reached. */
export function sharedLoginThrottle(
  counters: SharedCounters,
  local: LocalLoginThrottle,
  windowMs: number,
): LoginThrottle {
  const key = (k: string) => `throttle:${k}`;
  return {
    limit: local.limit,
    async retryAfter(keys) {
      if (!counters.up) return local.retryAfter(keys);
      try {
        let wait: number | undefined;
        for (const [failures, pttl] of await counters.windows(keys.map(key))) {
          if (failures < local.limit) continue;
          wait = Math.max(wait ?? 0, Math.max(1, Math.ceil(pttl / 1000)));
        }
        return wait;
      } catch {
        return local.retryAfter(keys);
      }
    },
    async recordFailure(keys) {
      if (!counters.up) return local.recordFailure(keys);
      try {
        await counters.countFailure(keys.map(key), windowMs);
      } catch {
        local.recordFailure(keys);
      }
    },
  };
}

/** What failures are counted against: the caller's address, and the credential it presented. */
export const throttleKeys = (remoteAddr: string, presentedHash?: string): string[] =>
  presentedHash ? [`source:${remoteAddr}`, `credential:${presentedHash}`] : [`source:${remoteAddr}`];

export function createLoginThrottle(opts: ThrottleOptions, clock: Clock) {
  const counters = new Map<string, { windowStart: number; failures: number }>();

  function entry(key: string) {
    const now = clock();
    const e = counters.get(key);
    if (!e || now - e.windowStart >= opts.windowMs) return undefined;
    return e;
  }

  return {
    /** Seconds to wait, if any of these counters is over the limit now. */
    retryAfter(keys: string[]): number | undefined {
      let wait: number | undefined;
      for (const key of keys) {
        const e = entry(key);
        if (!e || e.failures < opts.maxFailures) continue;
        const seconds = Math.max(1, Math.ceil((e.windowStart + opts.windowMs - clock()) / 1000));
        wait = Math.max(wait ?? 0, seconds);
      }
      return wait;
    },
    recordFailure(keys: string[]): void {
      for (const key of keys) {
        const e = entry(key);
        if (e) e.failures++;
        else {
          if (counters.size > 100_000) counters.clear();
          counters.set(key, { windowStart: clock(), failures: 1 });
        }
      }
    },
    limit: opts.maxFailures,
  };
}
