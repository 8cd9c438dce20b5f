// The machine's PostgreSQL for tests (127.0.0.1:5432, trust, database test; GATEHOUSE_TEST_POSTGRES_URL
// overrides): whether it answers, and SQL on a connection of its own, outside the store under test.
import pg from 'pg';

export const POSTGRES_URL = process.env.GATEHOUSE_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** undefined when PostgreSQL answers; else why not (the caller fails under CI, skips elsewhere). */
export async function postgresUnreachable(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return undefined;
  } catch (error) {
    return (error as Error).message || String(error);
  } finally {
    await client.end().catch(() => {});
  }
}

export async function adminSql<T extends pg.QueryResultRow = pg.QueryResultRow>(sql: string, params: unknown[] = []) {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    return await client.query<T>(sql, params);
  } finally {
    await client.end();
  }
}
