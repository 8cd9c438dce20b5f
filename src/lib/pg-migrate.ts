// What Gatehouse's two PostgreSQL stores (audit and state) share: identifier quoting, advisory lock
// keys, and applying numbered migrations once each, under a lock so instances may start at once.
import { createHash } from 'node:crypto';
import type pg from 'pg';

export const quote = (identifier: string): string => `"${identifier.replace(/"/g, '""')}"`;

/** A signed 64-bit advisory lock key for a store's purpose within a schema. */
export function lockKey(store: 'audit' | 'state', purpose: string, schema: string): string {
  return createHash('sha256').update(`gatehouse.${store}.${purpose}:${schema}`).digest().readBigInt64BE(0).toString();
}

/**
 * Creates the schema if needed and applies the migrations not yet recorded in `table` (each store its
 * own table, since both may share one schema). A database newer than this code is refused by name.
 */
export async function applyMigrations(
  pool: Pick<pg.Pool, 'connect'>,
  opts: { store: 'audit' | 'state'; schema: string; table: string; migrations: string[] },
): Promise<void> {
  const { schema, migrations: list } = opts;
  const s = quote(schema);
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1::bigint)', [lockKey(opts.store, 'migrate', schema)]);
    // CREATE SCHEMA IF NOT EXISTS needs the CREATE privilege even when the schema exists; ask first.
    const exists = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
    if (exists.rowCount === 0) await client.query(`CREATE SCHEMA ${s}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${s}.${opts.table} (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`,
    );
    const { rows } = await client.query<{ v: number }>(
      `SELECT COALESCE(MAX(version), 0)::int AS v FROM ${s}.${opts.table}`,
    );
    const applied = rows[0]?.v ?? 0;
    if (applied > list.length) {
      throw new Error(
        `the ${opts.store} database (schema ${schema}) is at schema version ${applied}, newer than this Gatehouse (${list.length}); upgrade Gatehouse`,
      );
    }
    for (let version = applied + 1; version <= list.length; version++) {
      await client.query(list[version - 1] as string);
      await client.query(`INSERT INTO ${s}.${opts.table} (version) VALUES ($1)`, [version]);
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}
