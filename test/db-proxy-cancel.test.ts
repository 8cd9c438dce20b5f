// Ctrl-C and termination through the PostgreSQL proxy, with the real psql: a CancelRequest arrives on
// a connection of its own with the proxy's BackendKeyData and must reach the right upstream backend;
// DELETE /v1/sessions/{id} ends a session (and the statement it runs) at once.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { createDbRole, registerPostgres } from './helpers/db-resource.js';
import { api, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';
import { directPsql, requirePostgres, sendCancelRequest, through } from './helpers/psql.js';
import { until } from './helpers/until.js';

interface Event {
  type: string;
  session_id?: string;
  success: boolean;
  data: Record<string, unknown>;
}

/** psql running a statement in the background: its exit and what it printed. */
function startPsql(conninfo: string, password: string, sql: string) {
  const child = spawn('psql', ['-X', conninfo, '-c', sql], {
    env: { PATH: process.env.PATH ?? '', PGPASSWORD: password },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  const exited = new Promise<{ code: number | null; stderr: string; at: number }>((resolve) =>
    child.on('close', (code) => resolve({ code, stderr, at: Date.now() })),
  );
  return { child, exited };
}

/** Backends of the machine's PostgreSQL running a statement with this marker. */
async function running(marker: string): Promise<number> {
  const r = await directPsql([
    '-tAc',
    `select count(*) from pg_stat_activity where query like '%${marker}%' and pid <> pg_backend_pid() and state = 'active'`,
  ]);
  return Number(r.stdout.trim());
}

if (requirePostgres('PostgreSQL proxy cancel')) {
  describe('PostgreSQL proxy: cancel requests and termination', () => {
    let gh: TestServer;
    let port: number;
    let alice: { id: string; token: string };
    const admin = (method: string, path: string) => api(gh.url, method, path, { token: gh.adminToken });
    const events = async (query: string) =>
      (await admin('GET', `/v1/events?per_page=100&${query}`)).json.events as Event[];

    before(async () => {
      gh = await startTestServer();
      port = gh.gatehouse.dbAddr?.port as number;
      await registerPostgres(gh);
      await createDbRole(gh, 'db-all');
      alice = await userWithRoles(gh, 'alice', ['db-all']);
    });
    after(async () => {
      await gh?.stop();
    });

    test('Ctrl-C in psql cancels pg_sleep(30) through the proxy; the statement is audited as cancelled', async () => {
      const psql = startPsql(
        through(port, 'postgres', 'pg', 'test'),
        alice.token,
        "select pg_sleep(30), 'cancel-me-1'",
      );
      await until('the statement to run upstream', async () =>
        (await running('cancel-me-1')) === 1 ? true : undefined,
      );
      const sentAt = Date.now();
      psql.child.kill('SIGINT'); // what Ctrl-C does: psql sends a CancelRequest with the key it was given
      const done = await psql.exited;
      assert.equal(done.code, 1, done.stderr);
      assert.match(done.stderr, /canceling statement due to user request/);
      assert.ok(done.at - sentAt < 10_000, `took ${done.at - sentAt} ms`);
      assert.equal(await running('cancel-me-1'), 0);
      const q = await until('the db.query event', async () =>
        (await events('type=db.query')).find((e) => String(e.data.text).includes('cancel-me-1')),
      );
      assert.equal(q.success, false);
      assert.equal((q.data.error as { code: string }).code, '57014');
    });

    test('a cancel request with a wrong key cancels nothing (control: the statement completes)', async () => {
      const psql = startPsql(through(port, 'postgres', 'pg', 'test'), alice.token, "select pg_sleep(1), 'keep-me-2'");
      await until('the statement to run upstream', async () => ((await running('keep-me-2')) === 1 ? true : undefined));
      // A CancelRequest (16 bytes: length, 80877102, pid, secret) with a key the proxy never gave out.
      await sendCancelRequest(port, 12345, 67890);
      const done = await psql.exited;
      assert.equal(done.code, 0, done.stderr);
    });

    test('DELETE /v1/sessions/{id} ends a running session: psql is told, the upstream statement stops, the record says terminated', async () => {
      const psql = startPsql(through(port, 'postgres', 'pg', 'test'), alice.token, "select pg_sleep(30), 'kill-me-3'");
      await until('the statement to run upstream', async () => ((await running('kill-me-3')) === 1 ? true : undefined));
      const list = await admin('GET', '/v1/sessions?status=active');
      const live = list.json.sessions.filter((s: { kind: string }) => s.kind === 'db');
      assert.equal(live.length, 1, list.text);
      const id = live[0].id as string;
      const killedAt = Date.now();
      const del = await admin('DELETE', `/v1/sessions/${id}`);
      assert.equal(del.status, 200, del.text);
      const done = await psql.exited;
      assert.notEqual(done.code, 0);
      assert.match(done.stderr, /session terminated \(terminated by admin\)/);
      assert.ok(done.at - killedAt < 10_000, `took ${done.at - killedAt} ms`);
      await until('the upstream backend to stop', async () => ((await running('kill-me-3')) === 0 ? true : undefined));
      const end = await until('db.session.end', async () => (await events(`type=db.session.end&session_id=${id}`))[0]);
      assert.equal(end.data.status, 'terminated');
      assert.equal(end.data.reason, 'terminated by admin');
      const record = await admin('GET', `/v1/sessions/${id}`);
      assert.equal(record.json.status, 'terminated');
    });
  });
}
