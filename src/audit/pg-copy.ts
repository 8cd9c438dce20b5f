// The PostgreSQL audit store's write path: how one group commit reaches the events table.
//
// Every commit is one COPY, sent in one write with its data: the Query message
// `CALL lock_events_for_append(); COPY … FROM STDIN`, then CopyData and CopyDone, without waiting for
// CopyInResponse. PostgreSQL parses COPY text once and inserts it in batches, so a row costs it less
// than through a json parameter (append_events_json, parsed twice, inserted row by row), and sending
// the data at once makes a commit one round trip, as a prepared call is, where libpq-style COPY takes
// two. The protocol allows it: if the CALL fails, the server skips the rest of the query and drops
// the CopyData and CopyDone that follow ("any subsequent CopyData, CopyDone, or CopyFail messages
// issued by the frontend will simply be dropped"; PostgreSQL docs, Protocol Flow, COPY Operations).
//
// The two statements run in one implicit transaction, which PostgreSQL commits (with the session's
// synchronous_commit) before it answers ReadyForQuery, and the write resolves only on ReadyForQuery
// after no error: a resolved writeRows() is a durable commit.
import type pg from 'pg';
import { column, encodeBody } from './pg-schema.js';
import type { AuditEvent } from './types.js';

const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/**
 * A value in COPY's text format. Backslashes are doubled, so no value can read as `\N` (NULL) or as
 * the end-of-data line `\.`; column() has already taken out U+0000, which text cannot hold.
 */
const field = (v: string | null): string =>
  v === null ? '\\N' : v.replace(/[\\\t\n\r]/g, (c) => COPY_ESCAPES[c] as string);

/** The COPY text of a batch: one line per event, in the order the events get their seqs. */
export function copyRows(events: readonly AuditEvent[]): string {
  let out = '';
  for (const e of events) {
    out += `${field(column(e.id))}\t${Date.parse(e.time)}\t${field(column(e.type))}\t${field(column(e.actor.id))}\t${field(column(e.actor.kind))}\t${field(column(e.target?.id))}\t${field(column(e.session_id))}\t${e.success ? 't' : 'f'}\t${field(encodeBody(e))}\n`;
  }
  return out;
}

const COPY_DATA = 0x64; // 'd'
const COPY_DONE = Buffer.from([0x63, 0, 0, 0, 4]); // 'c', length 4

/** What pg's Connection gives a submittable: the Query serializer and the socket. */
interface Connection {
  query(text: string): void;
  stream: NodeJS.WritableStream & { cork(): void; uncork(): void };
}

/** A node-postgres submittable: the query, its COPY data and CopyDone in one write. */
class CopyCommit {
  private failed = false;
  constructor(
    private readonly text: string,
    private readonly rows: string,
    private readonly resolve: () => void,
    private readonly reject: (error: unknown) => void,
  ) {}

  submit(connection: Connection): void {
    const head = Buffer.allocUnsafe(5);
    head[0] = COPY_DATA;
    head.writeUInt32BE(Buffer.byteLength(this.rows) + 4, 1);
    connection.stream.cork();
    connection.query(this.text);
    connection.stream.write(head);
    connection.stream.write(this.rows, 'utf8');
    connection.stream.write(COPY_DONE);
    connection.stream.uncork();
  }

  handleError(error: unknown): void {
    this.failed = true;
    this.reject(error);
  }

  handleReadyForQuery(): void {
    if (!this.failed) this.resolve();
  }

  // The data is already on its way; the rest of what the server says needs no answer.
  handleCopyInResponse(): void {}
  handleCommandComplete(): void {}
  handleRowDescription(): void {}
  handleDataRow(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
  handleCopyData(): void {}
}

/** The COPY statement for copyRows' columns, in that order. */
export const copyInto = (s: string): string =>
  `COPY ${s}.events (id, time_ms, type, actor_id, actor_kind, target_id, session_id, success, body) FROM STDIN`;

/** Sends `text` (ending in a COPY … FROM STDIN) with `rows` in one write; resolves on a clean ReadyForQuery. */
export function sendCopy(client: pg.Client, text: string, rows: string): Promise<void> {
  return new Promise((resolve, reject) => {
    client.query(new CopyCommit(text, rows, resolve, reject) as unknown as pg.Submittable);
  });
}

/** Inserts and commits `rows` (copyRows' text) on `client`, the store's writer, never inside a transaction. */
export function writeRows(client: pg.Client, s: string, rows: string): Promise<void> {
  return sendCopy(client, `CALL ${s}.lock_events_for_append(); ${copyInto(s)}`, rows);
}
