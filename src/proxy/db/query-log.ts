// db.query events from every session, gathered into one audit append every few milliseconds: one
// store transaction for hundreds of statements instead of one each (measured here: the SQLite audit
// store took ~1k single-event appends/s with synchronous=FULL, far below what the proxy forwards).
// What this costs is documented in the README: a crash loses at most the events still gathering
// (≤ FLUSH_MS) plus those of statements that had not finished.
import type { AuditLog, EventInput } from '../../audit/audit-log.js';

const FLUSH_MS = 5;
const MAX_BATCH = 1000;

export type QueryLog = ReturnType<typeof createQueryLog>;

export function createQueryLog(audit: Pick<AuditLog, 'record'>) {
  let batch: Array<{ input: EventInput; resolve: () => void; reject: (e: unknown) => void }> = [];
  let timer: NodeJS.Timeout | undefined;

  function flush(): void {
    clearTimeout(timer);
    timer = undefined;
    const taken = batch;
    batch = [];
    if (taken.length === 0) return;
    audit.record(...taken.map((t) => t.input)).then(
      () => {
        for (const t of taken) t.resolve();
      },
      (error) => {
        for (const t of taken) t.reject(error);
      },
    );
  }

  return {
    /** Resolves once the event is in the audit store. */
    add(input: EventInput): Promise<void> {
      return new Promise((resolve, reject) => {
        batch.push({ input, resolve, reject });
        if (batch.length >= MAX_BATCH) flush();
        else timer ??= setTimeout(flush, FLUSH_MS);
      });
    },
    flush,
  };
}
