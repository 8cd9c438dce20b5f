// The PostgreSQL proxy's session transcript through the recording pipeline (spool → upload →
// GET /v1/sessions/{id}/recording), with the real psql and node-postgres against the machine's
// PostgreSQL: statements and row counts are there, row values never, bind parameters only with
// db_record_parameters; the session is listed beside SSH ones; DELETE closes and uploads it; strict
// recording with a full spool refuses the session; a SIGKILL'd proxy's transcript is recovered.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { createDbRole, registerPostgres } from './helpers/db-resource.js';
import { api, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';
import { run as runGatehouse, stop } from './helpers/process.js';
import { directPsql, psql, requirePostgres, through } from './helpers/psql.js';
import { until } from './helpers/until.js';

const SECRET_ROW = 'secret-row-value-42';

interface Session {
  id: string;
  status: string;
  kind: string;
  end_reason?: string;
  recording: { status: string };
}

async function setUp(gh: TestServer, roles: Record<string, Record<string, unknown>>): Promise<void> {
  await registerPostgres(gh);
  for (const [name, options] of Object.entries(roles)) await createDbRole(gh, name, { options });
}

const connect = (port: number, password: string) =>
  new pg.Client({ host: '127.0.0.1', port, user: 'postgres@pg', database: 'test', password });

/** The session's uploaded recording (asciicast, or text), once the upload completer has stored it. */
async function recordingOf(base: string, token: string, id: string, format = ''): Promise<string> {
  return until(`the recording of ${id}`, async () => {
    const r = await api(base, 'GET', `/v1/sessions/${id}/recording${format}`, { token });
    return r.status === 200 ? r.text : undefined;
  });
}

if (requirePostgres('PostgreSQL proxy recording')) {
  describe('PostgreSQL proxy: the session transcript', () => {
    let gh: TestServer;
    let port: number;
    const admin = (method: string, path: string) => api(gh.url, method, path, { token: gh.adminToken });
    const sessionsOf = async (userId: string) =>
      (await admin('GET', `/v1/sessions?principal=${userId}&per_page=100`)).json.sessions as Session[];
    const endedSession = (userId: string) =>
      until('the ended session', async () => (await sessionsOf(userId)).find((s) => s.status !== 'active'));

    before(async () => {
      // The smallest session bound, so a strict session can be driven past it.
      gh = await startTestServer({ 'recordings.session_max_bytes': 65_536 });
      port = gh.gatehouse.dbAddr?.port as number;
      await setUp(gh, {
        'rec-plain': {},
        'rec-params': { db_record_parameters: true },
        'rec-strict': { record_session: 'strict' },
      });
      const setup = await directPsql([
        '-c',
        `drop table if exists gh_rec_t; create table gh_rec_t (id int primary key, v text);
         insert into gh_rec_t values (1, 'plain-one'), (2, '${SECRET_ROW}'), (3, 'plain-three')`,
      ]);
      assert.equal(setup.code, 0, setup.stderr);
    });
    after(async () => {
      await gh?.stop();
    });

    test('statements, columns and row counts are recorded, row values are not; listed as a db session', async () => {
      const alice = await userWithRoles(gh, 'rec-alice', ['rec-plain']);
      const r = await psql(through(port, 'postgres', 'pg', 'test'), alice.token, [
        '-tA',
        '-c',
        'select id, v from gh_rec_t order by id',
        '-c',
        'select * from gh_rec_missing',
      ]);
      assert.match(r.stdout, new RegExp(SECRET_ROW), 'control: the client did read the row');
      assert.match(r.stderr, /gh_rec_missing/);
      const session = await endedSession(alice.id);
      assert.equal(session.kind, 'db');
      const listed = await until('the audit session row with its recording uploaded', async () => {
        const page = await admin('GET', '/v1/audit/sessions?per_page=100');
        const row = page.json.sessions.find((s: { session_id: string }) => s.session_id === session.id);
        return row?.recording === 'uploaded' ? row : undefined;
      });
      assert.equal(listed.kind, 'db');
      assert.equal(listed.resource.kind, 'database');
      assert.equal(listed.resource.name, 'pg');
      assert.equal(listed.login, 'postgres');
      assert.equal(listed.principal.name, 'rec-alice');
      assert.equal(listed.status, 'ended');
      assert.equal(typeof listed.duration_seconds, 'number');

      const cast = await recordingOf(gh.url, gh.adminToken, session.id);
      const header = JSON.parse(cast.split('\n')[0] as string);
      assert.equal(header.version, 2);
      assert.equal(header.title, 'postgres@pg: test');
      assert.ok(cast.includes('=> select id, v from gh_rec_t order by id\\r\\n<- SELECT 3 (columns: id, v; 3 rows; '));
      assert.ok(!cast.includes(SECRET_ROW), 'a row value reached the recording');
      const text = await recordingOf(gh.url, gh.adminToken, session.id, '?format=text');
      assert.match(text, /^=> select id, v from gh_rec_t order by id$/m);
      assert.match(text, /^<- SELECT 3 \(columns: id, v; 3 rows; [\d.]+ ms\)$/m);
      assert.match(text, /^=> select \* from gh_rec_missing$/m);
      assert.match(text, /^<- ERROR 42P01: relation "gh_rec_missing" does not exist \([\d.]+ ms\)$/m);
      assert.ok(!text.includes(SECRET_ROW));
    });

    test('bind parameters are in the transcript only with db_record_parameters', async () => {
      const transcriptAs = async (name: string, role: string, marker: string) => {
        const who = await userWithRoles(gh, name, [role]);
        const client = connect(port, who.token);
        await client.connect();
        const r = await client.query('select v from gh_rec_t where id = $1::int and $2::text is not null', [2, marker]);
        assert.equal(r.rows[0].v, SECRET_ROW);
        await client.end();
        const session = await endedSession(who.id);
        return recordingOf(gh.url, gh.adminToken, session.id, '?format=text');
      };
      const plain = await transcriptAs('rec-bob', 'rec-plain', 'param-marker-plain');
      assert.match(plain, /^=> select v from gh_rec_t where id = \$1::int and \$2::text is not null$/m);
      assert.match(plain, /^<- SELECT 1 \(columns: v; 1 row; /m);
      assert.ok(!plain.includes('param-marker-plain'), 'bind parameters recorded without db_record_parameters');
      assert.ok(!plain.includes('parameters:'));
      const withParams = await transcriptAs('rec-carol', 'rec-params', 'param-marker-kept');
      assert.match(withParams, /^ {3}parameters: \["2","param-marker-kept"\]$/m);
      assert.ok(!withParams.includes(SECRET_ROW), 'a row value reached the recording');
    });

    test('a live session is listed as recording; DELETE ends it, and its transcript is closed and uploaded', async () => {
      const dave = await userWithRoles(gh, 'rec-dave', ['rec-plain']);
      const client = connect(port, dave.token);
      client.on('error', () => {});
      await client.connect();
      await client.query("select 'live-marker-1'");
      const live = await until('the live session', async () => (await sessionsOf(dave.id))[0]);
      assert.equal(live.status, 'active');
      assert.equal(live.recording.status, 'recording');
      // Watched live (GET …/stream): what was recorded before, then a statement run while watching.
      const res = await fetch(`${gh.url}/v1/sessions/${live.id}/stream`, {
        headers: { authorization: `Bearer ${gh.adminToken}` },
        signal: AbortSignal.timeout(15_000),
      });
      assert.equal(res.status, 200);
      const reader = (res.body as ReadableStream<Uint8Array>).getReader();
      let seen = '';
      await client.query("select 'watched-marker'");
      while (!seen.includes('watched-marker')) {
        const { value, done } = await reader.read();
        if (done) break;
        seen += Buffer.from(value).toString();
      }
      await reader.cancel();
      assert.match(seen, /live-marker-1[\s\S]*=> select 'watched-marker'/);
      const sleeping = client.query('select pg_sleep(30)').catch((e: Error) => e);
      await new Promise((r) => setTimeout(r, 300));
      const ended = await admin('DELETE', `/v1/sessions/${live.id}`);
      assert.ok(ended.status < 300, ended.text);
      const error = await sleeping;
      assert.ok(error instanceof Error, 'the running statement was not ended');
      const text = await recordingOf(gh.url, gh.adminToken, live.id, '?format=text');
      assert.match(text, /^=> select 'live-marker-1'$/m);
      assert.match(text, /^=> select 'watched-marker'$/m);
      assert.match(text, /^=> select pg_sleep\(30\)$/m);
      const session = await admin('GET', `/v1/sessions/${live.id}`);
      assert.equal(session.json.status, 'terminated');
      assert.equal(session.json.recording.status, 'uploaded');
    });

    test('record_session: strict with a full spool refuses the session; with room it runs', async () => {
      // Positive control first: the same strict role on a spool with room connects and is recorded.
      const erin = await userWithRoles(gh, 'rec-erin', ['rec-strict']);
      const ok = await psql(through(port, 'postgres', 'pg', 'test'), erin.token, ['-tAc', "select 'strict-ok'"]);
      assert.equal(ok.code, 0, ok.stderr);
      const text = await recordingOf(gh.url, gh.adminToken, (await endedSession(erin.id)).id, '?format=text');
      assert.match(text, /^=> select 'strict-ok'$/m);

      // Past recordings.session_max_bytes a strict session is ended, and says why.
      const frank = await userWithRoles(gh, 'rec-frank', ['rec-strict']);
      const client = connect(port, frank.token);
      // The FATAL comes once the batch is recorded: to a running query, or to the idle connection.
      const errors: string[] = [];
      client.on('error', (e: Error) => errors.push(e.message));
      await client.connect();
      const long = `select '${'x'.repeat(3000)}'`;
      for (let i = 0; i < 200 && errors.length === 0; i++) {
        await client.query(long).catch((e: Error) => errors.push(e.message));
      }
      await until('the FATAL', async () =>
        errors.some((m) => /session ended at the recording limit \(record_session: strict\)/.test(m))
          ? true
          : undefined,
      );
      const cut = await endedSession(frank.id);
      assert.equal(cut.status, 'terminated');
      assert.match(cut.end_reason ?? '', /recording limit/);
      const cutText = await recordingOf(gh.url, gh.adminToken, cut.id, '?format=text');
      assert.match(cutText, /session ended at the recording limit \(session_max_bytes\)/);

      // A spool at its bound: a file that is no recording fills all but a few KiB of spool_max_bytes.
      const dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-db-full-spool-'));
      mkdirSync(join(dataDir, 'spool'), { mode: 0o700 });
      writeFileSync(join(dataDir, 'spool', 'filler'), Buffer.alloc(1_048_576 - 4096));
      const full = await startTestServer({ 'recordings.spool_max_bytes': 1_048_576 }, { dataDir });
      try {
        await setUp(full, { 'rec-plain': {}, 'rec-strict': { record_session: 'strict' } });
        const fullPort = full.gatehouse.dbAddr?.port as number;
        const strict = await userWithRoles(full, 'full-strict', ['rec-strict']);
        const refused = await psql(through(fullPort, 'postgres', 'pg', 'test'), strict.token, ['-tAc', 'select 1']);
        assert.notEqual(refused.code, 0);
        assert.match(refused.stderr, /gatehouse: the session cannot be recorded \(the recording spool is full/);
        const event = await until('the session.rejected event', async () => {
          const r = await api(full.url, 'GET', `/v1/events?type=session.rejected&actor=${strict.id}`, {
            token: full.adminToken,
          });
          return r.json.events[0];
        });
        assert.equal(event.data.reason, 'recording_unavailable');
        assert.equal(event.data.protocol, 'postgres');
        assert.equal(event.target.kind, 'database');
        assert.equal(event.success, false);
        // Control on the same full spool: best_effort keeps the session (its recording is cut instead).
        const plain = await userWithRoles(full, 'full-plain', ['rec-plain']);
        const kept = await psql(through(fullPort, 'postgres', 'pg', 'test'), plain.token, ['-tAc', "select 'kept'"]);
        assert.equal(kept.code, 0, kept.stderr);
        assert.equal(kept.stdout.trim(), 'kept');
      } finally {
        await full.stop();
      }
    });
  });

  test('SIGKILL during a database session: the spooled transcript is recovered and uploaded on restart', async () => {
    const key = 'db-rec-crash-bootstrap-key-0123456789abcdef';
    const dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-db-rec-crash-'));
    const dbPort = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const { port } = s.address() as { port: number };
        s.close(() => resolve(port));
      });
    });
    const env = {
      GATEHOUSE_DATA_DIR: dataDir,
      GATEHOUSE_BOOTSTRAP_API_KEY: key,
      GATEHOUSE_DB_ADDR: `127.0.0.1:${dbPort}`,
    };
    const tokenOf = async (base: string) =>
      (await api(base, 'POST', '/v1/auth/token', { body: { api_key: key } })).json.access_token as string;
    try {
      const first = await runGatehouse(env);
      const token = await tokenOf(first.authUrl);
      await registerPostgres({ url: first.authUrl, adminToken: token });
      const client = connect(dbPort, token);
      client.on('error', () => {});
      await client.connect();
      await client.query("select 'before-the-kill'");
      // The transcript reaches the spool with the query log's next batch (≤ 5 ms), then the disk.
      await new Promise((r) => setTimeout(r, 500));
      first.child.kill('SIGKILL');
      await client.end().catch(() => {});

      const second = await runGatehouse(env);
      try {
        const t2 = await tokenOf(second.authUrl);
        const session = await until('the orphaned session ended', async () => {
          const r = await api(second.authUrl, 'GET', '/v1/sessions?per_page=100', { token: t2 });
          return (r.json.sessions as Session[]).find((s) => s.kind === 'db' && s.status === 'ended');
        });
        assert.equal(session.end_reason, 'proxy restarted');
        const text = await recordingOf(second.authUrl, t2, session.id, '?format=text');
        assert.match(text, /^=> select 'before-the-kill'$/m);
        assert.match(text, /^<- SELECT 1 \(columns: \?column\?; 1 row; /m);
        assert.match(text, /recording interrupted \(the proxy stopped before the session ended\)/);
      } finally {
        await stop(second);
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
}
