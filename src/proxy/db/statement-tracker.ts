// Pairs what a client asks (simple Query; Parse/Bind/Execute up to Sync) with what the database
// answers (RowDescription, CommandComplete, EmptyQueryResponse, PortalSuspended, ErrorResponse,
// ReadyForQuery), so every statement becomes one audit record with its text, result columns, row
// count, outcome and duration. Only message heads are seen (frame-scanner.ts); results' rows never
// pass through here.
import { cString, parseErrorFields } from '../../lib/pg-wire.js';

export interface StatementOutcome {
  text: string;
  /** The text was longer than the configured length and was cut. */
  truncated: boolean;
  protocol: 'simple' | 'extended';
  /** Statement name for the extended protocol ('' for the unnamed one). */
  statement?: string;
  /**
   * Bind parameters, only when a role asks (db_record_parameters): text as sent, binary as `\x` and
   * hex, NULL as null; cut to the configured length in all (parametersTruncated then says so).
   */
  parameters?: Array<string | null>;
  parametersTruncated?: boolean;
  /** CommandComplete tags, e.g. ['SELECT 3'] (several for a multi-statement simple query). */
  tags: string[];
  /**
   * The result's column names, when the server described them to this execution (RowDescription:
   * always in the simple protocol, in the extended one only when the client sent Describe); the
   * first result's of a multi-statement query; at most MAX_COLUMNS, `…` marking a cut.
   */
  columns?: string[];
  /** Rows affected or returned, summed over the tags that carry a count; null when none does. */
  rows: number | null;
  error?: { code: string; message: string };
  /** Not run: an earlier message of the same Sync batch failed, so PostgreSQL skipped it. */
  skipped?: boolean;
  suspended?: boolean;
  startedAt: number;
  durationMs: number;
}

/** A statement on its way: what its outcome will say so far, until it is done. */
type Pending = Pick<
  StatementOutcome,
  | 'text'
  | 'truncated'
  | 'protocol'
  | 'statement'
  | 'parameters'
  | 'parametersTruncated'
  | 'tags'
  | 'columns'
  | 'error'
  | 'suspended'
  | 'startedAt'
> & { done: boolean; endedAt?: number };

interface Batch {
  simple: boolean;
  statements: Pending[];
  /** The text of the last Parse in the batch, for a Parse that fails before any Execute. */
  parseText?: string;
  failed: boolean;
}

const MAX_NAMES = 10_000;
const MAX_COLUMNS = 32;
const C = (ch: string) => ch.charCodeAt(0);
const ROWS_TAG = /^(?:SELECT|INSERT \d+|UPDATE|DELETE|COPY|FETCH|MOVE|MERGE) (\d+)$/;

/** Column names of a RowDescription body, as far as head holds them (at most MAX_COLUMNS). */
export function columnsOf(head: Buffer): string[] {
  if (head.length < 2) return [];
  const count = head.readInt16BE(0);
  const names: string[] = [];
  let at = 2;
  for (let i = 0; i < count; i++) {
    const end = head.indexOf(0, at);
    if (end < 0 || names.length === MAX_COLUMNS) {
      names.push('…');
      break;
    }
    names.push(head.toString('utf8', at, end));
    at = end + 19; // the name's NUL, then table oid, column number, type oid, size, modifier, format
  }
  return names;
}

export function rowsOfTag(tag: string): number | null {
  const m = ROWS_TAG.exec(tag);
  return m ? Number(m[1]) : null;
}

/**
 * The parameter values of a Bind message's body, as far as head holds them (head may be a prefix of
 * a longer message: what it cuts is reported as truncated). Text values are UTF-8; binary ones hex.
 */
export function bindParameters(
  head: Buffer,
  maxChars: number,
): { values: Array<string | null>; truncated: boolean } | undefined {
  const portal = cString(head, 0);
  let at = cString(head, portal.next).next;
  const values: Array<string | null> = [];
  let budget = maxChars;
  const need = (n: number) => at + n <= head.length;
  if (!need(2)) return undefined;
  const formatCount = head.readInt16BE(at);
  at += 2;
  if (!need(2 * formatCount + 2)) return undefined;
  const formats: number[] = [];
  for (let i = 0; i < formatCount; i++) formats.push(head.readInt16BE(at + 2 * i));
  at += 2 * formatCount;
  const count = head.readInt16BE(at);
  at += 2;
  for (let i = 0; i < count; i++) {
    if (!need(4)) return { values, truncated: true };
    const len = head.readInt32BE(at);
    at += 4;
    if (len < 0) {
      values.push(null);
      continue;
    }
    const binary = (formatCount === 1 ? formats[0] : formats[i]) === 1;
    const available = head.subarray(at, Math.min(at + len, head.length));
    let value = binary ? `\\x${available.toString('hex')}` : available.toString('utf8');
    const cut = available.length < len || value.length > budget;
    if (value.length > budget) value = value.slice(0, Math.max(0, budget));
    budget -= value.length;
    values.push(value);
    if (cut) return { values, truncated: true };
    at += len;
  }
  return { values, truncated: false };
}

export class StatementTracker {
  private readonly statements = new Map<string, string>();
  private readonly portals = new Map<string, string>();
  /** Bind parameters per portal, when recorded. */
  private readonly portalParameters = new Map<string, { values: Array<string | null>; truncated: boolean }>();
  /** Batches awaiting their ReadyForQuery, oldest first; the last may still be open (no Sync yet). */
  private readonly batches: Batch[] = [];
  private open: Batch | undefined;
  count = 0;

  constructor(
    private readonly maxText: number,
    private readonly now: () => number,
    private readonly onStatement: (s: StatementOutcome) => void,
    /** Role option db_record_parameters: keep Bind's values (up to maxText characters in all). */
    private readonly recordParameters = false,
  ) {}

  /** How much of each client message to look at. */
  readonly clientWant = (type: number): number => {
    switch (type) {
      case C('Q'):
      case C('P'):
        return this.maxText + 320; // statement name (≤ 63 bytes in PostgreSQL) and the text
      case C('B'):
        return this.recordParameters ? this.maxText + 640 : 320;
      case C('E'):
      case C('C'):
        return 320;
      case C('S'):
        return 1;
      default:
        return 0;
    }
  };

  /** How much of each server message to look at. */
  readonly serverWant = (type: number): number => {
    switch (type) {
      case C('C'):
        return 256;
      case C('T'):
        return 1024;
      case C('E'):
        return 4096;
      case C('I'):
      case C('s'):
      case C('Z'):
        return 1;
      default:
        return 0;
    }
  };

  private text(head: Buffer, offset: number, length: number): { text: string; truncated: boolean } {
    const { value } = cString(head, offset);
    const full = length - offset - 1;
    const truncated = Buffer.byteLength(value) < full || value.length > this.maxText;
    return { text: value.length > this.maxText ? value.slice(0, this.maxText) : value, truncated };
  }

  private extendedBatch(): Batch {
    if (!this.open) {
      this.open = { simple: false, statements: [], failed: false };
      this.batches.push(this.open);
    }
    return this.open;
  }

  private remember(map: Map<string, string>, name: string, text: string): void {
    if (name !== '' && map.has(name)) return; // PostgreSQL refuses a second one of that name
    if (map.size >= MAX_NAMES) map.delete(map.keys().next().value as string);
    map.set(name, text);
  }

  readonly onClientMessage = (type: number, head: Buffer, length: number): void => {
    switch (type) {
      case C('Q'): {
        const { text, truncated } = this.text(head, 0, length);
        const batch: Batch = { simple: true, failed: false, statements: [] };
        batch.statements.push({
          text,
          truncated,
          protocol: 'simple',
          tags: [],
          done: false,
          startedAt: this.now(),
        });
        this.batches.push(batch);
        return;
      }
      case C('P'): {
        const name = cString(head, 0);
        const { text } = this.text(head, name.next, length);
        this.remember(this.statements, name.value, text);
        this.extendedBatch().parseText = text;
        return;
      }
      case C('B'): {
        const portal = cString(head, 0);
        const statement = cString(head, portal.next).value;
        this.remember(this.portals, portal.value, statement);
        if (this.recordParameters) {
          const params = bindParameters(head, this.maxText);
          if (params) this.portalParameters.set(portal.value, params);
          else this.portalParameters.delete(portal.value);
          if (this.portalParameters.size > MAX_NAMES)
            this.portalParameters.delete(this.portalParameters.keys().next().value as string);
        }
        this.extendedBatch();
        return;
      }
      case C('E'): {
        const portal = cString(head, 0).value;
        const statement = this.portals.get(portal) ?? '';
        const text = this.statements.get(statement) ?? '<unknown statement>';
        const params = this.recordParameters ? this.portalParameters.get(portal) : undefined;
        const pending: Pending = {
          text,
          truncated: text.length >= this.maxText,
          protocol: 'extended',
          statement,
          tags: [],
          done: false,
          startedAt: this.now(),
        };
        if (params) {
          pending.parameters = params.values;
          pending.parametersTruncated = params.truncated;
        }
        this.extendedBatch().statements.push(pending);
        return;
      }
      case C('C'): {
        const kind = head[0];
        const name = cString(head, 1).value;
        if (kind === C('S')) this.statements.delete(name);
        else this.portals.delete(name);
        this.extendedBatch();
        return;
      }
      case C('S'):
        this.extendedBatch();
        this.open = undefined;
        return;
    }
  };

  private current(): Pending | undefined {
    const batch = this.batches[0];
    if (!batch) return undefined;
    if (batch.simple) return batch.statements[0];
    for (const s of batch.statements) if (!s.done) return s;
    return undefined;
  }

  readonly onServerMessage = (type: number, head: Buffer): void => {
    switch (type) {
      case C('T'): {
        const s = this.current();
        if (s && s.columns === undefined) s.columns = columnsOf(head);
        return;
      }
      case C('C'): {
        const s = this.current();
        if (!s) return;
        s.tags.push(cString(head, 0).value);
        if (s.protocol === 'extended') this.complete(s);
        return;
      }
      case C('I'):
      case C('s'): {
        const s = this.current();
        if (!s) return;
        if (type === C('s')) s.suspended = true;
        if (s.protocol === 'extended') this.complete(s);
        return;
      }
      case C('E'): {
        const batch = this.batches[0];
        if (!batch) return;
        const fields = parseErrorFields(head);
        const error = { code: fields.C ?? '', message: fields.M ?? '' };
        let s = this.current();
        if (!s && !batch.simple && batch.parseText !== undefined && !batch.failed) {
          // A Parse or Bind failed before any Execute: still a statement someone tried to run.
          s = {
            text: batch.parseText,
            truncated: false,
            protocol: 'extended',
            tags: [],
            done: false,
            startedAt: this.now(),
          };
          batch.statements.push(s);
        }
        batch.failed = true;
        if (!s) return;
        s.error = error;
        if (s.protocol === 'extended') this.complete(s);
        return;
      }
      case C('Z'): {
        const batch = this.batches.shift();
        if (!batch) return;
        if (batch === this.open) this.open = undefined;
        for (const s of batch.statements) {
          if (!s.done) this.complete(s, batch.failed && !batch.simple);
          this.emit(s);
        }
        return;
      }
    }
  };

  private complete(s: Pending, skipped = false): void {
    s.done = true;
    s.endedAt = this.now();
    if (skipped && !s.error) s.error = { code: 'skipped', message: 'not run: an earlier message failed' };
  }

  private emit(s: Pending): void {
    this.count++;
    let rows: number | null = null;
    for (const tag of s.tags) {
      const r = rowsOfTag(tag);
      if (r !== null) rows = (rows ?? 0) + r;
    }
    const skipped = s.error?.code === 'skipped';
    // Set field by field: spreading `{}` for each absent field cost an object and a copy per field,
    // for every statement.
    const outcome: StatementOutcome = {
      text: s.text,
      truncated: s.truncated,
      protocol: s.protocol,
      tags: s.tags.length > 16 ? s.tags.slice(0, 16) : s.tags,
      rows,
      startedAt: s.startedAt,
      durationMs: Math.max(0, (s.endedAt ?? this.now()) - s.startedAt),
    };
    if (s.statement !== undefined) outcome.statement = s.statement;
    if (s.columns) outcome.columns = s.columns;
    if (s.parameters) {
      outcome.parameters = s.parameters;
      outcome.parametersTruncated = s.parametersTruncated === true;
    }
    if (s.error && !skipped) outcome.error = s.error;
    if (skipped) outcome.skipped = true;
    if (s.suspended) outcome.suspended = true;
    this.onStatement(outcome);
  }

  /** Statements the connection's end cut off (no ReadyForQuery came): reported once, as unfinished. */
  flushUnfinished(reason: string): void {
    for (const batch of this.batches.splice(0)) {
      for (const s of batch.statements) {
        if (!s.done) {
          s.error ??= { code: 'unfinished', message: reason };
          this.complete(s);
        }
        this.emit(s);
      }
    }
    this.open = undefined;
  }
}
