// Audit retention: one instance at a time (under a backend lease) deletes events older than the
// configured retention: whole partitions where the store has them, then oldest first in batches; it
// records how many it removed.
import { type LeaseRunner, runUnderLease } from '../backend/lease.js';
import type { Backend } from '../backend/types.js';
import type { Clock } from '../lib/clock.js';
import { sleep } from '../lib/sleep.js';
import type { AuditLog } from './audit-log.js';
import type { AuditStore } from './types.js';

export interface RetentionOptions {
  retentionMs: number;
  /** Pause between sweeps once caught up. */
  intervalMs?: number;
  batchSize?: number;
  leaseTtlMs?: number;
}

export function startAuditRetention(
  deps: { backend: Backend; store: AuditStore; audit: AuditLog; clock: Clock; onError?: (e: unknown) => void },
  opts: RetentionOptions,
): LeaseRunner {
  const batchSize = opts.batchSize ?? 5000;
  return runUnderLease(
    deps.backend,
    'audit-retention',
    { ttlMs: opts.leaseTtlMs ?? 30_000, ...(deps.onError ? { onError: deps.onError } : {}) },
    async (signal) => {
      while (!signal.aborted) {
        const cutoff = deps.clock() - opts.retentionMs;
        // Whole partitions first (a DROP, not a delete per row), then the rest in batches.
        let deleted = (await deps.store.dropBefore?.(cutoff)) ?? 0;
        for (;;) {
          const n = await deps.store.deleteBefore(cutoff, batchSize);
          deleted += n;
          // Yield between batches so a large backlog never monopolises the store.
          if (n < batchSize || signal.aborted) break;
          await new Promise((r) => setImmediate(r));
        }
        if (deleted > 0) {
          await deps.audit.record({
            type: 'audit.pruned',
            actor: { kind: 'system' },
            data: { deleted, older_than: new Date(cutoff).toISOString() },
          });
        }
        await sleep(opts.intervalMs ?? 60_000, signal);
      }
    },
  );
}
