// Session recordings survive what goes wrong around them, end to end with the real OpenSSH client
// through the proxy to a real sshd: the object store down when the session ends (the recording waits
// in the spool, and is uploaded once the store is back), the proxy SIGKILLed in the middle of a
// session (the next start closes off the `.part` file with an interruption marker, uploads it, and
// ends the orphaned session), and a graceful shutdown with a live session (the user is told, the
// recording is closed and uploaded).
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { INTERRUPTED_MARKER, parseAsciicast } from '../src/recordings/asciicast.js';
import { api, startTestServer, type TestServer } from './helpers/gatehouse.js';
import { type Running, run, stop } from './helpers/process.js';
import { startS3rver, type TestS3 } from './helpers/s3rver.js';
import { generateClientKey, type SshClientOptions, sshExec } from './helpers/ssh-client.js';
import { freePort, requireSshd, type Sshd, startSshd } from './helpers/sshd.js';

interface SessionRow {
  id: string;
  status: string;
  command?: string;
  bytes_out: number;
  end_reason?: string;
  recording: { status: string; attempts?: number; last_error?: string };
}

const RETRY = { 'recordings.upload_retry_min': '50ms', 'recordings.upload_retry_max': '200ms' };
const CHILD_KEY = 'durability-test-bootstrap-key-0123456789abcdef';

async function until<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await fn();
      if (value !== undefined) return value;
    } catch (error) {
      last = error; // e.g. a server still starting; tried again until the deadline
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The terminal output of an asciicast (its "o" events, joined). */
const outputOf = (cast: string) =>
  parseAsciicast(cast)
    .events.filter((e) => e[1] === 'o')
    .map((e) => e[2])
    .join('');
const markersOf = (cast: string) =>
  parseAsciicast(cast)
    .events.filter((e) => e[1] === 'm')
    .map((e) => e[2]);
/** What the spool directory holds, its lock/owner files (dot files) aside. */
const spoolFiles = (dataDir: string) =>
  existsSync(join(dataDir, 'spool')) ? readdirSync(join(dataDir, 'spool')).filter((f) => !f.startsWith('.')) : [];

if (requireSshd('SSH recording durability')) {
  describe('SSH session recordings: store outage, proxy crash, graceful shutdown', () => {
    let sshd: Sshd;
    let dir: string;
    let s3: TestS3;
    let client: { privatePath: string; publicLine: string };
    const cleanups: Array<() => Promise<unknown> | unknown> = [];

    /** Registers web-1 (this sshd) and alice (our client key, a role allowing the sshd login) on a Gatehouse. */
    async function provision(url: string, token: string): Promise<void> {
      const admin = { token };
      const srv = await api(url, 'POST', '/v1/resources', {
        ...admin,
        body: { kind: 'server', name: 'web-1', address: `127.0.0.1:${sshd.port}`, labels: { env: 'dev' } },
      });
      assert.equal(srv.status, 201, srv.text);
      sshd.authorize(srv.json.ssh_public_key);
      const role = await api(url, 'POST', '/v1/roles', {
        ...admin,
        body: {
          name: 'dev-ssh',
          allow: {
            resources: [{ kinds: ['server'], labels: { env: 'dev' } }],
            logins: [sshd.login],
            rules: [{ resources: ['sessions'], verbs: ['list', 'read', 'create'] }],
          },
        },
      });
      assert.equal(role.status, 201, role.text);
      const alice = await api(url, 'POST', '/v1/users', { ...admin, body: { name: 'alice', roles: ['dev-ssh'] } });
      assert.equal(alice.status, 201, alice.text);
      const k = await api(url, 'POST', `/v1/users/${alice.json.id}/ssh-keys`, {
        ...admin,
        body: { public_key: client.publicLine },
      });
      assert.equal(k.status, 201, k.text);
    }

    const asAlice = (port: number): SshClientOptions => ({
      port,
      user: `${sshd.login}@web-1`,
      identityFile: client.privatePath,
      timeoutMs: 40_000,
    });

    const session = async (url: string, token: string, id: string): Promise<SessionRow> => {
      const r = await api(url, 'GET', `/v1/sessions/${id}`, { token });
      assert.equal(r.status, 200, r.text);
      return r.json as SessionRow;
    };
    const events = async (url: string, token: string, type: string, id: string) =>
      (await api(url, 'GET', `/v1/events?type=${type}&session_id=${id}&per_page=100`, { token })).json.events as Array<{
        type: string;
        data: Record<string, unknown>;
      }>;
    /** The live session running `needle`, once its first output went through (bytes_out > 0). */
    const liveSession = (url: string, token: string, needle: string) =>
      until(`the live session running ${needle}`, async () => {
        const r = await api(url, 'GET', '/v1/sessions?status=active', { token });
        const s = (r.json.sessions as SessionRow[]).find((x) => x.command?.includes(needle));
        return s && s.bytes_out > 0 ? s.id : undefined;
      });
    const download = async (url: string, token: string, id: string) => {
      let last = '';
      try {
        return await until(`the recording of ${id}`, async () => {
          const r = await api(url, 'GET', `/v1/sessions/${id}/recording`, { token });
          last = `${r.status} ${r.text}`;
          return r.status === 200 ? r.text : undefined;
        });
      } catch (error) {
        const s = await api(url, 'GET', `/v1/sessions/${id}`, { token });
        throw new Error(`${(error as Error).message}; last answer: ${last}; the session: ${s.text}`);
      }
    };

    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'gh-ssh-durability-'));
      sshd = await startSshd();
      client = await generateClientKey(dir);
      s3 = await startS3rver(join(dir, 's3rver'));
    });

    after(async () => {
      for (const cleanup of cleanups.reverse()) {
        try {
          await cleanup();
        } catch (error) {
          console.error('cleanup:', error);
        }
      }
      await s3?.stop();
      await sshd?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    test('S3 down when the session ends: upload_failed, 409, spool kept; S3 back: uploaded, spool empty', async () => {
      const gh: TestServer = await startTestServer({ recordings_url: s3.url('durability/'), ...RETRY });
      cleanups.push(() => gh.stop());
      await provision(gh.url, gh.adminToken);
      const port = gh.gatehouse.sshAddr?.port as number;

      await s3.stop();
      // The marker is computed remotely: the command (in the recording's title) does not contain it.
      const ran = await sshExec('echo upload-marker-$((6*7))', asAlice(port));
      assert.equal(ran.stdout, 'upload-marker-42\n', ran.stderr);
      assert.equal(ran.code, 0);
      const list = await api(gh.url, 'GET', '/v1/sessions?type=exec', { token: gh.adminToken });
      const id = (list.json.sessions as SessionRow[]).find((s) => s.command?.includes('upload-marker'))?.id as string;
      assert.ok(id, list.text);

      const failing = await until('a failed upload attempt', async () => {
        const s = await session(gh.url, gh.adminToken, id);
        const failed =
          s.recording.status === 'upload_failed' ||
          (s.recording.status === 'pending' && (s.recording.attempts ?? 0) > 0);
        return s.status === 'ended' && failed ? s : undefined;
      });
      assert.ok((failing.recording.attempts ?? 0) >= 1, JSON.stringify(failing));
      assert.ok(failing.recording.last_error, JSON.stringify(failing));
      const notReady = await api(gh.url, 'GET', `/v1/sessions/${id}/recording`, { token: gh.adminToken });
      assert.equal(notReady.status, 409, notReady.text);
      assert.equal(notReady.json.code, 'recording_not_ready');
      const failedEvents = await until('a recording.upload_failed event', async () => {
        const e = await events(gh.url, gh.adminToken, 'recording.upload_failed', id);
        return e.length > 0 ? e : undefined;
      });
      assert.equal(failedEvents.at(-1)?.data.attempt, 1);
      assert.equal(failedEvents.at(-1)?.data.spool_kept, true);
      assert.ok(spoolFiles(gh.dataDir).includes(`${id}.cast`), `spool: ${spoolFiles(gh.dataDir).join(', ')}`);

      await s3.start(); // same port, same directory
      let last: SessionRow | undefined;
      const done = await until('the upload once S3 is back', async () => {
        last = await session(gh.url, gh.adminToken, id);
        return last.recording.status === 'uploaded' ? last : undefined;
      }).catch((error: Error) => {
        // Say where the upload stood (attempts, last error) when it never completed.
        throw new Error(`${error.message}; the session: ${JSON.stringify(last)}`);
      });
      assert.equal(done.status, 'ended');
      const cast = await download(gh.url, gh.adminToken, id);
      assert.match(outputOf(cast), /upload-marker-42/);
      const uploaded = await events(gh.url, gh.adminToken, 'recording.uploaded', id);
      assert.equal(uploaded.length, 1);
      assert.ok(Number(uploaded[0]?.data.attempts) >= 2, JSON.stringify(uploaded[0]));
      assert.match(String(uploaded[0]?.data.store), /s3/i);
      await until('the spool to be emptied', async () => (spoolFiles(gh.dataDir).length === 0 ? true : undefined));
    });

    test('SIGKILL mid-session: the next start closes off the .part file, uploads it and ends the session', async () => {
      const dataDir = join(dir, 'crash-data');
      const env = {
        GATEHOUSE_DATA_DIR: dataDir,
        GATEHOUSE_BOOTSTRAP_API_KEY: CHILD_KEY,
        GATEHOUSE_SSH_ADDR: `127.0.0.1:${await freePort()}`,
        GATEHOUSE_RECORDINGS_UPLOAD_RETRY_MIN: RETRY['recordings.upload_retry_min'],
        GATEHOUSE_RECORDINGS_UPLOAD_RETRY_MAX: RETRY['recordings.upload_retry_max'],
      };
      const sshPort = Number(env.GATEHOUSE_SSH_ADDR.split(':')[1]);
      const children: Running[] = [];
      cleanups.push(async () => {
        for (const c of children)
          if (c.child.exitCode === null && c.child.signalCode === null) await stop(c, 'SIGKILL');
      });
      const token = async (url: string) =>
        (await api(url, 'POST', '/v1/auth/token', { body: { api_key: CHILD_KEY } })).json.access_token as string;

      const first = await run(env);
      children.push(first);
      const t1 = await token(first.authUrl);
      await provision(first.authUrl, t1);
      const running = sshExec('echo before-crash-$((6*7)); sleep 30; echo never', asAlice(sshPort));
      const id = await liveSession(first.authUrl, t1, 'before-crash');
      const part = join(dataDir, 'spool', `${id}.cast.part`);
      // bytes_out counts what went to the user; wait for the spool write too (it is not fsynced: the
      // page cache survives a process kill, not a power cut).
      await until('the output in the .part file', async () =>
        existsSync(part) && readFileSync(part, 'utf8').includes('before-crash-42') ? true : undefined,
      );

      assert.equal(await stop(first, 'SIGKILL'), null, 'killed, not exited');
      const ssh = await running;
      assert.notEqual(ssh.code, 0);
      assert.match(ssh.stdout, /before-crash-42/);
      assert.doesNotMatch(ssh.stdout, /never/);
      assert.deepEqual(spoolFiles(dataDir), [`${id}.cast.part`], 'the crash left the live recording as .part');

      const second = await run(env);
      children.push(second);
      const t2 = await token(second.authUrl);
      const cast = await download(second.authUrl, t2, id);
      assert.match(outputOf(cast), /before-crash-42/);
      assert.doesNotMatch(outputOf(cast), /never/);
      const markers = markersOf(cast);
      assert.ok(
        markers.some((m) => m.startsWith(INTERRUPTED_MARKER)),
        `an interruption marker in ${JSON.stringify(markers)}`,
      );
      assert.match(cast, /recording interrupted \(the proxy stopped before the session ended\)/);
      await until('the spool to be emptied', async () => (spoolFiles(dataDir).length === 0 ? true : undefined));

      // The session was `active` when the process died; the restart ends it (not `active` forever).
      const afterRestart = await session(second.authUrl, t2, id);
      assert.equal(afterRestart.status, 'ended', JSON.stringify(afterRestart));
      assert.equal(afterRestart.end_reason, 'proxy restarted');
      assert.equal(afterRestart.recording.status, 'uploaded');
      const active = await api(second.authUrl, 'GET', '/v1/sessions?status=active', { token: t2 });
      assert.deepEqual(
        (active.json.sessions as SessionRow[]).map((s) => s.id),
        [],
      );
      const ends = await events(second.authUrl, t2, 'session.end', id);
      assert.equal(ends.length, 1);
      assert.equal(ends[0]?.data.reason, 'proxy restarted');
      const uploaded = await events(second.authUrl, t2, 'recording.uploaded', id);
      assert.equal(uploaded.length, 1);
      assert.equal(uploaded[0]?.data.interrupted, true);
      assert.equal(await stop(second), 0);
    });

    test('graceful shutdown with a live session: the user is told, the recording closed, uploaded after restart', async () => {
      const dataDir = join(dir, 'graceful-data');
      const gh = await startTestServer(RETRY, { dataDir });
      let stopped = false;
      cleanups.push(() => (stopped ? undefined : gh.stop({ keepData: true })));
      await provision(gh.url, gh.adminToken);
      const running = sshExec(
        'echo before-shutdown-$((6*7)); sleep 30; echo never',
        asAlice(gh.gatehouse.sshAddr?.port as number),
      );
      const id = await liveSession(gh.url, gh.adminToken, 'before-shutdown');

      stopped = true;
      await gh.stop({ keepData: true }); // gatehouse.close()
      const ssh = await running;
      assert.match(ssh.stdout, /before-shutdown-42/);
      assert.doesNotMatch(ssh.stdout, /never/);
      assert.match(ssh.stderr, /gatehouse: the proxy is shutting down/);
      assert.notEqual(ssh.code, 0);
      assert.deepEqual(
        spoolFiles(dataDir).filter((f) => f.endsWith('.part')),
        [],
        'the recording was closed',
      );

      const again = await startTestServer(RETRY, { dataDir });
      cleanups.push(() => again.stop());
      const cast = await download(again.url, again.adminToken, id);
      assert.match(outputOf(cast), /before-shutdown-42/);
      const s = await session(again.url, again.adminToken, id);
      assert.equal(s.status, 'terminated', JSON.stringify(s));
      assert.equal(s.end_reason, 'the proxy is shutting down');
      assert.equal(s.recording.status, 'uploaded');
      const terminated = await events(again.url, again.adminToken, 'session.terminated', id);
      assert.equal(terminated.length, 1);
      await until('the spool to be emptied', async () => (spoolFiles(dataDir).length === 0 ? true : undefined));
    });
  });
}
