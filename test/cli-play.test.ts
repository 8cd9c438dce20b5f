// `gatehouse play` and `gatehouse completion` as a person uses them. play: a real psql session
// through the PostgreSQL proxy is recorded; an auditor's `gatehouse play` prints its transcript with
// the session's own pause (--speed 0 plays it without), and a user who may not read recordings gets
// one line with the request id. completion: the real bash completes commands, subcommands and options
// from the script `gatehouse completion bash` prints.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { type CliHome, cliHome } from './helpers/cli.js';
import { createDbRole, registerPostgres } from './helpers/db-resource.js';
import { ADMIN_KEY, api, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';
import { psql, requirePostgres, through } from './helpers/psql.js';
import { until } from './helpers/until.js';

if (requirePostgres('gatehouse play')) {
  describe('gatehouse play', () => {
    let server: TestServer;
    let auditor: CliHome;
    let player: CliHome;
    let sessionId: string;

    before(async () => {
      server = await startTestServer();
      await registerPostgres(server, { name: 'play-pg' });
      await createDbRole(server, 'play-db');
      const user = await userWithRoles(server, 'play-user', ['play-db']);
      const port = server.gatehouse.dbAddr?.port as number;
      const r = await psql(through(port, 'postgres', 'play-pg', 'test'), user.token, [
        '-tA',
        '-c',
        "select 'first-statement'",
        '-c',
        'select pg_sleep(2)',
        '-c',
        "select 'second-statement'",
      ]);
      assert.equal(r.code, 0, r.stderr);
      sessionId = await until('the recording of the psql session', async () => {
        const list = await api(server.url, 'GET', `/v1/sessions?per_page=100`, { token: server.adminToken });
        const s = (list.json.sessions as Array<{ id: string; principal: { name: string } }>).find(
          (x) => x.principal.name === 'play-user',
        );
        if (!s) return undefined;
        const rec = await api(server.url, 'GET', `/v1/sessions/${s.id}/recording`, { token: server.adminToken });
        return rec.status === 200 && rec.text.includes('second-statement') ? s.id : undefined;
      });
      auditor = cliHome();
      player = cliHome();
      for (const [h, key] of [
        [auditor, ADMIN_KEY],
        [player, user.apiKey],
      ] as const) {
        const login = await h.run(['login', '--proxy', server.webUrl], { env: { GATEHOUSE_API_KEY: key } });
        assert.equal(login.code, 0, login.stderr);
      }
    });
    after(async () => {
      auditor?.remove();
      player?.remove();
      await server?.stop();
    });

    test('plays the transcript with its pause; --speed 0 without it', async () => {
      const timed = async (args: string[]) => {
        const start = Date.now();
        const r = await auditor.run(args);
        return { ...r, ms: Date.now() - start };
      };
      const real = await timed(['play', sessionId, '--max-idle', '5']);
      assert.equal(real.code, 0, real.stderr);
      assert.match(real.stdout, /first-statement[\s\S]*pg_sleep[\s\S]*second-statement/);
      const fast = await timed(['play', sessionId, '--speed', '0']);
      assert.equal(fast.code, 0, fast.stderr);
      assert.equal(fast.stdout, real.stdout);
      assert.ok(real.ms - fast.ms >= 1200, `with its pause ${real.ms} ms, without ${fast.ms} ms`);
    });

    test('one line with the request id for a user who may not read recordings (the auditor could)', async () => {
      const refused = await player.run(['play', sessionId]);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /^gatehouse: forbidden: .*\(request [^)]+\)\n$/);
      assert.equal(refused.stdout, '');
      const bad = await player.run(['play', sessionId, '--speed', 'fast']);
      assert.equal(bad.code, 2);
    });
  });
}

describe('gatehouse completion', () => {
  test('bash completes commands, subcommands and options from the script it prints', async () => {
    const h = cliHome();
    try {
      const script = await h.run(['completion', 'bash']);
      assert.equal(script.code, 0, script.stderr);
      const complete = (words: string[]) =>
        new Promise<string>((resolve) => {
          const line = `COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _gatehouse; echo "\${COMPREPLY[*]}"`;
          const bash = spawn('bash', ['--norc', '--noprofile', '-c', `eval "$(cat)"; ${line}`], {
            stdio: ['pipe', 'pipe', 'inherit'],
          });
          let out = '';
          bash.stdout.on('data', (d) => {
            out += d;
          });
          bash.on('close', () => resolve(out.trim()));
          bash.stdin.end(script.stdout);
        });
      assert.equal(await complete(['gatehouse', 'ku']), 'kube');
      assert.equal(await complete(['gatehouse', 'db', '']), 'ls connect --help');
      assert.equal(await complete(['gatehouse', '--profile', 'work', 'kube', 'l']), 'ls login');
      assert.equal(await complete(['gatehouse', 'proxy', 'db', 'orders', '--p']), '--port --profile');
      const fish = await h.run(['completion', 'fish']);
      assert.match(fish.stdout, /^complete -c gatehouse -n '__fish_use_subcommand' -a '.*\bkube\b.*'$/m);
      const unknown = await h.run(['completion', 'tcsh']);
      assert.equal(unknown.code, 2);
    } finally {
      h.remove();
    }
  });
});
