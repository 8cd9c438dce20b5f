// When agents and their credentials were last used. Marked in memory on every request (a Map.set on
// the hot path) and written to the backend at most once a second, in one write for everything that
// was used, so last_used_at costs no write per request. Approximate by design: up to a second late,
// and the last second before a shutdown may be lost.

import { keys } from '../auth/records.js';
import type { StateStore } from '../backend/state.js';
import type { Operation } from '../backend/types.js';
import type { Clock } from '../lib/clock.js';
import { isoTime } from '../lib/clock.js';

export interface UsageRecord {
  last_used_at: string;
}

const FLUSH_AFTER_MS = 1000;

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
      await state.write([], ops);
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

  const lastUsed = (key: string): string | null => state.get<UsageRecord>(key)?.value.last_used_at ?? null;

  return {
    agentUsed: (agentId: string) => mark(keys.usage('agent', agentId)),
    credentialUsed: (credentialId: string, expiresAt: number) =>
      mark(keys.usage('credential', credentialId), expiresAt),
    agentLastUsed: (agentId: string) => lastUsed(keys.usage('agent', agentId)),
    credentialLastUsed: (credentialId: string) => lastUsed(keys.usage('credential', credentialId)),
    /** Writes what is pending now (tests, shutdown). */
    flush,
    stop(): void {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
    },
  };
}
