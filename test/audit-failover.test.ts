// The audit store on replicated PostgreSQL, as users meet it: a real primary and synchronous standby
// (test/helpers/pg-replication.ts), Gatehouse writing through the API with GATEHOUSE_AUDIT_URL naming
// both hosts. The primary crashes (pg_ctl stop -m immediate) under load and the standby is promoted:
// every request answered 2xx has its events on the new primary, the requests in the gap answer 503
// audit_unavailable, and Gatehouse writes again without a restart. Then the standby goes down: with
// synchronous_standby_names set, commits wait, so writes answer 503 after audit.write_timeout and
// /readyz says writes are blocked.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { openAuditStore } from '../src/audit/open.js';
import { ConfigError } from '../src/config/load.js';
import { parseAuditUrl } from '../src/lib/pg-url.js';
import { ADMIN_KEY, api, type Reply, startTestServer, type TestServer } from './helpers/gatehouse.js';
import { type PgReplication, startReplication } from './helpers/pg-replication.js';
import { until } from './helpers/until.js';

describe('multi-host audit URLs', () => {
  test('each host becomes its own connection string; schema and session attributes are taken out', () => {
    const u = parseAuditUrl(
      'postgres://gh:s3cret@db1:5433,db2,[::1]:6000/audit?target_session_attrs=read-write&schema=a1&sslmode=disable',
    );
    assert.deepEqual(
      u.hosts.map((h) => h.hostPort),
      ['db1:5433', 'db2:5432', '[::1]:6000'],
    );
    assert.equal(u.hosts[1]?.connectionString, 'postgres://gh:s3cret@db2:5432/audit?sslmode=disable');
    assert.equal(u.schema, 'a1');
    assert.equal(u.attrs, 'read-write');
    assert.equal(u.synchronousCommit, 'on');
  });

  test('commit levels that can lose an acknowledged event are refused, without echoing the URL', () => {
    for (const bad of ['off', 'local']) {
      assert.throws(
        () => parseAuditUrl(`postgres://gh:s3cret@db1/audit?synchronous_commit=${bad}`),
        (e: Error) => /synchronous_commit/.test(e.message) && !e.message.includes('s3cret'),
      );
    }
    assert.throws(() => parseAuditUrl('postgres://db1:5432,:5433/x'), /host or host:port/);
  });

  test('audit_read_url needs audit_url on PostgreSQL, and is checked at start without echoing it', async () => {
    const defaults = { sqlitePath: '/nonexistent/never.db', synchronous: 'FULL' as const };
    await assert.rejects(
      openAuditStore(undefined, { ...defaults, readUrl: 'postgres://r:s3cret@db2/audit' }),
      (e: Error) => e instanceof ConfigError && /audit_read_url/.test(e.message) && !e.message.includes('s3cret'),
    );
    await assert.rejects(
      openAuditStore('postgres://db1/audit', { ...defaults, readUrl: 'mysql://r:s3cret@db2/audit' }),
      (e: Error) =>
        e instanceof ConfigError && /audit_read_url.*postgres:\/\//.test(e.message) && !e.message.includes('s3cret'),
    );
  });
});

interface Outcome {
  kind: string;
  status: number;
  code?: string;
  requestId: string;
  started: number;
  at: number;
}

/** Writers that each loop over user creation, agent creation and token issue until stopped. */
function writeLoad(server: TestServer, workers: number) {
  const outcomes: Outcome[] = [];
  let running = true;
  let n = 0;
  const one = async (w: number): Promise<void> => {
    const i = n++;
    const started = Date.now();
    const kind = ['user', 'agent', 'token'][i % 3] as string;
    let r: Reply;
    if (kind === 'user') {
      r = await api(server.url, 'POST', '/v1/users', { token: server.adminToken, body: { name: `load-${w}-${i}` } });
    } else if (kind === 'agent') {
      r = await api(server.url, 'POST', '/v1/agents', { token: server.adminToken, body: { name: `bot-${w}-${i}` } });
    } else {
      r = await api(server.url, 'POST', '/v1/auth/token', { body: { api_key: ADMIN_KEY } });
    }
    outcomes.push({
      kind,
      status: r.status,
      code: r.json?.code,
      requestId: r.headers.get('x-request-id') as string,
      started,
      at: Date.now(),
    });
  };
  const loops = Array.from({ length: workers }, async (_, w) => {
    while (running) await one(w);
  });
  return {
    outcomes,
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}

describe('audit store failover (primary + synchronous standby)', () => {
  let repl: PgReplication;
  let server: TestServer;

  before(async () => {
    repl = await startReplication();
    server = await startTestServer({ audit_url: repl.url(), 'audit.write_timeout': '2s' });
  });
  after(async () => {
    await server?.stop();
    await repl?.close();
  });

  test('primary crashes under load, standby promoted: no acknowledged event lost, the gap is 503, writes resume', async () => {
    const ready = await api(server.url, 'GET', '/readyz');
    assert.equal(ready.status, 200);
    assert.match(
      ready.json.checks.audit,
      new RegExp(`^ok; primary ${repl.primary.hostPort}.*synchronous standbys in sync: 1`),
    );

    const load = writeLoad(server, 6);
    await until('some writes acknowledged', async () =>
      load.outcomes.filter((o) => o.status < 300).length >= 30 ? true : undefined,
    );
    // What the primary holds for the requests acknowledged so far, read by id before it goes.
    const ackedBefore = load.outcomes.filter((o) => o.status < 300).map((o) => o.requestId);
    const idsBefore = (
      await repl.primary.sql<{ id: string }>(`SELECT id FROM public.events WHERE body->>'request_id' = ANY($1)`, [
        ackedBefore,
      ])
    ).map((r) => r.id);
    assert.ok(idsBefore.length >= ackedBefore.length);

    await repl.primary.stop('immediate');
    const crashedAt = Date.now();
    // Longer than audit.write_timeout, so requests in the gap must give up.
    await new Promise((r) => setTimeout(r, 3500));
    const promoting = Date.now();
    await repl.standby.promote();
    const promotedAt = Date.now();
    await until(
      'writes acknowledged after the promotion',
      async () => (load.outcomes.filter((o) => o.at > promotedAt && o.status < 300).length >= 30 ? true : undefined),
      30_000,
    );
    await load.stop();

    const acked = load.outcomes.filter((o) => o.status >= 200 && o.status < 300);
    const refused = load.outcomes.filter((o) => o.status >= 300);
    for (const o of refused) assert.deepEqual([o.status, o.code], [503, 'audit_unavailable'], JSON.stringify(o));
    assert.ok(refused.length > 0, 'requests during the gap were refused');
    assert.ok(
      refused.every((o) => o.at > crashedAt),
      'nothing was refused before the crash',
    );
    const inGap = acked.filter((o) => o.started > crashedAt && o.at < promoting);
    assert.deepEqual(inGap, [], 'no request sent and answered while no primary existed got a 2xx');

    // Every acknowledged request's events are on the new primary; the ones read before the crash by id.
    const rows = await repl.standby.sql<{ id: string; rid: string }>(
      `SELECT id, body->>'request_id' AS rid FROM public.events WHERE body->>'request_id' = ANY($1)`,
      [acked.map((o) => o.requestId)],
    );
    const stored = new Set(rows.map((r) => r.rid));
    const lost = acked.filter((o) => !stored.has(o.requestId));
    assert.deepEqual(lost, [], 'acknowledged requests without their events on the new primary');
    const ids = new Set(rows.map((r) => r.id));
    assert.deepEqual(
      idsBefore.filter((id) => !ids.has(id)),
      [],
    );
    const byKind = (k: string) => acked.filter((o) => o.kind === k).length;
    console.log(
      `# failover: ${acked.length} acknowledged (${byKind('user')} users, ${byKind('agent')} agents, ${byKind('token')} tokens), ${refused.length} refused 503, events checked on the new primary: ${rows.length}`,
    );

    const readyAfter = await api(server.url, 'GET', '/readyz');
    assert.equal(readyAfter.status, 200);
    assert.match(readyAfter.json.checks.audit, new RegExp(`^ok; primary ${repl.standby.hostPort}`));
  });
});

describe('audit store with its synchronous standby down', () => {
  let repl: PgReplication;
  let server: TestServer;

  before(async () => {
    repl = await startReplication();
    server = await startTestServer({ audit_url: repl.url(), 'audit.write_timeout': '1500ms' });
  });
  after(async () => {
    await server?.stop();
    await repl?.close();
  });

  test('commits wait for the standby: writes answer 503 after write_timeout, /readyz says why, both recover', async () => {
    const ok = await api(server.url, 'POST', '/v1/users', { token: server.adminToken, body: { name: 'before' } });
    assert.equal(ok.status, 201);

    await repl.standby.stop('fast');
    const t0 = Date.now();
    const blocked = await api(server.url, 'POST', '/v1/users', { token: server.adminToken, body: { name: 'during' } });
    assert.equal(blocked.status, 503);
    assert.equal(blocked.json.code, 'audit_unavailable');
    assert.ok(Date.now() - t0 >= 1400, 'the request waited for write_timeout first');
    const ready = await api(server.url, 'GET', '/readyz');
    assert.equal(ready.status, 503);
    assert.match(ready.json.checks.audit, /^writes blocked: no synchronous standby is in sync/);
    // Reads do not wait for the standby.
    const read = await api(server.url, 'GET', '/v1/events?per_page=5', { token: server.adminToken });
    assert.equal(read.status, 200);
    // The timed-out commits left no server process behind waiting for the standby or for the append
    // lock (each would hold a connection until the standby returns).
    const waiting = async () =>
      (
        await repl.primary.sql<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'gatehouse-audit-primary' AND wait_event IN ('SyncRep', 'advisory')`,
        )
      )[0]?.n;
    const second = await api(server.url, 'POST', '/v1/users', { token: server.adminToken, body: { name: 'during2' } });
    assert.equal(second.status, 503);
    await until('no audit backend left waiting', async () => ((await waiting()) === 0 ? true : undefined), 5000);

    await repl.standby.start();
    await until(
      '/readyz ready again',
      async () => ((await api(server.url, 'GET', '/readyz')).status === 200 ? true : undefined),
      20_000,
    );
    const again = await api(server.url, 'POST', '/v1/users', { token: server.adminToken, body: { name: 'after' } });
    assert.equal(again.status, 201);
    const rows = await repl.primary.sql<{ n: number }>(
      `SELECT count(*)::int AS n FROM public.events WHERE body->>'request_id' = $1`,
      [again.headers.get('x-request-id')],
    );
    assert.equal(rows[0]?.n, 1);
  });
});
