// The PostgreSQL proxy end to end with real parts: the machine's PostgreSQL (127.0.0.1:5432, db
// `test`) as the target, the real psql and node-postgres as clients through Gatehouse. Checks what a
// user sees (rows, psql's messages and exit codes), the session rows and the audit events.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import pino from 'pino';
import { createDbRole, registerPostgres } from './helpers/db-resource.js';
import { api, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';
import { directPsql, psql, requirePostgres, run, through } from './helpers/psql.js';
import { until } from './helpers/until.js';

interface Event {
  type: string;
  actor: { kind: string; name?: string; id?: string };
  target?: { kind: string; id: string; name?: string };
  session_id?: string;
  success: boolean;
  remote_addr?: string;
  data: Record<string, unknown>;
}

if (requirePostgres('PostgreSQL proxy')) {
  describe('PostgreSQL proxy with the real psql and node-postgres', () => {
    let gh: TestServer;
    let port: number;
    let alice: { id: string; token: string };
    let dbId: string;
    const log: string[] = [];
    const logger = pino(
      { level: 'trace' },
      new Writable({
        write(chunk, _enc, cb) {
          log.push(String(chunk));
          cb();
        },
      }),
    );
    const admin = (method: string, path: string, body?: unknown) =>
      api(gh.url, method, path, { token: gh.adminToken, ...(body === undefined ? {} : { body }) });
    const events = async (query: string) =>
      (await admin('GET', `/v1/events?per_page=100&${query}`)).json.events as Event[];
    const alicePsql = (dbName: string, args: string[], input?: string, dbUser = 'postgres') =>
      psql(through(port, dbUser, 'pg', dbName), alice.token, args, input);

    before(async () => {
      gh = await startTestServer({}, { logger });
      port = gh.gatehouse.dbAddr?.port as number;
      dbId = await registerPostgres(gh, { labels: { env: 'dev' } });
      await registerPostgres(gh, { name: 'pg-prod', labels: { env: 'prod' } });
      await createDbRole(gh, 'db-dev', {
        labels: { env: 'dev' },
        dbUsers: ['{{traits.db_users}}'],
        dbNames: ['test', 'tes?x'],
        rules: [{ resources: ['sessions'], verbs: ['list', 'read', 'create'] }],
        deny: { db_users: ['nobody'] },
      });
      alice = await userWithRoles(gh, 'alice', ['db-dev'], { db_users: ['postgres', 'nobody'] });
      const setup = await directPsql([
        '-c',
        'drop table if exists gh_proxy_t; create table gh_proxy_t (id int primary key, v text)',
      ]);
      assert.equal(setup.code, 0, setup.stderr);
    });
    after(async () => {
      await gh?.stop();
    });

    test('psql -c runs through the proxy; the session and every statement are audited field by field', async () => {
      const r = await alicePsql('test', ['-tA', '-c', "select 40 + 2 as answer, current_user, 'marker-q1'"]);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout.trim(), '42|postgres|marker-q1');
      const start = await until(
        'db.session.start',
        async () => (await events(`type=db.session.start&actor=${alice.id}`))[0],
      );
      assert.equal(start.target?.id, dbId);
      assert.equal(start.actor.name, 'alice');
      assert.equal(start.remote_addr, '127.0.0.1');
      assert.deepEqual(start.data, { db_user: 'postgres', db_name: 'test', tls: false, protocol: 'postgres' });
      const sid = start.session_id as string;
      const end = await until('db.session.end', async () => (await events(`type=db.session.end&session_id=${sid}`))[0]);
      const queries = await events(`type=db.query&session_id=${sid}`);
      assert.equal(queries.length, 1);
      const q = queries[0] as Event;
      assert.equal(q.success, true);
      assert.equal(q.data.text, "select 40 + 2 as answer, current_user, 'marker-q1'");
      assert.equal(q.data.rows, 1);
      assert.deepEqual(q.data.tags, ['SELECT 1']);
      assert.equal(q.data.protocol, 'simple');
      assert.equal(typeof q.data.duration_ms, 'number');
      assert.equal(end.data.statements, 1);
      assert.equal(end.data.status, 'ended');
      assert.ok((end.data.bytes_in as number) > 0 && (end.data.bytes_out as number) > 0, JSON.stringify(end.data));
      const session = await admin('GET', `/v1/sessions/${sid}`);
      assert.equal(session.status, 200, session.text);
      assert.equal(session.json.kind, 'db');
      assert.equal(session.json.login, 'postgres');
      assert.equal(session.json.db_name, 'test');
      assert.equal(session.json.resource.kind, 'database');
      assert.equal(session.json.status, 'ended');
      const listed = await admin('GET', '/v1/audit/sessions?per_page=100');
      assert.ok(
        listed.json.sessions.some((s: { session_id: string; kind: string }) => s.session_id === sid && s.kind === 'db'),
      );
      // Query text is audit data: never in the process log, even at trace level.
      assert.ok(log.length > 0);
      assert.ok(!log.join('').includes('marker-q1'), 'query text reached the process log');
    });

    test('a database name, a database user or a database outside the roles is refused, each with a positive control', async () => {
      const cases: Array<[string, string, string, RegExp]> = [
        ['pg', 'postgres', 'postgres', /database name postgres is not allowed on pg \(allowed: tes\?x, test\)/],
        ['pg', 'nobody', 'test', /database user nobody is not allowed on pg/],
        ['pg-prod', 'postgres', 'test', /no database named pg-prod that alice may reach/],
      ];
      for (const [database, dbUser, dbName, message] of cases) {
        const r = await psql(through(port, dbUser, database, dbName), alice.token, ['-c', 'select 1']);
        assert.equal(r.code, 2, `${database}/${dbUser}/${dbName}: ${r.stdout}`);
        assert.match(r.stderr, /FATAL: {2}gatehouse: access denied: /);
        assert.match(r.stderr, message);
      }
      const rejected = await events(`type=session.rejected&actor=${alice.id}`);
      assert.ok(rejected.length >= 3);
      const byName = rejected.find((e) => e.data.db_name === 'postgres');
      assert.equal(byName?.success, false);
      assert.equal(byName?.target?.id, dbId);
      assert.equal(byName?.data.db_user, 'postgres');
      // The hidden database is not named as a target: it does not exist for alice.
      assert.equal(rejected.find((e) => e.data.database === 'pg-prod')?.target, undefined);
      // Positive control: the same user, allowed name and user.
      const ok = await alicePsql('test', ['-tAc', 'select 1']);
      assert.equal(ok.code, 0, ok.stderr);
      assert.equal(ok.stdout.trim(), '1');
    });

    test('a wrong password, a missing dbname and a malformed user name get one-line errors, never a crash', async () => {
      const bad = await psql(through(port, 'postgres', 'pg', 'test'), 'gha_not-a-token', ['-c', 'select 1']);
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /gatehouse: the password is not a valid Gatehouse access token or ticket/);
      const noAt = await run(
        'psql',
        ['-X', `host=127.0.0.1 port=${port} user=postgres dbname=test sslmode=disable`, '-c', 'select 1'],
        {
          env: { PGPASSWORD: alice.token },
        },
      );
      assert.match(noAt.stderr, /connect as user=<db_user>@<database>/);
      const noDb = await run(
        'psql',
        ['-X', `host=127.0.0.1 port=${port} user=postgres@pg sslmode=disable`, '-c', 'select 1'],
        {
          env: { PGPASSWORD: alice.token },
        },
      );
      assert.match(noDb.stderr, /name the database to open: dbname=<name>/);
      const failed = await events('type=session.rejected&success=false');
      assert.ok(failed.some((e) => e.actor.kind === 'anonymous' && String(e.data.reason).includes('not a valid')));
      // The proxy still serves.
      const ok = await alicePsql('test', ['-tAc', 'select 2']);
      assert.equal(ok.stdout.trim(), '2', ok.stderr);
    });

    test('errors mid-transaction, multi-statement queries and COPY both ways are audited with their outcome', async () => {
      const script = [
        'begin;',
        'insert into gh_proxy_t values (1, $$a$$), (2, $$b$$);',
        'select 1/0;',
        'rollback;',
        '\\copy gh_proxy_t from stdin',
        '10\tten',
        '11\televen',
        '12\ttwelve',
        '\\.',
        '\\copy gh_proxy_t to stdout',
      ].join('\n');
      const r = await psql(
        through(port, 'postgres', 'pg', 'test'),
        alice.token,
        ['-v', 'ON_ERROR_STOP=0', '-q'],
        script,
      );
      assert.match(r.stderr, /division by zero/);
      assert.match(r.stdout, /10\tten\n11\televen\n12\ttwelve/);
      const start = await until('session start', async () =>
        (await events(`type=db.session.start&actor=${alice.id}`)).find(() => true),
      );
      const sid = start.session_id as string;
      await until('session end', async () => (await events(`type=db.session.end&session_id=${sid}`))[0]);
      const q = (await events(`type=db.query&session_id=${sid}`)).reverse();
      const byText = (t: string) => q.find((e) => String(e.data.text).includes(t)) as Event;
      assert.deepEqual(byText('insert into').data.tags, ['INSERT 0 2']);
      assert.equal(byText('insert into').data.rows, 2);
      const div = byText('select 1/0');
      assert.equal(div.success, false);
      assert.deepEqual(div.data.error, { code: '22012', message: 'division by zero' });
      assert.equal(byText('FROM STDIN').data.rows, 3);
      assert.deepEqual(byText('TO STDOUT').data.tags, ['COPY 3']);
      // psql -c sends its text as one Query message: one event, a tag per statement.
      const m = await alicePsql('test', [
        '-c',
        'update gh_proxy_t set v = upper(v) where id > 10; delete from gh_proxy_t where id = 12',
      ]);
      assert.equal(m.code, 0, m.stderr);
      const multi = await until('the multi-statement event', async () =>
        (await events(`type=db.query&actor=${alice.id}`)).find((e) =>
          String(e.data.text).startsWith('update gh_proxy_t'),
        ),
      );
      assert.deepEqual(multi.data.tags, ['UPDATE 2', 'DELETE 1']);
      assert.equal(multi.data.rows, 3);
    });

    test('pgbench -i, then -S and the TPC-B mix in simple, extended and prepared modes, through the proxy', async () => {
      const conn = ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres@pg', 'test'];
      const env = { PGPASSWORD: alice.token };
      const init = await run('pgbench', ['-i', '-q', '-s', '1', ...conn], { env, timeoutMs: 120_000 });
      assert.equal(init.code, 0, init.stderr);
      for (const mode of ['simple', 'extended', 'prepared']) {
        for (const script of [['-S'], []]) {
          const r = await run('pgbench', [...script, '-M', mode, '-c', '2', '-t', '25', '-n', ...conn], { env });
          assert.equal(r.code, 0, `${mode} ${script}: ${r.stderr}`);
          assert.match(r.stdout, /number of transactions actually processed: 50\/50/);
        }
      }
      // One TPC-B transaction is 7 statements; each is an event with its row count.
      const updates = await until('pgbench events', async () => {
        const e = (await events(`type=db.query&actor=${alice.id}`)).filter((x) =>
          String(x.data.text).startsWith('UPDATE pgbench_accounts'),
        );
        return e.length > 0 ? e : undefined;
      });
      assert.ok(updates.every((e) => e.data.rows === 1 && e.success));
    });

    test('node-postgres with named prepared statements (extended protocol) runs and is audited per execution', async () => {
      const client = new pg.Client({
        host: '127.0.0.1',
        port,
        user: 'postgres@pg',
        database: 'test',
        password: alice.token,
      });
      await client.connect();
      try {
        for (const id of [21, 22, 23]) {
          await client.query({ name: 'ins', text: 'insert into gh_proxy_t values ($1, $2)', values: [id, `v${id}`] });
        }
        const res = await client.query({
          name: 'sel',
          text: 'select v from gh_proxy_t where id >= $1 order by id',
          values: [21],
        });
        assert.deepEqual(
          res.rows.map((r) => r.v),
          ['v21', 'v22', 'v23'],
        );
        await assert.rejects(client.query('select * from no_such_table_here'), /does not exist/);
        const after = await client.query('select 5 as five');
        assert.equal(after.rows[0].five, 5);
      } finally {
        await client.end();
      }
      const start = await until(
        'session start',
        async () => (await events(`type=db.session.start&actor=${alice.id}`))[0],
      );
      const sid = start.session_id as string;
      await until('session end', async () => (await events(`type=db.session.end&session_id=${sid}`))[0]);
      const q = (await events(`type=db.query&session_id=${sid}`)).reverse();
      const inserts = q.filter((e) => e.data.text === 'insert into gh_proxy_t values ($1, $2)');
      assert.equal(inserts.length, 3);
      for (const e of inserts) {
        assert.equal(e.data.protocol, 'extended');
        assert.equal(e.data.statement, 'ins');
        assert.equal(e.data.rows, 1);
        // Bind parameters carry data: not recorded unless a role asks.
        assert.ok(!JSON.stringify(e.data).includes('v21'));
      }
      assert.equal(q.find((e) => String(e.data.text).startsWith('select v from'))?.data.rows, 3);
      const missing = q.find((e) => String(e.data.text).includes('no_such_table_here')) as Event;
      assert.equal(missing.success, false);
      assert.equal((missing.data.error as { code: string }).code, '42P01');
      assert.equal(q.at(-1)?.data.text, 'select 5 as five');
    });
  });
}
