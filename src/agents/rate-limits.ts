// Per-agent limits: a token bucket per agent for requests and one for credential issuance, refilled
// continuously at the agent's per-minute rate. These buckets are one process's; with Redis
// (sharedAgentLimits, over cluster/shared-counters.ts) every instance takes from the same bucket, these serving as the
// fallback while Redis is unreachable.
import type { BucketTake, SharedCounters } from '../cluster/shared-counters.js';
import type { Clock } from '../lib/clock.js';

export type LimitKind = 'requests' | 'credentials';

export interface Breach {
  limit: number;
  /** Seconds until one more call would pass. */
  retryAfter: number;
  /** True for the first breach of an agent and kind in a minute: the one worth an audit event. */
  report: boolean;
  /** Calls refused since the last reported breach. */
  refused: number;
}

interface Bucket {
  perMinute: number;
  tokens: number;
  at: number;
  reportedAt: number;
  refused: number;
}

const REPORT_EVERY_MS = 60_000;
const MAX_BUCKETS = 100_000;

/**
 * What the API asks. Asynchronous because the buckets may live in Redis: an agent spread over three
 * auth instances must not get three times its limit, and one Redis round trip (sub-millisecond on a
 * LAN) is cheap beside the request it guards. Only agents' requests pay it.
 */
export interface AgentLimits {
  take(kind: LimitKind, agentId: string, perMinute: number): Promise<Breach | undefined>;
  readonly defaults: { requestsPerMinute: number; credentialsPerMinute: number };
  /** Forgets an agent's buckets (after it was deleted). */
  forget(agentId: string): void;
}

export type LocalAgentLimits = ReturnType<typeof createAgentLimits>;

/** The per-process buckets behind the asynchronous interface (the embedded default). */
export const asAgentLimits = (local: LocalAgentLimits): AgentLimits => ({
  take: async (kind, agentId, perMinute) => local.take(kind, agentId, perMinute),
  defaults: local.defaults,
  forget: (agentId) => local.forget(agentId),
});

export function createAgentLimits(clock: Clock, defaults: { requestsPerMinute: number; credentialsPerMinute: number }) {
  const buckets = { requests: new Map<string, Bucket>(), credentials: new Map<string, Bucket>() };

  /** Takes one call from the bucket, or says how the limit was breached. */
  function take(kind: LimitKind, agentId: string, perMinute: number): Breach | undefined {
    const map = buckets[kind];
    const now = clock();
    let b = map.get(agentId);
    if (!b || b.perMinute !== perMinute) {
      if (!b && map.size >= MAX_BUCKETS) map.clear();
      b = { perMinute, tokens: perMinute, at: now, reportedAt: -Infinity, refused: 0 };
      map.set(agentId, b);
    } else {
      b.tokens = Math.min(perMinute, b.tokens + ((now - b.at) * perMinute) / 60_000);
      b.at = now;
    }
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return undefined;
    }
    b.refused++;
    const retryAfter = Math.max(1, Math.ceil(((1 - b.tokens) * 60) / perMinute));
    const report = now - b.reportedAt >= REPORT_EVERY_MS;
    const refused = b.refused;
    if (report) {
      b.reportedAt = now;
      b.refused = 0;
    }
    return { limit: perMinute, retryAfter, report, refused };
  }

  return {
    take,
    defaults,
    /** Forgets an agent's buckets (after it was deleted). */
    forget(agentId: string): void {
      buckets.requests.delete(agentId);
      buckets.credentials.delete(agentId);
    },
  };
}

/** The RFC 9333-draft headers and Retry-After of a 429. */
/** Buckets every instance shares; this process's own while they cannot be reached. */
export function sharedAgentLimits(counters: SharedCounters, local: LocalAgentLimits): AgentLimits {
  const key = (kind: LimitKind, agentId: string) => `bucket:${kind}:${agentId}`;
  return {
    defaults: local.defaults,
    async take(kind, agentId, perMinute): Promise<Breach | undefined> {
      if (!counters.up) return local.take(kind, agentId, perMinute);
      let taken: BucketTake;
      try {
        taken = await counters.take(key(kind, agentId), perMinute, REPORT_EVERY_MS);
      } catch {
        return local.take(kind, agentId, perMinute);
      }
      if (taken.ok) return undefined;
      return {
        limit: perMinute,
        retryAfter: Math.max(1, Math.ceil(((1 - taken.tokens) * 60) / perMinute)),
        report: taken.report,
        refused: taken.refused,
      };
    },
    forget(agentId) {
      local.forget(agentId);
      counters.drop([key('requests', agentId), key('credentials', agentId)]);
    },
  };
}

export function rateLimitHeaders(breach: Breach): Record<string, string> {
  return {
    'retry-after': String(breach.retryAfter),
    'ratelimit-limit': String(breach.limit),
    'ratelimit-remaining': '0',
    'ratelimit-reset': String(breach.retryAfter),
  };
}
