// The PostgreSQL audit table's day partitions (schema version 3, pg-schema.ts): made ahead of time
// by the store on start and then hourly, and dropped whole by retention once older than its cutoff.
import type pg from 'pg';

type Queryable = Pick<pg.Pool, 'query'>;

export const DAY_MS = 86_400_000;

/** Days made ahead of today, so the writer never waits for a partition at midnight. */
export const PARTITION_DAYS_AHEAD = 2;

/**
 * Makes the partitions of today (UTC) and the next PARTITION_DAYS_AHEAD days where missing; events
 * of those days that went to the default partition move into them. Returns the days it made.
 */
export async function ensureDayPartitions(pool: Queryable, s: string, nowMs: number): Promise<number[]> {
  const today = Math.floor(nowMs / DAY_MS) * DAY_MS;
  const made: number[] = [];
  for (let day = today; day <= today + PARTITION_DAYS_AHEAD * DAY_MS; day += DAY_MS) {
    // One transaction per day: each holds the append lock only for its own CREATE.
    const { rows } = await pool.query<{ made: boolean }>(`SELECT ${s}.ensure_events_partition($1) AS made`, [day]);
    if (rows[0]?.made) made.push(day);
  }
  return made;
}

/** Drops the day partitions entirely older than timeMs; returns how many events they held. */
export async function dropPartitionsBefore(pool: Queryable, s: string, timeMs: number): Promise<number> {
  if (!Number.isFinite(timeMs)) throw new RangeError('audit dropBefore: timeMs must be a finite number');
  const { rows } = await pool.query<{ n: string }>(`SELECT ${s}.drop_events_partitions_before($1) AS n`, [
    Math.floor(timeMs),
  ]);
  return Number(rows[0]?.n ?? 0);
}
