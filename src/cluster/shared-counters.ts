// Login-throttle counters and agent token buckets in Redis, so a 429 earned on one instance holds on
// every other. Each counter is one key and each update one Lua script (atomic on the server, and a
// single slot in cluster mode). Time is Redis's own (TIME), so instances with skewed clocks agree.
// While Redis cannot be reached, each instance counts in its own memory (the embedded limiters) and
// says so (/readyz, metric); when Redis is back, the shared counters apply again. Failures counted
// only locally during an outage are not carried over: they would be a second source of truth.
import type { AgentLimits, Breach, LimitKind, LocalAgentLimits } from '../agents/rate-limits.js';
import type { LocalLoginThrottle, LoginThrottle } from '../auth/login-throttle.js';
import type { RedisLink } from './redis-link.js';

const KEY_PREFIX = 'gatehouse:';
const REPORT_EVERY_MS = 60_000;

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

// KEYS[1] the bucket; ARGV[1] per minute; ARGV[2] report interval (ms). Mirrors rate-limits.ts:
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

export function sharedLoginThrottle(link: RedisLink, local: LocalLoginThrottle, windowMs: number): LoginThrottle {
  const key = (k: string) => `${KEY_PREFIX}throttle:${k}`;
  return {
    limit: local.limit,
    async retryAfter(keys) {
      if (!link.up) return local.retryAfter(keys);
      try {
        // One command per key: the keys fall in different cluster slots.
        const counters = await link.run((r) =>
          Promise.all(keys.map((k) => r.eval(READ_COUNTER, { keys: [key(k)], arguments: [] }) as Promise<number[]>)),
        );
        let wait: number | undefined;
        for (const [failures, pttl] of counters) {
          if ((failures ?? 0) < local.limit) continue;
          wait = Math.max(wait ?? 0, Math.max(1, Math.ceil((pttl ?? 0) / 1000)));
        }
        return wait;
      } catch {
        return local.retryAfter(keys);
      }
    },
    async recordFailure(keys) {
      if (!link.up) return local.recordFailure(keys);
      try {
        await link.run((r) =>
          Promise.all(keys.map((k) => r.eval(RECORD_FAILURE, { keys: [key(k)], arguments: [String(windowMs)] }))),
        );
      } catch {
        local.recordFailure(keys);
      }
    },
  };
}

export function sharedAgentLimits(link: RedisLink, local: LocalAgentLimits): AgentLimits {
  const key = (kind: LimitKind, agentId: string) => `${KEY_PREFIX}bucket:${kind}:${agentId}`;
  return {
    defaults: local.defaults,
    async take(kind, agentId, perMinute): Promise<Breach | undefined> {
      if (!link.up) return local.take(kind, agentId, perMinute);
      let reply: [number, string, number, number];
      try {
        reply = (await link.run((r) =>
          r.eval(TAKE, { keys: [key(kind, agentId)], arguments: [String(perMinute), String(REPORT_EVERY_MS)] }),
        )) as typeof reply;
      } catch {
        return local.take(kind, agentId, perMinute);
      }
      const [ok, tokens, report, refused] = reply;
      if (ok === 1) return undefined;
      return {
        limit: perMinute,
        retryAfter: Math.max(1, Math.ceil(((1 - Number(tokens)) * 60) / perMinute)),
        report: report === 1,
        refused,
      };
    },
    forget(agentId) {
      local.forget(agentId);
      // Best effort: an unused bucket expires by itself a minute after its last call anyway.
      link
        .run((r) => Promise.all([r.del(key('requests', agentId)), r.del(key('credentials', agentId))]))
        .catch(() => undefined);
    },
  };
}
