// The PostgreSQL audit store's write path: how one group commit reaches the events table.
//
// Large batches go as one COPY: PostgreSQL parses COPY text once and inserts it in batches (a
// multi-row heap insert per partition), where append_events_json parses a json parameter twice and
// inserts row by row. Small batches keep the prepared append_events_json call: one round trip where
// COPY takes two, which is what a commit of a few events costs most (README, "Ingest speed": 5,000-event
// commits 15.5k → 25.6k events/s with COPY; 50-event commits 13.7–15.0k with json, 9.9–14.2k with COPY).
//
// The COPY is one Query message, `CALL lock_events_for_append(); COPY … FROM STDIN`: the two statements
// run in one implicit transaction, which PostgreSQL commits (with the session's synchronous_commit)
// before it answers ReadyForQuery, and pg-copy-streams finishes the stream only on ReadyForQuery. So a
// resolved writeEvents() is a durable commit either way.
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { column, encodeBody, rowsJson } from './pg-schema.js';
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

/** Batches of at least this many events go as COPY (measured faster at 500 and 5,000; slower at 50). */
export const COPY_MIN_EVENTS = 500;

/** Inserts and commits the events on `client` (the store's writer, never inside a transaction). */
export async function writeEvents(client: pg.Client, s: string, events: AuditEvent[]): Promise<void> {
  if (events.length >= COPY_MIN_EVENTS) return copyEvents(client, s, events);
  // Named: parsed once per connection (one writer per store, so one schema per connection).
  await client.query({
    name: 'gatehouse-audit-append',
    text: `SELECT ${s}.append_events_json($1::json)`,
    values: [rowsJson(events)],
  });
}

function copyEvents(client: pg.Client, s: string, events: AuditEvent[]): Promise<void> {
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
