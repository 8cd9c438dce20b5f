// Ways into the PostgreSQL proxy besides an access token, with the real psql: one-time tickets from
// POST /v1/sessions (RBAC at issue and again at connect), an agent's token and its kill switch, and
// TLS through SSLRequest (psql sslmode=require). What a user sees: psql's output and messages.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { createDbRole, ensureReadOnlyLogin, registerPostgres } from './helpers/db-resource.js';
import { api, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';
import { directPsql, psql, requirePostgres, through } from './helpers/psql.js';
import { until } from './helpers/until.js';

interface Event {
  type: string;
  actor: { kind: string; id?: string; name?: string };
  target?: { kind: string; id: string; name?: string };
  session_id?: string;
  success: boolean;
  data: Record<string, unknown>;
}

if (requirePostgres('PostgreSQL proxy access')) {
  describe('PostgreSQL proxy: tickets and the agent kill switch', () => {
    let gh: TestServer;
    let port: number;
    let alice: { id: string; token: string };
    let dbId: string;
    const admin = (method: string, path: string, body?: unknown) =>
      api(gh.url, method, path, { token: gh.adminToken, ...(body === undefined ? {} : { body }) });
    const as = (token: string, method: string, path: string, body?: unknown) =>
      api(gh.url, method, path, { token, ...(body === undefined ? {} : { body }) });
    const events = async (query: string) =>
      (await admin('GET', `/v1/events?per_page=100&${query}`)).json.events as Event[];
    const ticketFor = (token: string, body: Record<string, string>) => as(token, 'POST', '/v1/sessions', body);

    before(async () => {
      gh = await startTestServer();
      port = gh.gatehouse.dbAddr?.port as number;
      dbId = await registerPostgres(gh, { labels: { env: 'dev' }, readOnlyLogin: await ensureReadOnlyLogin() });
      await registerPostgres(gh, { name: 'pg-prod', labels: { env: 'prod' } });
      for (const name of ['db-dev', 'db-dev-2']) {
        await createDbRole(gh, name, {
          labels: { env: 'dev' },
          rules: [{ resources: ['sessions'], verbs: ['list', 'read', 'create'] }],
        });
      }
      alice = await userWithRoles(gh, 'alice', ['db-dev']);
      await createDbRole(gh, 'db-ro', { labels: { env: 'dev' }, options: { db_read_only: true } });
      const setup = await directPsql(['-c', 'drop table if exists gh_ro_t; create table gh_ro_t (id int)']);
      assert.equal(setup.code, 0, setup.stderr);
    });
    after(async () => {
      await gh?.stop();
    });

    test('a ticket from POST /v1/sessions is the password once, for its database, user and name only', async () => {
      const t = await ticketFor(alice.token, { database: 'pg', db_user: 'postgres', db_name: 'test' });
      assert.equal(t.status, 201, t.text);
      assert.match(t.json.ticket, /^ghs_/);
      assert.equal(t.json.expires_in, 60);
      assert.deepEqual(t.json.database, { kind: 'database', id: dbId, name: 'pg' });
      assert.equal(t.json.db_user, 'postgres');
      assert.equal(t.json.db_name, 'test');
      assert.deepEqual(t.json.proxy, { host: '127.0.0.1', port });
      assert.equal(t.json.psql_conninfo, `host=127.0.0.1 port=${port} user=postgres@pg dbname=test`);
      assert.equal(t.json.ssh_command, undefined);

      // Positive control: the ticket connects, through the conninfo the API gave.
      const first = await psql(`${t.json.psql_conninfo} sslmode=disable`, t.json.ticket, ['-tAc', 'select 7']);
      assert.equal(first.code, 0, first.stderr);
      assert.equal(first.stdout.trim(), '7');
      const start = await until(
        'db.session.start',
        async () => (await events(`type=db.session.start&actor=${alice.id}`))[0],
      );
      assert.equal(start.actor.name, 'alice');
      assert.equal(start.target?.id, dbId);

      const again = await psql(through(port, 'postgres', 'pg', 'test'), t.json.ticket, ['-c', 'select 1']);
      assert.equal(again.code, 2);
      assert.match(again.stderr, /gatehouse: the ticket is invalid, used or expired/);

      // Another database name than the ticket's: refused (and the ticket is spent).
      const other = await ticketFor(alice.token, { database: dbId, db_user: 'postgres', db_name: 'test' });
      assert.equal(other.status, 201, other.text);
      const wrongName = await psql(through(port, 'postgres', 'pg', 'postgres'), other.json.ticket, ['-c', 'select 1']);
      assert.equal(wrongName.code, 2);
      assert.match(wrongName.stderr, /the ticket is invalid, used or expired \(tickets are for one database/);
      const issued = await events(`type=access.allowed&actor=${alice.id}`);
      assert.ok(issued.some((e) => e.data.via === 'ticket' && e.data.db_name === 'test' && e.target?.id === dbId));
    });

    test('a ticket is refused at issue outside the roles (403, 404 for a hidden database), with a positive control', async () => {
      const name = await ticketFor(alice.token, { database: 'pg', db_user: 'postgres', db_name: 'postgres' });
      assert.equal(name.status, 403, name.text);
      assert.match(name.json.detail, /database name postgres is not allowed on pg \(allowed: test\)/);
      const user = await ticketFor(alice.token, { database: 'pg', db_user: 'app', db_name: 'test' });
      assert.equal(user.status, 403, user.text);
      assert.match(user.json.detail, /database user app is not allowed on pg/);
      const hidden = await ticketFor(alice.token, { database: 'pg-prod', db_user: 'postgres', db_name: 'test' });
      assert.equal(hidden.status, 404, hidden.text);
      const mixed = await ticketFor(alice.token, { database: 'pg', db_user: 'postgres', db_name: 'test', login: 'x' });
      assert.equal(mixed.status, 400, mixed.text);
      const partial = await ticketFor(alice.token, { database: 'pg', db_user: 'postgres' });
      assert.equal(partial.status, 400, partial.text);
      assert.equal(partial.json.errors[0].path, '/body/db_name');
      const ok = await ticketFor(alice.token, { database: 'pg', db_user: 'postgres', db_name: 'test' });
      assert.equal(ok.status, 201, ok.text);
    });

    test('a ticket is checked again at connect: rights withdrawn after issue refuse it', async () => {
      const bob = await userWithRoles(gh, 'bob', ['db-dev']);
      const kept = await ticketFor(bob.token, { database: 'pg', db_user: 'postgres', db_name: 'test' });
      const lost = await ticketFor(bob.token, { database: 'pg', db_user: 'postgres', db_name: 'test' });
      assert.equal(lost.status, 201, lost.text);
      // Positive control first: a ticket issued under the same rights connects.
      const ok = await psql(through(port, 'postgres', 'pg', 'test'), kept.json.ticket, ['-tAc', 'select 8']);
      assert.equal(ok.stdout.trim(), '8', ok.stderr);
      const patch = await admin('PATCH', `/v1/users/${bob.id}`, { roles: ['auditor'] });
      assert.equal(patch.status, 200, patch.text);
      const refused = await psql(through(port, 'postgres', 'pg', 'test'), lost.json.ticket, ['-c', 'select 1']);
      assert.equal(refused.code, 2);
      assert.match(refused.stderr, /FATAL: {2}gatehouse: access denied: no database named pg that bob may reach/);
      const rejected = await events(`type=session.rejected&actor=${bob.id}`);
      assert.equal(rejected[0]?.success, false);
    });

    test('an agent connects with its token; suspending it ends its running statement and session at once', async () => {
      const owner = await userWithRoles(gh, 'olivia', ['db-dev', 'db-dev-2']);
      const agent = await admin('POST', '/v1/agents', { name: 'report-bot', roles: ['db-dev-2'], owner: owner.id });
      assert.equal(agent.status, 201, agent.text);
      const cred = await admin('POST', `/v1/agents/${agent.json.id}/credentials`, { type: 'token' });
      assert.equal(cred.status, 201, cred.text);
      const token = cred.json.access_token as string;
      const ok = await psql(through(port, 'postgres', 'pg', 'test'), token, ['-tAc', 'select current_user']);
      assert.equal(ok.stdout.trim(), 'postgres', ok.stderr);
      const activeOf = async () =>
        (await admin('GET', `/v1/sessions?status=active&principal=${agent.json.id}`)).json.sessions as Array<{
          id: string;
          kind: string;
          bytes_in: number;
        }>;
      await until('the first session’s end', async () => ((await activeOf()).length === 0 ? true : undefined));

      const child = spawn('psql', ['-X', through(port, 'postgres', 'pg', 'test'), '-c', 'select pg_sleep(30)'], {
        env: { PATH: process.env.PATH ?? '', PGPASSWORD: token },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (d) => {
        stderr += d;
      });
      const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
      // Running: the statement has reached the proxy (and so the database).
      const live = await until('the agent’s running statement', async () =>
        (await activeOf()).find((s) => s.bytes_in > 0),
      );
      assert.equal(live.kind, 'db');
      const suspendedAt = Date.now();
      const patch = await admin('PATCH', `/v1/agents/${agent.json.id}`, { status: 'suspended' });
      assert.equal(patch.status, 200, patch.text);
      assert.deepEqual(patch.json.ended_sessions, [live.id]);
      const code = await exited;
      const took = Date.now() - suspendedAt;
      assert.ok(took < 5_000, `psql outlived the suspension by ${took} ms`);
      assert.notEqual(code, 0);
      assert.match(stderr, /FATAL: {2}gatehouse: session terminated \(agent_suspended\)/);
      const done = await until('the terminated record', async () => {
        const r = (await admin('GET', `/v1/sessions/${live.id}`)).json;
        return r.status !== 'active' ? r : undefined;
      });
      assert.equal(done.status, 'terminated');
      assert.equal(done.end_reason, 'agent_suspended');
      const refused = await psql(through(port, 'postgres', 'pg', 'test'), token, ['-c', 'select 1']);
      assert.equal(refused.code, 2);
      assert.match(refused.stderr, /gatehouse: the password is not a valid Gatehouse access token or ticket/);
    });

    test('db_read_only: PostgreSQL refuses writes, the proxy refuses what would lift it; a role without it writes', async () => {
      const rita = await userWithRoles(gh, 'rita', ['db-ro']);
      const script = [
        'select count(*) as before from gh_ro_t;',
        'insert into gh_ro_t values (1);',
        'set default_transaction_read_only = off;',
        // A name put together at run time is no name to match: set_config itself is refused.
        "select set_config('default_transaction_' || 'read_' || 'only', 'off', false);",
        'begin read write;',
        'reset all;',
        'insert into gh_ro_t values (2);',
        'show default_transaction_read_only;',
      ].join('\n');
      const r = await psql(
        through(port, 'postgres', 'pg', 'test'),
        rita.token,
        ['-v', 'ON_ERROR_STOP=0', '-tA'],
        script,
      );
      assert.equal(r.stdout.trim().split('\n').join(','), '0,RESET,on');
      const errors = r.stderr
        .trim()
        .split('\n')
        .filter((l) => l.includes('ERROR:'));
      assert.deepEqual(
        errors.map((l) => l.replace(/^psql:<stdin>:\d+: /, '')),
        [
          'ERROR:  cannot execute INSERT in a read-only transaction',
          'ERROR:  gatehouse: this session is read-only (role option db_read_only): default_transaction_read_only cannot be changed',
          'ERROR:  gatehouse: this session is read-only (role option db_read_only): set_config() is not allowed',
          'ERROR:  gatehouse: this session is read-only (role option db_read_only): READ WRITE transactions are not allowed',
          'ERROR:  cannot execute INSERT in a read-only transaction',
        ],
      );
      // node-postgres, extended protocol: the same refusal, and the session goes on.
      const client = new pg.Client({
        host: '127.0.0.1',
        port,
        user: 'postgres@pg',
        database: 'test',
        password: rita.token,
      });
      await client.connect();
      try {
        await assert.rejects(
          client.query('SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE'),
          /READ WRITE transactions are not allowed/,
        );
        await assert.rejects(client.query('insert into gh_ro_t values ($1)', [3]), /read-only transaction/);
        assert.equal((await client.query('select count(*)::int as n from gh_ro_t')).rows[0].n, 0);
      } finally {
        await client.end();
      }
      const refused = await until('the refused SET as a db.query event', async () =>
        (await events(`type=db.query&actor=${rita.id}`)).find(
          (e) => e.data.text === 'set default_transaction_read_only = off;',
        ),
      );
      assert.equal(refused.success, false);
      assert.equal((refused.data.error as { code: string }).code, '25006');
      // Positive control: a role without the option writes.
      const w = await psql(through(port, 'postgres', 'pg', 'test'), alice.token, [
        '-tAc',
        'insert into gh_ro_t values (9) returning id',
      ]);
      assert.equal(w.code, 0, w.stderr);
      assert.equal(w.stdout.trim().split('\n')[0], '9');
    });
  });
}
