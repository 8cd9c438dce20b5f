// Counters in Redis shared by every instance — a failure counter with a window and a token bucket —
// so a 429 earned on one instance holds on every other. Each counter is one key and each update one
// Lua script (atomic on the server, and a single slot in cluster mode). Time is Redis's own (TIME),
// so instances with skewed clocks agree. These are primitives: the login throttle
// (auth/login-throttle.ts) and agents' rate limits (agents/rate-limits.ts) are built on them, and
// count in their own memory while Redis cannot be reached (`up` false, or a failed call).
import type { RedisLink } from './redis-link.js';

const KEY_PREFIX = 'gatehouse:';

// KEYS[1] the counter; ARGV[1] the window (ms). Starts the window at the first failure, as the
// per-process throttle does.
const RECORD_FAILURE = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return n`;

const READ_COUNTER = `
local n = redis.call('GET', KEYS[1])
if not n then return {0, 0} end
return {tonumber(n), redis.call('PTTL', KEYS[1])}`;

// KEYS[1] the bucket; ARGV[1] per minute; ARGV[2] report interval (ms). Mirrors agents/rate-limits.ts:
// refill continuously, take one, and report a breach at most once per interval (with how many calls
// were refused since the last report), for every instance together.
const TAKE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local pm = tonumber(ARGV[1])
local b = redis.call('HMGET', KEYS[1], 'pm', 'tokens', 'at', 'reported', 'refused')
local tokens, reported, refused = pm, 0, 0
if b[1] and tonumber(b[1]) == pm then
  tokens = math.min(pm, tonumber(b[2]) + (now - tonumber(b[3])) * pm / 60000)
  reported = tonumber(b[4])
  refused = tonumber(b[5])
end
local ok, report, refusedNow = 0, 0, 0
if tokens >= 1 then
  tokens = tokens - 1
  ok = 1
else
  refused = refused + 1
  refusedNow = refused
  if now - reported >= tonumber(ARGV[2]) then
    report = 1
    reported = now
    refused = 0
  end
end
redis.call('HSET', KEYS[1], 'pm', pm, 'tokens', tostring(tokens), 'at', now, 'reported', reported, 'refused', refused)
redis.call('PEXPIRE', KEYS[1], 60000 + tonumber(ARGV[2]))
return {ok, tostring(tokens), report, refusedNow}`;

/** What one take from a bucket answered. */
export interface BucketTake {
  ok: boolean;
  /** Tokens left (fractional: the bucket refills continuously). */
  tokens: number;
  /** This refusal is the first of its report interval, counted for every instance together. */
  report: boolean;
  /** Refusals since the last report. */
  refused: number;
}

export interface SharedCounters {
  /** False while Redis cannot be reached: callers count in their own memory meanwhile. */
  readonly up: boolean;
  /** For each key, the failures counted in its window and the milliseconds the window has left. */
  windows(keys: string[]): Promise<Array<[number, number]>>;
  /** One more failure under each key; a key's window starts at its first failure. */
  countFailure(keys: string[], windowMs: number): Promise<void>;
  /** One token from the bucket `key`, refilled at perMinute. */
  take(key: string, perMinute: number, reportEveryMs: number): Promise<BucketTake>;
  /** Best effort: an unused bucket expires by itself a minute after its last call anyway. */
  drop(keys: string[]): void;
}

export function sharedCounters(link: RedisLink): SharedCounters {
  const key = (k: string) => `${KEY_PREFIX}${k}`;
  return {
    get up() {
      return link.up;
    },
    windows: (keys) =>
      // One command per key: the keys fall in different cluster slots.
      link.run((r) =>
        Promise.all(
          keys.map(async (k) => {
            const [n, pttl] = (await r.eval(READ_COUNTER, { keys: [key(k)], arguments: [] })) as number[];
            return [n ?? 0, pttl ?? 0] as [number, number];
          }),
        ),
      ),
    async countFailure(keys, windowMs) {
      await link.run((r) =>
        Promise.all(keys.map((k) => r.eval(RECORD_FAILURE, { keys: [key(k)], arguments: [String(windowMs)] }))),
      );
    },
    async take(k, perMinute, reportEveryMs) {
      const [ok, tokens, report, refused] = (await link.run((r) =>
        r.eval(TAKE, { keys: [key(k)], arguments: [String(perMinute), String(reportEveryMs)] }),
      )) as [number, string, number, number];
      return { ok: ok === 1, tokens: Number(tokens), report: report === 1, refused };
    },
    drop(keys) {
      link.run((r) => Promise.all(keys.map((k) => r.del(key(k))))).catch(() => undefined);
    },
  };
}
