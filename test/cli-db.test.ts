// `gatehouse db connect` and `gatehouse proxy db` as a person uses them: the real psql against the
// machine's real PostgreSQL through Gatehouse's PostgreSQL proxy. db connect runs psql with no secret
// in its arguments or environment (each connection gets a fresh one-time ticket inside the tunnel);
// proxy db opens 127.0.0.1:PORT where psql connects with no password at all, once per ticket. A
// database name the role does not allow is refused on psql's own FATAL line (the allowed one is the
// control), and a login that no longer works says one line: run gatehouse login.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type CliHome, childNamed, cliHome } from './helpers/cli.js';
import { createDbRole, registerPostgres } from './helpers/db-resource.js';
import { startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';
import { requirePostgres, run } from './helpers/psql.js';
import { until } from './helpers/until.js';

/** Every process's command line and environment that holds `needle` (this user's processes only). */
function processesHolding(needle: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    for (const part of ['cmdline', 'environ']) {
      try {
        const text = readFileSync(join('/proc', pid, part), 'latin1');
        if (text.includes(needle)) found.push(`${pid}/${part}: ${text.replaceAll('\0', ' ').slice(0, 200)}`);
      } catch {
        // gone, or not ours
      }
    }
  }
  return found;
}

if (requirePostgres('gatehouse db')) {
  describe('gatehouse db connect and proxy db, with the real psql', () => {
    let server: TestServer;
    let h: CliHome;

    before(async () => {
      server = await startTestServer();
      h = cliHome();
      await registerPostgres(server, { name: 'cli-pg', labels: { env: 'dev' } });
      await createDbRole(server, 'cli-db', {
        labels: { env: 'dev' },
        rules: [{ resources: ['sessions'], verbs: ['create'] }],
      });
      const { apiKey } = await userWithRoles(server, 'cli-dbuser', ['cli-db']);
      const login = await h.run(['login', '--proxy', server.webUrl], { env: { GATEHOUSE_API_KEY: apiKey } });
      assert.equal(login.code, 0, login.stderr);
    });
    after(async () => {
      h?.remove();
      await server?.stop();
    });

    test('db ls names the database and what the role allows (--format json parses)', async () => {
      const ls = await h.run(['db', 'ls', '--format', 'json']);
      assert.equal(ls.code, 0, ls.stderr);
      const dbs = JSON.parse(ls.stdout) as Array<{ name: string; db_users: string[]; db_names: string[] }>;
      assert.deepEqual(
        dbs.map((d) => [d.name, d.db_users, d.db_names]),
        [['cli-pg', ['postgres'], ['test']]],
      );
    });

    test('db connect runs psql through the proxy; no ticket in any process line or environment', async () => {
      const tickets: string[] = [];
      const watch = setInterval(() => tickets.push(...processesHolding('ghs_')), 50);
      // The only user and name the role allows are the defaults; the query runs as postgres on test.
      const ok = await h.run([
        'db',
        'connect',
        'cli-pg',
        '--',
        '-At',
        '-c',
        "select 'hello-' || current_user || '-' || current_database(), pg_sleep(0.5)",
      ]);
      clearInterval(watch);
      assert.equal(ok.code, 0, ok.stderr);
      assert.match(ok.stdout, /^hello-postgres-test\|/m);
      assert.deepEqual(tickets, []);
      // psql's exit status comes back.
      const failed = await h.run(['db', 'connect', 'cli-pg', '--db-user', 'postgres', '--', '-c', 'select nope']);
      assert.equal(failed.code, 1);
      assert.match(failed.stderr, /column "nope" does not exist/);
    });

    test('psql killed by a signal: gatehouse exits 128 + the signal (SIGKILL: 137)', async () => {
      const child = h.spawn(['db', 'connect', 'cli-pg', '--', '-c', 'select pg_sleep(20)']);
      let stderr = '';
      child.stderr?.on('data', (d) => {
        stderr += d;
      });
      const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
      process.kill(await childNamed(child.pid as number, 'psql'), 'SIGKILL');
      assert.equal(await closed, 137, stderr);
    });

    test('a database name the role does not allow is refused on one line (the allowed one passed above)', async () => {
      const refused = await h.run(['db', 'connect', 'cli-pg', '--db-name', 'postgres', '--', '-c', 'select 1']);
      assert.equal(refused.code, 2, refused.stderr);
      assert.match(refused.stderr, /FATAL: +gatehouse: forbidden: .*postgres.*\(request [^)]+\)/);
      assert.doesNotMatch(refused.stderr, /\n\s+at /);
      const unknown = await h.run(['db', 'connect', 'nowhere', '--', '-c', 'select 1']);
      assert.equal(unknown.code, 1);
      assert.equal(unknown.stderr, 'gatehouse: no database named nowhere that you may reach (gatehouse db ls)\n');
    });

    test('proxy db: psql with no password, one fresh ticket per connection, until the tunnel stops', async () => {
      const tunnel = h.spawn(['proxy', 'db', 'cli-pg', '--port', '0', '--db-user', 'postgres', '--format', 'json']);
      let out = '';
      tunnel.stdout?.on('data', (d) => {
        out += d;
      });
      try {
        const port = await until('the tunnel prints its port', async () => /"port": (\d+)/.exec(out)?.[1]);
        const psqlEnv = { PATH: process.env.PATH ?? '', PGCONNECT_TIMEOUT: '5' };
        for (const n of [1, 2]) {
          const r = await run(
            'psql',
            [`host=127.0.0.1 port=${port} user=postgres dbname=test`, '-At', '-c', `select ${n} + 40`],
            { env: psqlEnv },
          );
          assert.equal(r.code, 0, r.stderr);
          assert.equal(r.stdout.trim(), String(n + 40));
        }
        // Two connections, two sessions: each had its own ticket (a ticket opens one connection only).
        await until('two db.session.start events of cli-dbuser', async () => {
          const r = await fetch(`${server.url}/v1/events?type=db.session.start&per_page=100`, {
            headers: { authorization: `Bearer ${server.adminToken}` },
          });
          const events = (await r.json()).events as Array<{ actor: { name?: string } }>;
          const mine = events.filter((e) => e.actor.name === 'cli-dbuser');
          return mine.length >= 2 ? mine : undefined;
        });
      } finally {
        tunnel.kill('SIGTERM');
      }
      const code = await new Promise((resolve) => tunnel.on('close', resolve));
      assert.equal(code, 0);
    });

    test('a login that no longer works: one line, run gatehouse login', async () => {
      const file = join(h.env.GATEHOUSE_HOME as string, 'default.json');
      const profile = JSON.parse(readFileSync(file, 'utf8'));
      profile.tokens = { ...profile.tokens, access_token: 'gha_revoked', refresh_token: 'ghr_revoked' };
      writeFileSync(file, JSON.stringify(profile));
      for (const args of [
        ['db', 'ls'],
        ['db', 'connect', 'cli-pg'],
        ['proxy', 'db', 'cli-pg', '--port', '0'],
      ]) {
        const r = await h.run(args);
        assert.equal(r.code, 1, `${args.join(' ')}: ${r.stderr}`);
        assert.equal(r.stderr, 'gatehouse: your login has expired or was ended: run gatehouse login\n');
      }
    });
  });
}
