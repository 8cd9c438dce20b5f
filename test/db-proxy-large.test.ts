// A large result through the PostgreSQL proxy to a client that keeps stopping to read: the proxy
// reads the database into one reused buffer (src/proxy/db/reused-reads.ts) and must never overwrite
// bytes a slow client write still holds. The rows arrive exactly as a direct connection gets them,
// and the statement's db.query event counts them.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { createDbRole, registerPostgres } from './helpers/db-resource.js';
import { api, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';
import { requirePostgres } from './helpers/psql.js';
import { until } from './helpers/until.js';

const ROWS = 30_000;
const QUERY = `select i, md5(i::text) || repeat(chr(65 + i % 26), 1000) as v from generate_series(1, ${ROWS}) i /* large-result */`;

async function digest(client: pg.Client): Promise<string> {
  const r = await client.query(QUERY);
  assert.equal(r.rows.length, ROWS);
  const hash = createHash('sha256');
  for (const row of r.rows) hash.update(`${row.i}:${row.v}\n`);
  return hash.digest('hex');
}

if (requirePostgres('PostgreSQL proxy, large results')) {
  describe('PostgreSQL proxy: a large result to a slow reader', () => {
    let gh: TestServer;
    const admin = (method: string, path: string, body?: unknown) =>
      api(gh.url, method, path, { token: gh.adminToken, ...(body ? { body } : {}) });

    before(async () => {
      gh = await startTestServer();
      await registerPostgres(gh);
      await createDbRole(gh, 'db-large');
    });
    after(async () => {
      await gh?.stop();
    });

    test('every byte of ~30 MB arrives as sent directly, and the event says how many rows', async () => {
      const direct = new pg.Client({ host: '127.0.0.1', port: 5432, user: 'postgres', database: 'test' });
      await direct.connect();
      const expected = await digest(direct).finally(() => direct.end());

      const who = await userWithRoles(gh, 'large-reader', ['db-large']);
      const client = new pg.Client({
        host: '127.0.0.1',
        port: gh.gatehouse.dbAddr?.port as number,
        user: 'postgres@pg',
        database: 'test',
        password: who.token,
      });
      await client.connect();
      // The client stops reading for 40 ms of every 50: the socket buffers fill, and the proxy's
      // writes to it queue (with the chunks they were given still referenced).
      const stream = (client as unknown as { connection: { stream: NodeJS.ReadableStream } }).connection.stream;
      const stutter = setInterval(() => {
        stream.pause();
        setTimeout(() => stream.resume(), 40);
      }, 50);
      try {
        assert.equal(await digest(client), expected);
      } finally {
        clearInterval(stutter);
        stream.resume();
        await client.end();
      }
      const event = await until('the db.query event of the large result', async () => {
        const events = (await admin('GET', `/v1/events?type=db.query&actor=${who.id}&per_page=100`)).json
          .events as Array<{
          data: { text: string; rows: number };
        }>;
        return events.find((e) => e.data.text.includes('large-result'));
      });
      assert.equal(event.data.rows, ROWS);
    });
  });
}
