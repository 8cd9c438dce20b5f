// Read-only database sessions (role option db_read_only) against the real PostgreSQL through psql:
// what parsing SQL cannot catch (nested comments, a DO block building its SET from strings, a
// function call the patterns do not know) must still write nothing, because the session runs as the
// database's read-only login, which has no write privilege. Each attack goes in one Query message
// (psql -c), where the server reports a changed setting only at ReadyForQuery, after every
// statement in it has run. A database without a read-only login refuses such sessions.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createDbRole, ensureReadOnlyLogin, registerPostgres } from './helpers/db-resource.js';
import { api, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';
import { adminSql } from './helpers/postgres.js';
import { directPsql, psql, requirePostgres, through } from './helpers/psql.js';
import { until } from './helpers/until.js';

const TABLE = 'gh_ro_attack_t';
const DENIED = new RegExp(`ERROR: {2}permission denied for table ${TABLE}`);

if (requirePostgres('PostgreSQL proxy read-only sessions')) {
  describe('PostgreSQL proxy: db_read_only sessions cannot write, whatever the SQL', () => {
    let gh: TestServer;
    let port: number;
    let login: string;
    let reader: { id: string; token: string };
    let writer: { token: string };
    const rows = async () =>
      (await adminSql<{ id: number }>(`select id from ${TABLE} order by id`)).rows.map((r) => r.id);
    /** The ids among `ids` that made it into the table (each attack inserts its own). */
    const written = async (...ids: number[]) => (await rows()).filter((id) => ids.includes(id));

    before(async () => {
      login = await ensureReadOnlyLogin();
      const setup = await directPsql(['-c', `drop table if exists ${TABLE}; create table ${TABLE} (id int)`]);
      assert.equal(setup.code, 0, setup.stderr);
      gh = await startTestServer();
      port = gh.gatehouse.dbAddr?.port as number;
      await registerPostgres(gh, { labels: { env: 'ro' }, readOnlyLogin: login });
      await registerPostgres(gh, { name: 'pg-no-ro-login', labels: { env: 'ro' } });
      await createDbRole(gh, 'db-ro', { labels: { env: 'ro' }, options: { db_read_only: true } });
      await createDbRole(gh, 'db-rw', { labels: { env: 'ro' } });
      reader = await userWithRoles(gh, 'rowan', ['db-ro']);
      writer = await userWithRoles(gh, 'wendy', ['db-rw']);
    });
    after(async () => {
      await gh?.stop();
      await directPsql(['-c', `drop table if exists ${TABLE}`]);
    });

    const attack = (sql: string) =>
      psql(through(port, 'postgres', 'pg', 'test'), reader.token, ['-v', 'ON_ERROR_STOP=0', '-c', sql]);

    test('BEGIN READ /* /* */ */ WRITE (a nested comment) then INSERT: nothing is written', async () => {
      const r = await attack(`BEGIN READ /* /* */ */ WRITE; INSERT INTO ${TABLE} VALUES (1); COMMIT`);
      assert.deepEqual(await written(1), []);
      assert.notEqual(r.code, 0, r.stdout);
      assert.match(r.stderr, DENIED);
    });

    test('a DO block that EXECUTEs SET default_transaction_read_only = off, COMMIT, INSERT: nothing is written', async () => {
      const r = await attack(
        `DO $$ BEGIN EXECUTE 'SET default_transact' || 'ion_read_only = off'; END $$; COMMIT; INSERT INTO ${TABLE} VALUES (2)`,
      );
      assert.deepEqual(await written(2), []);
      assert.notEqual(r.code, 0, r.stdout);
      assert.match(r.stderr, DENIED);
    });

    test('set_config() called under a quoted name, COMMIT, INSERT: nothing is written', async () => {
      const r = await attack(
        `select "set_config"('default_transact' || 'ion_read_only', 'off', false); commit; insert into ${TABLE} values (3)`,
      );
      assert.deepEqual(await written(3), []);
      assert.notEqual(r.code, 0, r.stdout);
      assert.match(r.stderr, DENIED);
      // The plain spelling of the same call, which the statement check refuses early, with its reason.
      const plain = await attack(
        `select set_config('default_transaction_read_only','off',false); commit; insert into ${TABLE} values (4)`,
      );
      assert.deepEqual(await written(4), []);
      assert.match(plain.stderr, /gatehouse: this session is read-only \(role option db_read_only\)/);
    });

    test('positive controls: a read-only session reads, as the read-only login; a session without the option writes', async () => {
      await adminSql(`delete from ${TABLE}; insert into ${TABLE} values (10)`);
      const read = await psql(through(port, 'postgres', 'pg', 'test'), reader.token, [
        '-tAc',
        `select current_user, count(*) from ${TABLE} group by 1`,
      ]);
      assert.equal(read.code, 0, read.stderr);
      assert.equal(read.stdout.trim(), `${login}|1`);
      const write = await psql(through(port, 'postgres', 'pg', 'test'), writer.token, [
        '-tAc',
        `insert into ${TABLE} values (11) returning current_user`,
      ]);
      assert.equal(write.code, 0, write.stderr);
      assert.equal(write.stdout.trim().split('\n')[0], 'postgres');
      assert.deepEqual(await rows(), [10, 11]);
      // The session record says who it logged in as, beside the user asked for.
      const start = await until('db.session.start of the read-only session', async () =>
        (
          (await api(gh.url, 'GET', `/v1/events?type=db.session.start&actor=${reader.id}`, { token: gh.adminToken }))
            .json.events as Array<{ data: Record<string, unknown> }>
        ).find((e) => e.data.upstream_user === login),
      );
      assert.ok(start);
    });

    test('a database with no read-only login registered refuses read-only sessions (deny by default)', async () => {
      const r = await psql(through(port, 'postgres', 'pg-no-ro-login', 'test'), reader.token, [
        '-c',
        `insert into ${TABLE} values (20)`,
      ]);
      assert.equal(r.code, 2);
      assert.match(
        r.stderr,
        /FATAL: {2}gatehouse: pg-no-ro-login has no read-only login registered \(db\.read_only_login\), and this session is read-only \(role option db_read_only\)/,
      );
      assert.deepEqual(await written(20), []);
      const rejected = await until('session.rejected', async () =>
        (
          (await api(gh.url, 'GET', `/v1/events?type=session.rejected&actor=${reader.id}`, { token: gh.adminToken }))
            .json.events as Array<{ data: Record<string, unknown> }>
        ).find((e) => e.data.reason === 'no_read_only_login'),
      );
      assert.equal(rejected.data.database, 'pg-no-ro-login');
      // Positive control: the same database serves a session without the option.
      const w = await psql(through(port, 'postgres', 'pg-no-ro-login', 'test'), writer.token, ['-tAc', 'select 5']);
      assert.equal(w.stdout.trim(), '5', w.stderr);
    });
  });
}
