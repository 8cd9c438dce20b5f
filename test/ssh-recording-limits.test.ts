// The recording bound through the real proxy: past recordings.session_max_bytes a best_effort session
// goes on with its recording truncated (and says so), a record_session: strict session is ended.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { api, startTestServer, type TestServer } from './helpers/gatehouse.js';
import { generateClientKey, sshExec } from './helpers/ssh-client.js';
import { requireSshd, type Sshd, startSshd } from './helpers/sshd.js';
import { until } from './helpers/until.js';

if (requireSshd('SSH recording limits')) {
  describe('recording limits through the SSH proxy', () => {
    let gh: TestServer;
    let sshd: Sshd;
    let dir: string;
    const keys: Record<string, string> = {};

    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'gh-ssh-limits-'));
      sshd = await startSshd();
      gh = await startTestServer({ 'recordings.session_max_bytes': 65_536 });
      const admin = { token: gh.adminToken };
      const srv = await api(gh.url, 'POST', '/v1/resources', {
        ...admin,
        body: { kind: 'server', name: 'box', address: `127.0.0.1:${sshd.port}` },
      });
      sshd.authorize(srv.json.ssh_public_key);
      for (const policy of ['best_effort', 'strict'] as const) {
        const role = await api(gh.url, 'POST', '/v1/roles', {
          ...admin,
          body: {
            name: `rec-${policy}`,
            allow: { resources: [{ kinds: ['server'] }], logins: [sshd.login] },
            options: { record_session: policy },
          },
        });
        assert.equal(role.status, 201, role.text);
        const user = await api(gh.url, 'POST', '/v1/users', {
          ...admin,
          body: { name: `user-${policy}`, roles: [`rec-${policy}`] },
        });
        const key = await generateClientKey(dir);
        await api(gh.url, 'POST', `/v1/users/${user.json.id}/ssh-keys`, {
          ...admin,
          body: { public_key: key.publicLine },
        });
        keys[policy] = key.privatePath;
      }
    });

    after(async () => {
      await gh?.stop();
      await sshd?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    const session = async (principal: string) => {
      const r = await api(gh.url, 'GET', `/v1/sessions?principal=${principal}`, { token: gh.adminToken });
      return r.json.sessions[0] as {
        id: string;
        status: string;
        end_reason?: string;
        recording: { status: string; truncated?: boolean };
      };
    };

    test('best_effort: the session runs to the end, the recording stops at the bound and says so', async () => {
      // 300 KB of output, far past the 64 KiB bound.
      const run = await sshExec('head -c 300000 /dev/zero | tr "\\0" y; echo; echo finished', {
        port: gh.gatehouse.sshAddr?.port as number,
        user: `${sshd.login}@box`,
        identityFile: keys.best_effort as string,
      });
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, /finished\n$/);
      const s = await until('the upload', async () => {
        const x = await session('user-best_effort');
        return x?.recording.status === 'uploaded' ? x : undefined;
      });
      assert.equal(s.status, 'ended');
      assert.equal(s.recording.truncated, true);
      const cast = await api(gh.url, 'GET', `/v1/sessions/${s.id}/recording`, { token: gh.adminToken });
      assert.equal(cast.status, 200);
      assert.ok(cast.text.length <= 65_536 + 4096, `recording is ${cast.text.length} bytes`);
      assert.match(cast.text, /gatehouse: recording truncated \(session_max_bytes\)/);
      // (the header's title names the command, so look at the output events only)
      const output = cast.text
        .trim()
        .split('\n')
        .slice(1)
        .map((line) => JSON.parse(line) as [number, string, string])
        .filter((e) => e[1] === 'o')
        .map((e) => e[2])
        .join('');
      assert.ok(output.length > 30_000, `only ${output.length} characters of output recorded`);
      assert.doesNotMatch(output, /finished/);
    });

    test('strict: the session is ended at the bound, with a message, and the recording shows why', async () => {
      const run = await sshExec('head -c 300000 /dev/zero | tr "\\0" z; sleep 5; echo finished', {
        port: gh.gatehouse.sshAddr?.port as number,
        user: `${sshd.login}@box`,
        identityFile: keys.strict as string,
      });
      assert.notEqual(run.code, 0);
      assert.doesNotMatch(run.stdout, /finished/);
      assert.match(run.stderr, /session ended at the recording limit/);
      const s = await until('the upload', async () => {
        const x = await session('user-strict');
        return x?.recording.status === 'uploaded' ? x : undefined;
      });
      assert.equal(s.status, 'terminated');
      assert.match(s.end_reason ?? '', /recording limit/);
      const cast = await api(gh.url, 'GET', `/v1/sessions/${s.id}/recording`, { token: gh.adminToken });
      assert.match(cast.text, /gatehouse: session ended at the recording limit \(session_max_bytes\)/);
    });
  });
}
