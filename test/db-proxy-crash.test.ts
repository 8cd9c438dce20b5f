// What a crash can lose of the database audit trail (README, PostgreSQL access → Audit): db.query
// events are written once a statement completes, gathered for ≤ 5 ms across sessions into one
// durable append. SIGKILL the real process while a client runs statement after statement: after a
// restart, the events present are exactly the first ones (losses only at the end, never a hole),
// and every statement the client saw complete well before the kill is there.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import pg from 'pg';
import { registerPostgres } from './helpers/db-resource.js';
import { api } from './helpers/gatehouse.js';
import { run, stop } from './helpers/process.js';
import { requirePostgres } from './helpers/psql.js';
import { freeStablePort } from './helpers/sshd.js';

const KEY = 'db-crash-test-bootstrap-key-0123456789abcdef';
/** Far beyond the 5 ms gathering and a commit on a loaded machine. */
const SETTLED_MS = 1500;

if (requirePostgres('PostgreSQL proxy crash')) {
  test('SIGKILL while statements run: db.query events survive as a prefix, all settled ones present', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-db-crash-'));
    // Restarted on the same port: one outside the ephemeral range, which no client socket is given.
    const dbPort = await freeStablePort();
    const env = {
      GATEHOUSE_DATA_DIR: dataDir,
      GATEHOUSE_BOOTSTRAP_API_KEY: KEY,
      GATEHOUSE_DB_ADDR: `127.0.0.1:${dbPort}`,
    };
    try {
      const first = await run(env);
      const token = (await api(first.authUrl, 'POST', '/v1/auth/token', { body: { api_key: KEY } })).json
        .access_token as string;
      await registerPostgres({ url: first.authUrl, adminToken: token });
      const client = new pg.Client({
        host: '127.0.0.1',
        port: dbPort,
        user: 'postgres@pg',
        database: 'test',
        password: token,
      });
      client.on('error', () => {});
      await client.connect();
      const completedAt: number[] = [];
      let killedAt = 0;
      const running = (async () => {
        for (let i = 0; ; i++) {
          try {
            await client.query(`select 'crash-${i}'`);
          } catch {
            return; // the proxy died
          }
          completedAt.push(Date.now());
        }
      })();
      while (completedAt.length < 400 || Date.now() - (completedAt[0] as number) < 2 * SETTLED_MS) {
        await new Promise((r) => setTimeout(r, 20));
      }
      killedAt = Date.now();
      first.child.kill('SIGKILL');
      await running;

      const second = await run(env);
      try {
        const t2 = (await api(second.authUrl, 'POST', '/v1/auth/token', { body: { api_key: KEY } })).json
          .access_token as string;
        const recorded = new Set<number>();
        for (let page = 1; ; page++) {
          const r = await api(second.authUrl, 'GET', `/v1/events?type=db.query&per_page=100&page=${page}`, {
            token: t2,
          });
          assert.equal(r.status, 200, r.text);
          for (const e of r.json.events as Array<{ data: { text: string } }>) {
            const m = /^select 'crash-(\d+)'$/.exec(e.data.text);
            if (m) recorded.add(Number(m[1]));
          }
          if (r.json.events.length < 100) break;
        }
        const n = recorded.size;
        // A prefix: statements 0 … n-1, nothing missing in between.
        for (let i = 0; i < n; i++) assert.ok(recorded.has(i), `statement ${i} lost while ${n} were kept`);
        const settled = completedAt.filter((t) => killedAt - t > SETTLED_MS).length;
        assert.ok(settled > 100, `only ${settled} statements settled before the kill`);
        assert.ok(n >= settled, `${settled - n} statements completed over ${SETTLED_MS} ms before the kill were lost`);
        // Nothing is invented: no event for a statement the client never saw start.
        assert.ok(n <= completedAt.length + 1, `${n} events for ${completedAt.length} completed statements`);
        console.log(`${completedAt.length} completed, ${n} recorded, ${completedAt.length - n} lost at the end`);
      } finally {
        await stop(second);
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
}
