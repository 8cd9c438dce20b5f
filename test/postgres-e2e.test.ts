// The whole server with GATEHOUSE_AUDIT_URL pointing at the real PostgreSQL: requests write their
// events there, the API reads them back, and they are still there after a restart.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import pg from 'pg';
import { api, startTestServer } from './helpers/gatehouse.js';

const BASE = process.env.GATEHOUSE_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

test('events land in PostgreSQL and survive a restart', async (t) => {
  const client = new pg.Client({ connectionString: BASE, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
  } catch (error) {
    assert.notEqual(process.env.CI, 'true', `PostgreSQL at ${BASE} is required under CI: ${(error as Error).message}`);
    t.skip(`!!! PostgreSQL unreachable at ${BASE}; skipping (set GATEHOUSE_TEST_POSTGRES_URL)`);
    return;
  }
  const schema = `gh_e2e_${randomBytes(4).toString('hex')}`;
  const url = `${BASE}${BASE.includes('?') ? '&' : '?'}schema=${schema}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-pg-'));
  try {
    const first = await startTestServer({ audit_url: url }, { dataDir });
    const user = await api(first.url, 'POST', '/v1/users', { token: first.adminToken, body: { name: 'pg-user' } });
    assert.equal(user.status, 201);
    const rows = await client.query(`SELECT count(*)::int AS n FROM ${schema}.events WHERE type = 'user.created'`);
    assert.ok(rows.rows[0].n >= 2, 'bootstrap admin and pg-user');
    await first.stop({ keepData: true });

    const second = await startTestServer({ audit_url: url }, { dataDir });
    try {
      const events = await api(second.url, 'GET', `/v1/audit/events?target=${user.json.id}`, {
        token: second.adminToken,
      });
      assert.equal(events.status, 200);
      assert.deepEqual(
        events.json.events.map((e: { type: string }) => e.type),
        ['user.created'],
      );
      const ready = await api(second.url, 'GET', '/readyz');
      // The audit check names the host taking writes (README: audit store on replicated PostgreSQL).
      assert.equal(ready.status, 200);
      assert.match(ready.json.checks.audit, /^ok; primary 127\.0\.0\.1:\d+/);
    } finally {
      await second.stop();
    }
  } finally {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await client.end();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
