// Audit reads from a replica (GATEHOUSE_AUDIT_READ_URL), on a real primary and streaming standby:
// queries and the NDJSON export answer from the standby with its replay lag in Gatehouse-Replica-Lag,
// ?consistency=strong reads the primary, an event written through the API is readable on the replica
// within 1 s (p50/p99 printed), and a replica that is down makes the primary answer instead.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { api, startTestServer, type TestServer } from './helpers/gatehouse.js';
import { type PgReplication, startReplication } from './helpers/pg-replication.js';

const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] as number;
};

describe('audit reads from a replica', () => {
  let repl: PgReplication;
  let server: TestServer;
  const get = (path: string) => api(server.url, 'GET', path, { token: server.adminToken });

  before(async () => {
    repl = await startReplication();
    server = await startTestServer({
      audit_url: repl.url(),
      audit_read_url: `postgres://postgres@${repl.standby.hostPort}/postgres`,
      metrics_enabled: true,
    });
  });
  after(async () => {
    await server?.stop();
    await repl?.close();
  });

  test('an event written through the API is on the replica within 1 s (read-after-write lag p50/p99)', async () => {
    const lags: number[] = [];
    for (let i = 0; i < 40; i++) {
      const created = await api(server.url, 'POST', '/v1/users', {
        token: server.adminToken,
        body: { name: `lag-${i}` },
      });
      assert.equal(created.status, 201);
      const t0 = performance.now();
      for (;;) {
        const r = await get(`/v1/events?target=${created.json.id}&per_page=1`);
        assert.equal(r.status, 200);
        assert.match(r.headers.get('gatehouse-replica-lag') ?? '', /^\d+\.\d{3}$/, 'the replica answered');
        if (r.json.events.length === 1) break;
        assert.ok(performance.now() - t0 < 1000, `user.created for ${created.json.id} not on the replica after 1 s`);
      }
      lags.push(performance.now() - t0);
    }
    const p50 = percentile(lags, 50);
    const p99 = percentile(lags, 99);
    console.log(`# read-after-write on the replica: p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms (40 writes)`);
    assert.ok(p99 < 1000);
  });

  test('consistency=strong reads the primary; the replica serves the other reads, access and sessions lists too', async () => {
    const strong = await get('/v1/events?per_page=1&consistency=strong');
    assert.equal(strong.status, 200);
    assert.equal(strong.headers.get('gatehouse-replica-lag'), null);
    for (const path of [
      '/v1/audit/access?per_page=1',
      '/v1/audit/sessions?per_page=1',
      '/v1/audit/events?per_page=1',
    ]) {
      const r = await get(path);
      assert.equal(r.status, 200, path);
      assert.ok(r.headers.get('gatehouse-replica-lag'), path);
    }
    assert.equal((await get('/v1/events?consistency=maybe')).status, 400);
  });

  test('the NDJSON export streams from the replica with its lag', async () => {
    const r = await get('/v1/events?format=ndjson&type=user.created');
    assert.equal(r.status, 200);
    assert.ok(r.headers.get('gatehouse-replica-lag'));
    const lines = r.text.trim().split('\n');
    assert.ok(lines.length >= 40);
    assert.equal(JSON.parse(lines[0] as string).type, 'user.created');
  });

  test('/readyz and /metrics name the primary, the replica and its lag, and the time since the last commit', async () => {
    const ready = await api(server.url, 'GET', '/readyz');
    assert.equal(ready.status, 200);
    assert.match(
      ready.json.checks.audit,
      new RegExp(
        `^ok; primary ${repl.primary.hostPort}; replica ${repl.standby.hostPort}, lag \\d+\\.\\d{3} s; last commit \\d+\\.\\d s ago`,
      ),
    );
    const text = await (await fetch(`${server.metricsUrl}/metrics`)).text();
    assert.match(text, new RegExp(`gatehouse_audit_primary\\{host="${repl.primary.hostPort}"\\} 1`));
    assert.match(text, /^gatehouse_audit_replica_lag_seconds \d/m);
    assert.match(text, /^gatehouse_audit_seconds_since_last_commit \d/m);
    assert.match(text, /^gatehouse_audit_synchronous_standbys_in_sync 1$/m);
  });

  test('with the replica down, reads fall back to the primary (no lag header)', async () => {
    // Asynchronous from here on, so that the primary's commits do not wait for the stopped standby.
    await repl.primary.sql(`ALTER SYSTEM SET synchronous_standby_names = ''`);
    await repl.primary.sql('SELECT pg_reload_conf()');
    await repl.standby.stop('fast');
    const r = await get('/v1/events?per_page=1');
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('gatehouse-replica-lag'), null);
    const created = await api(server.url, 'POST', '/v1/users', { token: server.adminToken, body: { name: 'late' } });
    assert.equal(created.status, 201);
    const found = await get(`/v1/events?target=${created.json.id}`);
    assert.equal(found.json.events.length, 1);
  });
});
