// Role option db_read_only, the friendly half. What keeps such a session from writing is PostgreSQL:
// it runs as the database's read-only login, a role without write privileges (db-proxy.ts), because
// no parsing of SQL can (nested comments, DO blocks building a SET from strings, any function with a
// SET clause or set_config() under another spelling). On top of that the session opens with
// default_transaction_read_only=on (a startup parameter, also what RESET and DISCARD ALL return to),
// and what plainly tries to lift it — SET or set_config of the setting, READ WRITE transactions
// (BEGIN/START/SET TRANSACTION, SESSION CHARACTERISTICS), U& escapes — is refused here before it
// reaches the database, so a user reads an ERROR that says why instead of a permission error. The
// refused message is replaced by one PostgreSQL answers with an error, so the client reads it in
// order with everything else, and the statement's db.query event records the refusal. Should the
// setting still turn off, the server reports it (ParameterStatus, PostgreSQL ≥ 14, at
// ReadyForQuery) and the session is ended.

import { cString } from '../../lib/pg-wire.js';
import { FrameScanner } from './frame-scanner.js';

export const READ_ONLY_STARTUP = { default_transaction_read_only: 'on' } as const;
/** Longest statement inspected; a longer one in a read-only session ends it (it cannot be judged). */
export const MAX_INSPECTED = 1024 * 1024;

const SQLSTATE = '25006'; // read_only_sql_transaction
const REFUSAL = 'gatehouse: this session is read-only (role option db_read_only)';

/** Lower case, comments gone, whitespace runs made one space: what the patterns look at. */
function normalize(sql: string): string {
  return sql
    .toLowerCase()
    .replace(/\/\*[\s\S]*?\*\//g, ' ')
    .replace(/--[^\n]*/g, ' ')
    .replace(/\s+/g, ' ');
}

const SHOW_ONLY = /^ ?show [a-z_"]+ ?;? ?$/;
const RULES: Array<[RegExp, string]> = [
  [/transaction_read_only/, 'default_transaction_read_only cannot be changed'],
  [/\bread ?write\b/, 'READ WRITE transactions are not allowed'],
  [/\bset_config ?\(/, 'set_config() is not allowed'],
  [/\bu ?& ?['"]/, 'Unicode-escaped names and strings are not allowed'],
];

/** Why this statement text would lift read-only, or undefined when it may run. */
export function readOnlyViolation(sql: string): string | undefined {
  const text = normalize(sql);
  if (SHOW_ONLY.test(text)) return undefined;
  for (const [pattern, why] of RULES) if (pattern.test(text)) return `${REFUSAL}: ${why}`;
  return undefined;
}

const frame = (type: string, body: Buffer) => {
  const out = Buffer.allocUnsafe(5 + body.length);
  out.write(type, 0, 'latin1');
  out.writeInt32BE(body.length + 4, 1);
  body.copy(out, 5);
  return out;
};

/** A statement PostgreSQL answers with our refusal as an ERROR (allowed in read-only transactions). */
function raising(message: string): string {
  const quoted = message.replace(/'/g, "''");
  return `DO $gatehouse$BEGIN RAISE EXCEPTION USING ERRCODE = '${SQLSTATE}', MESSAGE = '${quoted}'; END$gatehouse$`;
}

/** The Query or Parse message to send instead of a refused one (a Parse keeps its statement name). */
export function refusalMessage(type: 'Q' | 'P', head: Buffer, why: string): Buffer {
  const sql = Buffer.from(`${raising(why)}\0`);
  if (type === 'Q') return frame('Q', sql);
  const name = cString(head, 0).value;
  return frame('P', Buffer.concat([Buffer.from(`${name}\0`), sql, Buffer.from([0, 0])]));
}

/** The text of a Query or Parse message whose whole body is `head`. */
export function statementText(type: 'Q' | 'P', head: Buffer): string {
  return type === 'Q' ? cString(head, 0).value : cString(head, cString(head, 0).next).value;
}

const Q = 'Q'.charCodeAt(0);
const P = 'P'.charCodeAt(0);
const S = 'S'.charCodeAt(0);

/** One read-only session's inspection of both directions. */
export class ReadOnlyGuard {
  private splices: Array<{ start: number; end: number; replacement: Buffer }> = [];
  private fatal: string | undefined;
  private readonly fromClient: FrameScanner = new FrameScanner(
    (type) => (type === Q || type === P ? MAX_INSPECTED : 0),
    (type, head, length) => {
      if (length > MAX_INSPECTED) {
        this.fatal = `${REFUSAL}: a statement over 1 MiB cannot be inspected`;
        return;
      }
      const kind = type === Q ? 'Q' : 'P';
      const why = readOnlyViolation(statementText(kind, head));
      if (!why) return;
      // Part of it has already gone on: it cannot be replaced, only the session ended.
      if (this.fromClient.messageStart < 0) this.fatal = why;
      else {
        const { messageStart: start, messageEnd: end } = this.fromClient;
        this.splices.push({ start, end, replacement: refusalMessage(kind, head, why) });
      }
    },
  );
  /** Where in the chunk being watched the report of the setting turned off begins (-1: an earlier chunk). */
  private liftedAt: number | undefined;
  private readonly fromServer = new FrameScanner(
    (type) => (type === S ? 256 : 0),
    (_type, head) => {
      const name = cString(head, 0);
      if (this.liftedAt !== undefined || name.value !== 'default_transaction_read_only') return;
      if (cString(head, name.next).value !== 'on') this.liftedAt = this.fromServer.messageStart;
    },
  );

  /** The client's chunk to forward (refused statements replaced), or why the session must end. */
  filter(chunk: Buffer): { chunk: Buffer } | { end: string } {
    this.splices = [];
    this.fatal = undefined;
    this.fromClient.scan(chunk);
    if (this.fatal) return { end: this.fatal };
    if (this.splices.length === 0) return { chunk };
    const parts: Buffer[] = [];
    let at = 0;
    for (const s of this.splices) {
      parts.push(chunk.subarray(at, s.start), s.replacement);
      at = s.end;
    }
    parts.push(chunk.subarray(at));
    return { chunk: Buffer.concat(parts) };
  }

  /**
   * Why the session must end, if the server reports read-only lifted in this chunk, and the whole
   * messages before that report: they (an ERROR saying why a write failed, say) still go to the client.
   */
  watch(chunk: Buffer): { why: string; before: Buffer } | undefined {
    this.fromServer.scan(chunk);
    if (this.liftedAt === undefined) return undefined;
    const before = chunk.subarray(0, Math.max(this.liftedAt, 0));
    this.liftedAt = -1; // a later chunk, should one come, passes nothing on
    return { why: 'gatehouse: session ended: default_transaction_read_only was turned off', before };
  }
}
