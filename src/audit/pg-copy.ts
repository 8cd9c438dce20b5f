// The PostgreSQL audit store's write path: a batch of events as one COPY into the events table.
// COPY takes the rows as text in one stream, which PostgreSQL parses and inserts in batches (a
// multi-row heap insert per partition), where append_events_json parsed a json parameter twice and
// inserted row by row: 18 % less server CPU per event for 500-event commits, 13 % for 50-event ones
// (README, "Ingest speed").
//
// One Query message, `CALL lock_events_for_append(); COPY … FROM STDIN`: the two statements run in one
// implicit transaction, which PostgreSQL commits (with the session's synchronous_commit) before it
// answers ReadyForQuery, and pg-copy-streams finishes the stream only on ReadyForQuery. So a resolved
// copyEvents() is a durable commit, in one round trip for the statement and one for the rows.
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
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
export function copyRows(events: AuditEvent[]): string {
  let out = '';
  for (const e of events) {
    out += `${field(column(e.id))}\t${Date.parse(e.time)}\t${field(column(e.type))}\t${field(column(e.actor.id))}\t${field(column(e.actor.kind))}\t${field(column(e.target?.id))}\t${field(column(e.session_id))}\t${e.success ? 't' : 'f'}\t${field(encodeBody(e))}\n`;
  }
  return out;
}

/** Inserts and commits the events on `client`, which must not be inside a transaction. */
export function copyEvents(client: pg.Client, s: string, events: AuditEvent[]): Promise<void> {
  const rows = copyRows(events);
  return new Promise((resolve, reject) => {
    const stream = client.query(
      copyFrom(
        `CALL ${s}.lock_events_for_append(); COPY ${s}.events (id, time_ms, type, actor_id, actor_kind, target_id, session_id, success, body) FROM STDIN`,
      ),
    );
    stream.on('error', reject);
    stream.on('finish', resolve);
    stream.end(rows);
  });
}
