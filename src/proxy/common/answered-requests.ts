// The door kit's log of answered requests (kube.request, app.request), gathered into one audit append
// every FLUSH_MS: with the SQLite audit store at synchronous=FULL each commit is an fsync that blocks
// the event loop, and at a few hundred requests a second a commit per request (or per 5 ms, the
// database proxy's window, which still held one event each) cost most of a proxied GET. The answer has already gone out when
// its event is written, so what this risks is bounded and documented: a crash loses at most the last
// FLUSH_MS of answered requests' events. Refusals do not come here: they are durable before the answer.
import type { AuditLog, EventInput } from '../../audit/audit-log.js';

const FLUSH_MS = 50;
const MAX_BATCH = 2000;

export function createAnsweredRequests(audit: Pick<AuditLog, 'record'>, logError: (err: unknown) => void) {
  let batch: EventInput[] = [];
  let timer: NodeJS.Timeout | undefined;

  function flush(): Promise<void> {
    clearTimeout(timer);
    timer = undefined;
    const taken = batch;
    batch = [];
    if (taken.length === 0) return Promise.resolve();
    // Nobody awaits an answered request's event; a store failure is logged (and counted by the store).
    return audit.record(...taken).catch(logError);
  }

  return {
    add(input: EventInput): void {
      batch.push(input);
      if (batch.length >= MAX_BATCH) void flush();
      else timer ??= setTimeout(flush, FLUSH_MS);
    },
    flush,
  };
}
