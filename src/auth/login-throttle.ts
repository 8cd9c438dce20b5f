// Slows down guessing: after max failures from one source within a window, that source is refused
// (429 + Retry-After) until the window ends. In-process; shared counters come with Redis.
import type { Clock } from '../lib/clock.js';

export interface ThrottleOptions {
  maxFailures: number;
  windowMs: number;
}

export type LoginThrottle = ReturnType<typeof createLoginThrottle>;

export function createLoginThrottle(opts: ThrottleOptions, clock: Clock) {
  const sources = new Map<string, { windowStart: number; failures: number }>();

  function entry(source: string) {
    const now = clock();
    const e = sources.get(source);
    if (!e || now - e.windowStart >= opts.windowMs) return undefined;
    return e;
  }

  return {
    /** Seconds to wait, if the source is blocked now. */
    retryAfter(source: string): number | undefined {
      const e = entry(source);
      if (!e || e.failures < opts.maxFailures) return undefined;
      return Math.max(1, Math.ceil((e.windowStart + opts.windowMs - clock()) / 1000));
    },
    recordFailure(source: string): void {
      const e = entry(source);
      if (e) e.failures++;
      else {
        if (sources.size > 100_000) sources.clear();
        sources.set(source, { windowStart: clock(), failures: 1 });
      }
    },
    limit: opts.maxFailures,
  };
}
