// `gatehouse apps ls` and `gatehouse proxy app` as a person uses them: a tool that knows nothing of
// Gatehouse (plain fetch, no credential) calls 127.0.0.1:PORT and reaches the app through Gatehouse's
// web listener as the logged-in user: the app gets the identity assertion naming that user and never
// the token; an app the role does not reach is refused in one line (the first app is the control).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from './helpers/app-upstream.js';
import { type CliHome, cliHome } from './helpers/cli.js';
import { requestsTo, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';
import { until } from './helpers/until.js';

describe('gatehouse apps ls and proxy app', () => {
  let server: TestServer;
  let app: TestApp;
  let h: CliHome;
  let userId: string;
  const { admin } = requestsTo(() => server);

  before(async () => {
    app = await startTestApp();
    server = await startTestServer();
    const port = new URL(server.webUrl).port;
    for (const [name, team] of [
      ['cli-dash', 'obs'],
      ['cli-other', 'other'],
    ] as const) {
      const created = await admin('POST', '/v1/resources', { kind: 'app', name, uri: app.url, labels: { team } });
      assert.equal(created.status, 201, created.text);
      if (name === 'cli-dash')
        app.verifyWith(`${server.webUrl}/.well-known/jwks.json`, created.json.public_url, `http://localhost:${port}`);
    }
    const role = await admin('POST', '/v1/roles', {
      name: 'cli-obs-apps',
      allow: { resources: [{ kinds: ['app'], labels: { team: 'obs' } }] },
    });
    assert.equal(role.status, 201, role.text);
    const user = await userWithRoles(server, 'cli-appuser', ['cli-obs-apps']);
    userId = user.id;
    h = cliHome();
    const login = await h.run(['login', '--proxy', server.webUrl], { env: { GATEHOUSE_API_KEY: user.apiKey } });
    assert.equal(login.code, 0, login.stderr);
  });
  after(async () => {
    h?.remove();
    await server?.stop();
    await app?.close();
  });

  test('apps ls lists the app the role reaches (--format json)', async () => {
    const ls = await h.run(['apps', 'ls', '--format', 'json']);
    assert.equal(ls.code, 0, ls.stderr);
    assert.deepEqual(
      (JSON.parse(ls.stdout) as Array<{ name: string }>).map((a) => a.name),
      ['cli-dash'],
    );
    // The singular, as in `tsh app ls`, is the same command.
    const singular = await h.run(['app', 'ls', '--format', 'json']);
    assert.equal(singular.code, 0, singular.stderr);
    assert.equal(singular.stdout, ls.stdout);
  });

  test('proxy app: a plain request to 127.0.0.1 reaches the app as the user, without the token', async () => {
    const tunnel = h.spawn(['proxy', 'app', 'cli-dash', '--port', '0', '--format', 'json']);
    let out = '';
    let err = '';
    tunnel.stdout?.on('data', (d) => {
      out += d;
    });
    tunnel.stderr?.on('data', (d) => {
      err += d;
    });
    try {
      const url = await until('the tunnel prints its URL', async () => {
        assert.equal(tunnel.exitCode, null, err);
        return /"url": "([^"]+)"/.exec(out)?.[1];
      });
      const before = app.seen.length;
      const res = await fetch(`${url}/reports?week=48`, { headers: { accept: 'application/json' } });
      assert.equal(res.status, 200, await res.text());
      const seen = app.seen.slice(before);
      assert.equal(seen.length, 1);
      assert.equal(seen[0]?.url, '/reports?week=48');
      assert.equal(seen[0]?.claims?.sub, userId, seen[0]?.jwtError);
      assert.equal(seen[0]?.claims?.username, 'cli-appuser');
      assert.ok(!JSON.stringify(seen[0]?.headers).includes('gha_'), 'the token reached the app');
    } finally {
      tunnel.kill('SIGTERM');
    }
    assert.equal(await new Promise((resolve) => tunnel.on('close', resolve)), 0);
  });

  test('an app the role does not reach: one line, no tunnel', async () => {
    const refused = await h.run(['proxy', 'app', 'cli-other', '--port', '0']);
    assert.equal(refused.code, 1);
    assert.equal(refused.stderr, 'gatehouse: no app named cli-other that you may reach (gatehouse apps ls)\n');
  });
});
