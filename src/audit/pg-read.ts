// Reading the PostgreSQL audit table: filtered pages newest first, tails in write order, retention
// deletes. Each takes the pool to read from, so the same SQL serves the primary and a replica.
import type pg from 'pg';
import { prefixUpperBound } from '../lib/prefix-range.js';
import { decodeBody, type RAW_KEY } from './pg-schema.js';
import { checkDeleteBefore, checkQuery, checkTail, decodePosition, encodePosition } from './sqlite.js';
import type { AuditEvent, AuditPage, AuditQuery } from './types.js';

type Queryable = Pick<pg.Pool, 'query'>;

interface Row {
  seq: string | number;
  body: AuditEvent | { [RAW_KEY]: string };
}

function where(q: AuditQuery, params: unknown[]): string[] {
  const p = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  // PostgreSQL text cannot hold U+0000, so no stored value contains it: such a filter matches nothing
  // (sending it would be an encoding error).
  const storable = (v: string) => !v.includes('\u0000');
  const clauses: string[] = [];
  if (q.types && q.types.length > 0) {
    const ors = q.types.map((t) => {
      if (!storable(t)) return 'FALSE';
      if (t.endsWith('*')) {
        // A range over "C"-collated text: byte order, case-sensitive, served by the type index.
        const prefix = t.slice(0, -1);
        return `(type >= ${p(prefix)} AND type < ${p(prefixUpperBound(prefix))})`;
      }
      return `type = ${p(t)}`;
    });
    clauses.push(ors.length === 1 ? (ors[0] as string) : `(${ors.join(' OR ')})`);
  }
  const equal = (column: string, value: string | undefined) => {
    if (value === undefined) return;
    clauses.push(storable(value) ? `${column} = ${p(value)}` : 'FALSE');
  };
  equal('actor_id', q.actor);
  equal('actor_kind', q.actor_kind);
  equal('target_id', q.target);
  equal('session_id', q.session_id);
  // A literal, so that the partial index of failures applies.
  if (q.success !== undefined) clauses.push(q.success ? 'success' : 'NOT success');
  if (q.from !== undefined) clauses.push(`time_ms >= ${p(Math.ceil(q.from))}`);
  if (q.to !== undefined) clauses.push(`time_ms <= ${p(Math.floor(q.to))}`);
  return clauses;
}

const whereSql = (clauses: string[]) => (clauses.length > 0 ? `WHERE ${clauses.join(' AND ')}` : '');

export async function queryEvents(pool: Queryable, s: string, q: AuditQuery): Promise<AuditPage> {
  checkQuery(q);
  const before = q.cursor === undefined ? undefined : decodePosition(q.cursor);
  const params: unknown[] = [];
  const clauses = where(q, params);
  if (before !== undefined) {
    params.push(before);
    clauses.push(`seq < $${params.length}::bigint`);
  }
  params.push(q.limit + 1); // one more than asked says whether there is a next page
  let sql = `SELECT seq, body FROM ${s}.events ${whereSql(clauses)} ORDER BY seq DESC LIMIT $${params.length}`;
  if (q.offset) {
    params.push(q.offset);
    sql += ` OFFSET $${params.length}`;
  }
  let counting: Promise<number> | undefined;
  if (q.countUpTo !== undefined) {
    const countParams: unknown[] = [];
    const countClauses = where(q, countParams);
    countParams.push(q.countUpTo);
    counting = pool
      .query<{ n: number }>(
        `SELECT count(*)::int AS n FROM (SELECT 1 FROM ${s}.events ${whereSql(countClauses)} LIMIT $${countParams.length}) AS matching`,
        countParams,
      )
      .then((r) => r.rows[0]?.n ?? 0);
  }
  // The page and the count run on two connections at once.
  const [result, total] = await Promise.all([pool.query<Row>(sql, params), counting]);
  const rows = result.rows;
  const more = rows.length > q.limit;
  if (more) rows.pop();
  const page: AuditPage = { events: rows.map((r) => decodeBody(r.body)) };
  if (total !== undefined) page.total = total;
  const last = rows[rows.length - 1];
  if (more && last) page.nextCursor = encodePosition(last.seq);
  return page;
}

export async function tailEvents(pool: Queryable, s: string, position: string | undefined, limit: number) {
  checkTail(limit);
  const after = position === undefined ? undefined : decodePosition(position, 'tail position');
  const { rows } =
    after === undefined
      ? await pool.query<Row>(`SELECT seq, body FROM ${s}.events ORDER BY seq LIMIT $1`, [limit])
      : await pool.query<Row>(`SELECT seq, body FROM ${s}.events WHERE seq > $1::bigint ORDER BY seq LIMIT $2`, [
          after,
          limit,
        ]);
  const last = rows[rows.length - 1];
  return { events: rows.map((r) => decodeBody(r.body)), position: last ? encodePosition(last.seq) : position };
}

/** The tail position after the last committed event (see AuditStore.head): max(seq) from the indexes. */
export async function headPosition(pool: Queryable, s: string): Promise<string | undefined> {
  const { rows } = await pool.query<{ seq: string | null }>(`SELECT max(seq) AS seq FROM ${s}.events`);
  const seq = rows[0]?.seq;
  return seq === null || seq === undefined ? undefined : encodePosition(seq);
}

export async function deleteEventsBefore(pool: Queryable, s: string, timeMs: number, batchSize: number) {
  checkDeleteBefore(timeMs, batchSize);
  const result = await pool.query(
    `DELETE FROM ${s}.events WHERE (time_ms, seq) IN (SELECT time_ms, seq FROM ${s}.events WHERE time_ms < $1 ORDER BY time_ms, seq LIMIT $2)`,
    [Math.ceil(timeMs), batchSize],
  );
  return result.rowCount ?? 0;
}

/**
 * How far a standby's replay is behind, in seconds: 0 when it has replayed all it received (an idle
 * primary sends nothing, so now() - last replay time would grow without any lag), else the age of
 * the last replayed commit. Undefined on a primary.
 */
export async function replayLagSeconds(pool: Queryable): Promise<number | undefined> {
  const { rows } = await pool.query<{ lag: number | null; standby: boolean }>(
    `SELECT pg_is_in_recovery() AS standby,
            CASE WHEN pg_last_wal_receive_lsn() IS NOT DISTINCT FROM pg_last_wal_replay_lsn() THEN 0
                 ELSE GREATEST(0, EXTRACT(EPOCH FROM now() - pg_last_xact_replay_timestamp()))::float8 END AS lag`,
  );
  const row = rows[0];
  return row?.standby ? (row.lag ?? 0) : undefined;
}
