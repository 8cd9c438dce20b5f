// db.query events from every session, gathered into one audit append every few milliseconds: one
// store transaction for hundreds of statements instead of one each (measured here: the SQLite audit
// store took ~1k single-event appends/s with synchronous=FULL, far below what the proxy forwards).
// What this costs is documented in docs/access.md (PostgreSQL access): a crash loses at most the events still gathering
// (≤ FLUSH_MS) plus those of statements that had not finished. Sessions' transcripts (transcript.ts)
// reach the recording spool with the same flush, for the same reason: one write per batch.
//
// Callbacks rather than a promise per event: at 10k statements/s the three promises a caller chained
// on each one (then, catch, finally) were a measurable share of the proxy's event loop; one promise
// per flush remains.
import type { AuditLog, EventInput } from '../../audit/audit-log.js';

const FLUSH_MS = 5;
const MAX_BATCH = 1000;

/** Called once the event is in the audit store (no argument) or could not be stored. */
export type Stored = (error?: unknown) => void;

export type QueryLog = ReturnType<typeof createQueryLog>;

/** Something written with each batch: a session's transcript (transcript.ts). */
export interface Flushable {
  flush(): void;
}

export function createQueryLog(audit: Pick<AuditLog, 'record'>) {
  let inputs: EventInput[] = [];
  let callbacks: Stored[] = [];
  let timer: NodeJS.Timeout | undefined;
  let scheduled: Flushable[] = [];

  function flush(): void {
    clearTimeout(timer);
    timer = undefined;
    if (scheduled.length > 0) {
      const due = scheduled;
      scheduled = [];
      for (const f of due) f.flush();
    }
    if (inputs.length === 0) return;
    const taken = callbacks;
    const events = inputs;
    inputs = [];
    callbacks = [];
    audit.record(...events).then(
      () => {
        for (const done of taken) done();
      },
      (error) => {
        for (const done of taken) done(error);
      },
    );
  }

  return {
    /** `stored` is called once the event is in the audit store, or with the error that kept it out. */
    add(input: EventInput, stored: Stored): void {
      inputs.push(input);
      callbacks.push(stored);
      if (inputs.length >= MAX_BATCH) flush();
      else timer ??= setTimeout(flush, FLUSH_MS);
    },
    /** Calls `f.flush()` with the next batch; the caller asks once per batch, not per statement. */
    schedule(f: Flushable): void {
      scheduled.push(f);
      timer ??= setTimeout(flush, FLUSH_MS);
    },
    flush,
  };
}
