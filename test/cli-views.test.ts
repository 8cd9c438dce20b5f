// The client's everyday views as a person runs them against a real Gatehouse and a real sshd:
// `resources ls` (--kind, --label, --search), `sessions ls|kill`, `events ls|tail`,
// `agents ls|get|suspend`, each in --format table, json and yaml. Each shows what the caller's roles
// let them see and not more (the admin, who sees everything, is the control); a refusal is one line
// and exit 1; colour only on a terminal and never with NO_COLOR.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { type CliHome, cliHome } from './helpers/cli.js';
import { ADMIN_KEY, requestsTo, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';
import { sshExec } from './helpers/ssh-client.js';
import { registerSshdServer, requireSshd, type Sshd, startSshd } from './helpers/sshd.js';
import { until } from './helpers/until.js';

interface Row {
  id: string;
  name: string;
  kind: string;
  status: string;
  command?: string;
  principal: { name: string };
  type: string;
  target?: { name?: string } | null;
}

if (requireSshd('the client’s views'))
  describe('gatehouse resources, sessions, events and agents', () => {
    let server: TestServer;
    let sshd: Sshd;
    const { admin } = requestsTo(() => server);
    const homes: Record<'admin' | 'alice' | 'bob' | 'reader', CliHome> = {
      admin: cliHome(),
      alice: cliHome(),
      bob: cliHome(),
      reader: cliHome(),
    };
    const tokens: Record<string, string> = {};
    /** `gatehouse <args> --format json` as `who`, parsed; exit 0 asserted. */
    const json = async (who: keyof typeof homes, args: string[]): Promise<Row[]> => {
      const r = await homes[who].run([...args, '--format', 'json']);
      assert.equal(r.code, 0, `${who}: gatehouse ${args.join(' ')}: ${r.stderr}`);
      return JSON.parse(r.stdout) as Row[];
    };
    const names = (rows: Row[]) => rows.map((r) => r.name).sort();

    before(async () => {
      server = await startTestServer();
      sshd = await startSshd();
      await registerSshdServer(admin, sshd, 'views-ssh', { env: 'dev', team: 'a' });
      for (const [kind, name, labels, extra] of [
        ['server', 'views-dev-web', { env: 'dev', team: 'b' }, { address: '10.0.0.2:22' }],
        ['database', 'views-dev-db', { env: 'dev' }, { protocol: 'postgres', address: '10.0.0.3:5432' }],
        ['server', 'views-prod-web', { env: 'prod' }, { address: '10.0.0.4:22' }],
      ] as const) {
        const r = await admin('POST', '/v1/resources', { kind, name, labels, ...extra });
        assert.equal(r.status, 201, r.text);
      }
      // Sees and reaches env=dev only; lists sessions (its own: no recordings:read) and may end them.
      const role = await admin('POST', '/v1/roles', {
        name: 'views-dev',
        allow: {
          rules: [
            { resources: ['resources'], verbs: ['list', 'read'] },
            { resources: ['sessions'], verbs: ['list', 'read', 'create', 'delete'] },
          ],
          resources: [{ kinds: ['*'], labels: { env: 'dev' } }],
          logins: [sshd.login],
        },
      });
      assert.equal(role.status, 201, role.text);
      const reader = await admin('POST', '/v1/roles', {
        name: 'views-agent-reader',
        allow: { rules: [{ resources: ['agents', 'events'], verbs: ['list', 'read'] }] },
      });
      assert.equal(reader.status, 201, reader.text);
      for (const name of ['views-bot-1', 'views-bot-2'])
        assert.equal((await admin('POST', '/v1/agents', { name, roles: ['auditor'] })).status, 201);

      const keys: Record<string, string> = { admin: ADMIN_KEY };
      for (const [who, roles] of [
        ['alice', ['views-dev']],
        ['bob', ['views-dev']],
        ['reader', ['views-agent-reader']],
      ] as const) {
        const u = await userWithRoles(server, `views-${who}`, [...roles]);
        keys[who] = u.apiKey;
        tokens[who] = u.token;
      }
      // Each run is a process of its own (seconds on a loaded machine): independent ones run together.
      await Promise.all(
        (Object.keys(homes) as Array<keyof typeof homes>).map(async (who) => {
          const login = await homes[who].run(['login', '--proxy', server.webUrl], {
            env: { GATEHOUSE_API_KEY: keys[who] as string },
          });
          assert.equal(login.code, 0, `${who}: ${login.stderr}`);
        }),
      );
    });
    after(async () => {
      for (const h of Object.values(homes)) h.remove();
      await server?.stop();
      await sshd?.stop();
    });

    test('resources ls: only what the roles select; --kind, --label and --search narrow it; admin sees all', async () => {
      const dev = ['views-dev-db', 'views-dev-web', 'views-ssh'];
      const [mine, all, databases, teamB, prodForAlice, prodForAdmin, yaml, table, badLabel] = await Promise.all([
        json('alice', ['resources', 'ls']),
        json('admin', ['resources', 'ls']),
        json('alice', ['resources', 'ls', '--kind', 'database']),
        json('alice', ['resources', 'ls', '--label', 'team=b']),
        json('alice', ['resources', 'ls', '--search', 'prod']),
        json('admin', ['resources', 'ls', '--search', 'prod']),
        homes.alice.run(['resources', 'ls', '--format', 'yaml']),
        homes.alice.run(['resources', 'ls']),
        homes.alice.run(['resources', 'ls', '--label', 'env']),
      ]);
      assert.deepEqual(names(mine), dev);
      assert.deepEqual(names(all), [...dev, 'views-prod-web'].sort(), 'the admin sees every resource (control)');
      assert.deepEqual(names(databases), ['views-dev-db']);
      assert.deepEqual(names(teamB), ['views-dev-web']);
      assert.deepEqual(names(prodForAlice), []);
      assert.deepEqual(names(prodForAdmin), ['views-prod-web']);

      assert.equal(yaml.code, 0, yaml.stderr);
      assert.deepEqual(names(parseYaml(yaml.stdout) as Row[]), dev);
      assert.equal(table.code, 0, table.stderr);
      const lines = table.stdout.trimEnd().split('\n');
      assert.match(lines[0] ?? '', /^NAME +KIND +ADDRESS +LABELS +ID$/);
      assert.equal(lines.length, 4, table.stdout);
      assert.match(table.stdout, /^views-dev-db +database +10\.0\.0\.3:5432 +env=dev +db_\S+$/m);
      assert.ok(!table.stdout.includes('views-prod-web'));
      assert.equal(badLabel.code, 2, 'a label is k=v, or bad usage');
    });

    test('colour: bold headers on a terminal, none with NO_COLOR', async () => {
      // A pseudo-terminal through script(1): the only way a child's stdout is a TTY.
      const onTerminal = (noColor: boolean) =>
        new Promise<string>((resolve) => {
          const { NO_COLOR: _, ...env } = homes.alice.env;
          const child = spawn('script', ['-qec', 'node --import tsx src/main.ts resources ls', '/dev/null'], {
            env: { ...env, ...(noColor ? { NO_COLOR: '1' } : {}), TERM: 'xterm' },
            stdio: ['ignore', 'pipe', 'pipe'],
          });
          let out = '';
          child.stdout.on('data', (d) => {
            out += d;
          });
          child.on('close', () => resolve(out));
        });
      const [colour, plain] = await Promise.all([onTerminal(false), onTerminal(true)]);
      assert.ok(colour.includes('\x1b[1mNAME'), JSON.stringify(colour.slice(0, 200)));
      assert.match(plain, /NAME +KIND/);
      assert.ok(!plain.includes('\x1b['), JSON.stringify(plain.slice(0, 200)));
    });

    test('sessions ls shows one’s own; kill of another’s is refused in one line (exit 1), of one’s own works', async () => {
      const live = (who: 'alice' | 'bob', marker: string) => {
        const run = sshExec(`echo started; sleep 300 # ${marker}`, {
          port: server.gatehouse.sshAddr?.port as number,
          user: `${sshd.login}@views-ssh`,
          password: tokens[who] as string,
          timeoutMs: 330_000,
        });
        run.catch(() => undefined);
        const id = until(`${who}'s live session`, async () => {
          const r = await admin('GET', '/v1/sessions?status=active');
          const s = (r.json.sessions as Row[]).find((x) => x.command?.includes(marker));
          return s?.id;
        });
        return { id, run };
      };
      const a = live('alice', 'views-alice');
      const b = live('bob', 'views-bob');
      const [aliceId, bobId] = await Promise.all([a.id, b.id]);

      const [alices, everyone, table] = await Promise.all([
        json('alice', ['sessions', 'ls', '--status', 'active']),
        json('admin', ['sessions', 'ls', '--status', 'active']).then((rows) => rows.map((s) => s.id)),
        homes.alice.run(['sessions', 'ls']),
      ]);
      assert.deepEqual(
        alices.map((s) => s.id),
        [aliceId],
      );
      assert.equal(alices[0]?.principal.name, 'views-alice');
      assert.ok(everyone.includes(aliceId) && everyone.includes(bobId), 'the admin sees both (control)');
      assert.match(table.stdout, /^ID +KIND +PRINCIPAL +RESOURCE +LOGIN +STATUS +STARTED$/m);
      assert.match(table.stdout, new RegExp(`^${aliceId} .* user:views-alice +views-ssh `, 'm'));
      assert.ok(!table.stdout.includes(bobId));

      const refused = await homes.alice.run(['sessions', 'kill', bobId]);
      assert.equal(refused.code, 1);
      assert.equal(refused.stdout, '');
      assert.match(refused.stderr, /^gatehouse: not_found: [^\n]*\n$/);
      const bobs = await admin('GET', `/v1/sessions/${bobId}`);
      assert.equal(bobs.json.status, 'active', 'bob’s session goes on');

      const [killed, byAdmin] = await Promise.all([
        homes.alice.run(['sessions', 'kill', aliceId]),
        homes.admin.run(['sessions', 'kill', bobId]),
      ]);
      assert.equal(killed.code, 0, killed.stderr);
      assert.equal(byAdmin.code, 0, `the admin may end bob’s (control): ${byAdmin.stderr}`);
      assert.match(killed.stdout, new RegExp(`Terminated +${aliceId}`));
      await until('alice’s session ended', async () => {
        const r = await admin('GET', `/v1/sessions/${aliceId}`);
        return r.json.status !== 'active' || undefined;
      });
      await Promise.allSettled([a.run, b.run]);
    });

    test('events ls: the trail for who may read it, refused in one line for who may not', async () => {
      const [created, none] = await Promise.all([
        json('reader', ['events', 'ls', '--type', 'resource.created', '--limit', '10']),
        homes.alice.run(['events', 'ls']),
      ]);
      assert.ok(created.length >= 4 && created.every((e) => e.type === 'resource.created'));
      assert.ok(created.some((e) => e.target?.name === 'views-prod-web'));
      assert.equal(none.code, 1);
      assert.equal(none.stdout, '');
      assert.match(none.stderr, /^gatehouse: forbidden: [^\n]*\n$/);
    });

    test('events tail prints a new event within seconds, not the history, and stops on SIGINT', async () => {
      const tail = homes.reader.spawn([
        'events',
        'tail',
        '--interval',
        '1',
        '--type',
        'resource.*',
        '--format',
        'json',
      ]);
      let out = '';
      tail.stdout?.on('data', (d) => {
        out += d;
      });
      const ended = new Promise<number | null>((resolve) => tail.on('close', (code) => resolve(code)));
      try {
        // The tail's first page is history: keep making events until one is printed (its start-up time
        // is the machine's), then time the last one from its creation.
        let made = 0;
        let madeAt = 0;
        const seen = await until(
          'a new event in the tail',
          async () => {
            const line = out.split('\n').find((l) => l.includes('views-tail-'));
            if (line) return JSON.parse(line) as Row;
            if (Date.now() - madeAt > 1500) {
              made++;
              madeAt = Date.now();
              const r = await admin('POST', '/v1/resources', {
                kind: 'server',
                name: `views-tail-${made}`,
                address: '10.0.0.9:22',
              });
              assert.equal(r.status, 201, r.text);
            }
            return undefined;
          },
          60_000,
        );
        assert.equal(seen.type, 'resource.created');
        assert.ok(Date.now() - madeAt < 5000, 'printed within a few seconds of the event');
        assert.ok(!out.includes('views-prod-web'), 'history is not printed');
      } finally {
        tail.kill('SIGINT');
      }
      const code = await Promise.race([ended, new Promise((r) => setTimeout(() => r('still running'), 10_000))]);
      assert.notEqual(code, 'still running', 'the tail stops when interrupted');
    });

    test('agents ls|get for who may read them; suspend refused in one line without agents:update, done by the admin', async () => {
      const listed = await json('reader', ['agents', 'ls']);
      assert.deepEqual(names(listed), ['views-bot-1', 'views-bot-2']);
      const bot = listed.find((a) => a.name === 'views-bot-1') as Row;
      const [got, table, none, refused] = await Promise.all([
        homes.reader.run(['agents', 'get', bot.id, '--format', 'yaml']),
        homes.reader.run(['agents', 'get', bot.id]),
        homes.alice.run(['agents', 'ls']),
        homes.reader.run(['agents', 'suspend', bot.id]),
      ]);
      assert.equal(got.code, 0, got.stderr);
      assert.equal((parseYaml(got.stdout) as Row).name, 'views-bot-1');
      assert.match(table.stdout, /^Name +views-bot-1$/m);
      assert.match(table.stdout, /^Status +active$/m);
      assert.equal(none.code, 1);
      assert.match(none.stderr, /^gatehouse: forbidden: [^\n]*\n$/);
      assert.equal(refused.code, 1);
      assert.equal(refused.stdout, '');
      assert.match(refused.stderr, /^gatehouse: forbidden: [^\n]*\n$/);
      assert.equal((await admin('GET', `/v1/agents/${bot.id}`)).json.status, 'active', 'not suspended');

      const suspended = await homes.admin.run(['agents', 'suspend', bot.id]);
      assert.equal(suspended.code, 0, suspended.stderr);
      assert.match(suspended.stdout, new RegExp(`^Suspended +views-bot-1 \\(${bot.id}\\)$`, 'm'));
      assert.deepEqual(names(await json('reader', ['agents', 'ls', '--status', 'suspended'])), ['views-bot-1']);
    });
  });
