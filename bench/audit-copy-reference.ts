// The ceiling for durable audit ingest on PostgreSQL (issue 36): a bare COPY of the same rows into
// the same schema, with nothing else. One connection; appends that arrive while a COPY is in flight
// wait and go together in the next one (the same group commit Gatehouse's store does); each COPY is
// its own implicit transaction, committed with the server's synchronous_commit before it answers,
// and an append resolves only then. What it leaves out is what Gatehouse's store adds: the append
// lock that keeps seqs in commit order across several writers (lock_events_for_append), the deadline
// and retry across failovers, the check for rows already stored after a commit of unknown outcome,
// one transaction per append when a batch fails, the sweeper, and batches split in halves under a
// large queue. The row text is the store's own (copyRows) and the COPY goes as the store sends it
// (one write, one round trip): the least work that stores these rows.
import pg from 'pg';
import { copyInto, copyRows, sendCopy } from '../src/audit/pg-copy.js';
import type { AuditEvent } from '../src/audit/types.js';

export interface CopyReference {
  append(events: AuditEvent[]): Promise<void>;
  close(): Promise<void>;
}

/** A bare COPY appender into `schema`.events (a schema Gatehouse's store has created). */
export async function openCopyReference(url: string, schema: string): Promise<CopyReference> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const text = copyInto(`"${schema}"`);
  let queue: Array<{ rows: string; resolve: () => void; reject: (e: unknown) => void }> = [];
  let flushing = false;

  async function flush(): Promise<void> {
    await new Promise((r) => setImmediate(r)); // this turn's appends join the first COPY
    while (queue.length > 0) {
      const batch = queue;
      queue = [];
      try {
        await sendCopy(client, text, batch.map((p) => p.rows).join(''));
        for (const p of batch) p.resolve();
      } catch (error) {
        for (const p of batch) p.reject(error);
      }
    }
    flushing = false;
  }

  return {
    append(events) {
      const rows = copyRows(events);
      return new Promise((resolve, reject) => {
        queue.push({ rows, resolve, reject });
        if (!flushing) {
          flushing = true;
          void flush();
        }
      });
    },
    close: () => client.end(),
  };
}
