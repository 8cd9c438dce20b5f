// When agents and their credentials were last used. Marked in memory on every request (a Map.set on
// the hot path) and written to the backend at most once a second, in one write for everything that
// was used, so last_used_at costs no write per request. Approximate by design: up to a second late,
// and the last second before a shutdown may be lost.

import { keys } from '../auth/records.js';
import type { CachedItem } from '../backend/cache.js';
import type { StateStore } from '../backend/state.js';
import type { Operation } from '../backend/types.js';
import type { Clock } from '../lib/clock.js';
import { isoTime } from '../lib/clock.js';

export interface UsageRecord {
  last_used_at: string;
}

const FLUSH_AFTER_MS = 1000;
const USAGE_PREFIX = 'usage/';

export type UsageTracker = ReturnType<typeof createUsageTracker>;

export function createUsageTracker(deps: { state: StateStore; clock: Clock; onError?: (e: unknown) => void }) {
  const { state, clock } = deps;
  /** key → [time, expiresAt] of uses not yet written. */
  const pending = new Map<string, [number, number | undefined]>();
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  async function flush(): Promise<void> {
    timer = undefined;
    if (pending.size === 0) return;
    const ops: Operation[] = [];
    for (const [key, [at, expiresAt]] of pending) {
      const value = JSON.stringify({ last_used_at: isoTime(at) } satisfies UsageRecord);
      ops.push(expiresAt === undefined ? { type: 'put', key, value } : { type: 'put', key, value, expiresAt });
    }
    pending.clear();
    try {
      // Marks of many agents and credentials stand alone: more than one etcd write takes go in parts.
      await state.writeInParts([], [], ops);
    } catch (error) {
      deps.onError?.(error);
    }
  }

  function mark(key: string, expiresAt?: number): void {
    if (stopped) return;
    pending.set(key, [clock(), expiresAt]);
    if (!timer) {
      timer = setTimeout(flush, FLUSH_AFTER_MS);
      timer.unref();
    }
  }

  // last_used_at by id, kept from the cache's changes. A list page asks for 20 of them per request;
  // a lookup by the record's own id string (whose hash V8 keeps) cost a twentieth of building the
  // `usage/…` key anew and hashing it for each: 10 µs of a 110 µs list request before.
  const byKind = { agent: new Map<string, [string, number | undefined]>(), credential: new Map() } as const;
  const track = (key: string, item: CachedItem | undefined): void => {
    if (!key.startsWith(USAGE_PREFIX)) return;
    const slash = key.indexOf('/', USAGE_PREFIX.length);
    const kind = key.slice(USAGE_PREFIX.length, slash);
    if (kind !== 'agent' && kind !== 'credential') return;
    const id = key.slice(slash + 1);
    if (item) byKind[kind].set(id, [(item.value as UsageRecord).last_used_at, item.expiresAt]);
    else byKind[kind].delete(id);
  };
  for (const item of state.list<UsageRecord>(USAGE_PREFIX)) track(item.key, item);
  const unsubscribe = state.cache.onChange(track);
  const lastUsed = (kind: 'agent' | 'credential', id: string): string | null => {
    const entry = byKind[kind].get(id);
    // Hidden once expired, as the cache hides it, not only once the sweeper removed it.
    return entry && (entry[1] === undefined || entry[1] > Date.now()) ? entry[0] : null;
  };

  return {
    agentUsed: (agentId: string) => mark(keys.usage('agent', agentId)),
    credentialUsed: (credentialId: string, expiresAt: number) =>
      mark(keys.usage('credential', credentialId), expiresAt),
    agentLastUsed: (agentId: string) => lastUsed('agent', agentId),
    credentialLastUsed: (credentialId: string) => lastUsed('credential', credentialId),
    /** Writes what is pending now (tests, shutdown). */
    flush,
    stop(): void {
      stopped = true;
      unsubscribe();
      if (timer) clearTimeout(timer);
      timer = undefined;
    },
  };
}
