// The embedded audit store's writer, on a thread of its own. better-sqlite3 is synchronous: a commit
// with synchronous=FULL waits for an fsync (2.5 ms on this project's VM), and on the main thread that
// wait stopped every request, SSH channel and database session of the process — the database proxy
// spent 65% of its event loop there. Here the wait blocks only this thread; the main thread keeps a
// connection of its own for reads (WAL: readers never wait for the writer).
//
// Protocol: the main thread posts { n, batches } (events already in column form); this thread commits
// every batch of a message in one transaction and answers { n, errors } (null for a committed batch).
// A failed transaction is retried batch by batch, so one caller's bad batch fails alone.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { AuditEvent } from './types.js';

interface Pending {
  events: AuditEvent[];
  resolve: () => void;
  reject: (e: unknown) => void;
}

export type EventRow = [
  string,
  number,
  string,
  string | null,
  string | null,
  string | null,
  string | null,
  0 | 1,
  string,
];
export interface WriteRequest {
  n: number;
  batches: EventRow[][];
}
export interface WriteAnswer {
  n: number;
  errors: Array<string | null>;
}

/**
 * The thread's code, run with `new Worker(WRITER_SOURCE, { eval: true, workerData })`: plain
 * JavaScript, so the same text runs from source (tsx, whose loader a worker does not inherit) and
 * from the build. workerData: { path, synchronous, sqlite } — sqlite is better-sqlite3's resolved path.
 */
export const WRITER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.sqlite);
const db = new Database(workerData.path);
// The wait first: the main thread may hold a lock at this moment (its reads, a retention delete).
db.pragma('busy_timeout = 5000');
db.pragma('journal_mode = WAL');
db.pragma('synchronous = ' + (workerData.synchronous === 'NORMAL' ? 'NORMAL' : 'FULL'));
const insert = db.prepare(
  'INSERT INTO events (id, time_ms, type, actor_id, actor_kind, target_id, session_id, success, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
);
const insertAll = db.transaction((batches) => {
  for (const batch of batches) for (const row of batch) insert.run(...row);
});
parentPort.on('message', (message) => {
  if (message === 'close') {
    db.close();
    parentPort.close();
    return;
  }
  const errors = message.batches.map(() => null);
  try {
    insertAll(message.batches);
  } catch {
    message.batches.forEach((batch, i) => {
      try {
        insertAll([batch]);
      } catch (error) {
        errors[i] = String(error && error.message);
      }
    });
  }
  parentPort.postMessage({ n: message.n, errors });
});
`;

/** How long close() waits for the writer thread to exit after its last commit, before ending it. */
const CLOSE_GRACE_MS = 5000;

/**
 * Appends go to the writer thread (sqlite-writer.ts). Group commit: while one transaction is on its
 * way, appends gather, and all of them go in the next one — one fsync however many requests wrote.
 */
export function openWriter(path: string, synchronous: 'FULL' | 'NORMAL') {
  const sqlite = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WRITER_SOURCE, { eval: true, workerData: { path, synchronous, sqlite } });
  // Referenced only while a write is on its way: an idle store does not keep the process alive, and
  // a process awaiting a commit is not left for dead by the event loop.
  worker.unref();
  let queue: Pending[] = [];
  let inFlight: Pending[] | undefined;
  let broken: Error | undefined;
  let n = 0;
  let idle: (() => void) | undefined;
  const fail = (error: Error) => {
    broken ??= error;
    for (const p of [...(inFlight ?? []), ...queue]) p.reject(broken);
    inFlight = undefined;
    queue = [];
    idle?.();
  };
  let closing = false;
  // Known from the start, so that close() never waits for an exit that already happened (a thread
  // that failed earlier): the process would have nothing left to wait on.
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  worker.on('error', (error) => fail(new Error(`the audit writer thread failed: ${error.message}`)));
  worker.on('exit', () => {
    if (!closing) fail(new Error('the audit writer thread stopped'));
  });
  worker.on('message', (answer: WriteAnswer) => {
    const done = inFlight ?? [];
    inFlight = undefined;
    done.forEach((p, i) => {
      const error = answer.errors[i];
      if (error === null || error === undefined) p.resolve();
      else p.reject(new Error(error));
    });
    send();
  });
  function send(): void {
    if (inFlight || queue.length === 0) {
      if (!inFlight) {
        worker.unref();
        idle?.();
      }
      return;
    }
    worker.ref();
    inFlight = queue;
    queue = [];
    const batches: EventRow[][] = inFlight.map((p) =>
      p.events.map((e) => [
        e.id,
        Date.parse(e.time),
        e.type,
        e.actor.id ?? null,
        e.actor.kind ?? null,
        e.target?.id ?? null,
        e.session_id ?? null,
        e.success ? 1 : 0,
        JSON.stringify(e),
      ]),
    );
    worker.postMessage({ n: ++n, batches } satisfies WriteRequest);
  }
  return {
    append(events: AuditEvent[]): Promise<void> {
      if (broken) return Promise.reject(broken);
      if (events.length === 0) return Promise.resolve();
      return new Promise((resolve, reject) => {
        queue.push({ events, resolve, reject });
        // Gather what this event-loop turn appends; a transaction on its way sends the rest after it.
        if (queue.length === 1 && !inFlight) setImmediate(send);
      });
    },
    async close(): Promise<void> {
      if (!broken && (inFlight || queue.length > 0)) {
        await new Promise<void>((resolve) => {
          idle = resolve;
          send();
        });
      }
      closing = true;
      worker.ref();
      worker.postMessage('close');
      // The worker's own ref did not always keep the process alive until its 'exit' (the event loop
      // emptied with close() pending, ~1 run in 3 under load: CI's audit-sqlite cancellations). A
      // timer holds the loop while the thread winds down; one that has not exited in 5 s is ended.
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => {
        timer = setTimeout(() => resolve('late'), CLOSE_GRACE_MS);
      });
      try {
        if ((await Promise.race([exited, late])) === 'late') await worker.terminate();
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
