// The PostgreSQL audit table's week partitions (schema version 3, pg-schema.ts): made ahead of time
// by the store on start and then hourly, and dropped whole by retention once older than its cutoff.
import type pg from 'pg';
import { PARTITION_MS, PARTITION_ORIGIN_MS } from './pg-schema.js';

type Queryable = Pick<pg.Pool, 'query'>;

/** Partitions made ahead of the current one, so the writer never waits for one at midnight on Sunday. */
export const PARTITIONS_AHEAD = 1;

/** The start (Monday 00:00 UTC) of the partition holding timeMs. */
export const partitionStart = (timeMs: number): number =>
  Math.floor((timeMs - PARTITION_ORIGIN_MS) / PARTITION_MS) * PARTITION_MS + PARTITION_ORIGIN_MS;

/**
 * Makes the partitions of this week (UTC) and the next PARTITIONS_AHEAD where missing; events of
 * those weeks that went to the default partition move into them. Returns the weeks it made.
 */
export async function ensurePartitions(pool: Queryable, s: string, nowMs: number): Promise<number[]> {
  const current = partitionStart(nowMs);
  const made: number[] = [];
  for (let start = current; start <= current + PARTITIONS_AHEAD * PARTITION_MS; start += PARTITION_MS) {
    // One transaction per partition: each holds the append lock only for its own CREATE.
    const { rows } = await pool.query<{ made: boolean }>(`SELECT ${s}.ensure_events_partition($1) AS made`, [start]);
    if (rows[0]?.made) made.push(start);
  }
  return made;
}

/** Drops the partitions entirely older than timeMs; returns how many events they held. */
export async function dropPartitionsBefore(pool: Queryable, s: string, timeMs: number): Promise<number> {
  if (!Number.isFinite(timeMs)) throw new RangeError('audit dropBefore: timeMs must be a finite number');
  const { rows } = await pool.query<{ n: string }>(`SELECT ${s}.drop_events_partitions_before($1) AS n`, [
    Math.floor(timeMs),
  ]);
  return Number(rows[0]?.n ?? 0);
}
