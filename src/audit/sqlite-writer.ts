// The embedded audit store's writer, on a thread of its own. better-sqlite3 is synchronous: a commit
// with synchronous=FULL waits for an fsync (2.5 ms on this project's VM), and on the main thread that
// wait stopped every request, SSH channel and database session of the process — the database proxy
// spent 65% of its event loop there. Here the wait blocks only this thread; the main thread keeps a
// connection of its own for reads (WAL: readers never wait for the writer).
//
// Protocol: the main thread posts { n, batches } (events already in column form); this thread commits
// every batch of a message in one transaction and answers { n, errors } (null for a committed batch).
// A failed transaction is retried batch by batch, so one caller's bad batch fails alone.
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
db.pragma('journal_mode = WAL');
db.pragma('synchronous = ' + (workerData.synchronous === 'NORMAL' ? 'NORMAL' : 'FULL'));
db.pragma('busy_timeout = 5000');
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
