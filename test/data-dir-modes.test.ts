// What the data dir holds is the owner's alone however the data dir itself is set: the state and
// audit databases with their -wal and -shm files 0600, the spool and the recordings tree 0700 (their
// files 0600), checked after a real psql session was recorded and uploaded. A data dir made 0755
// before the first start, and files an older release left 0644, are both covered.
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { createDbRole, registerPostgres } from './helpers/db-resource.js';
import { api, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';
import { psql, requirePostgres, through } from './helpers/psql.js';
import { until } from './helpers/until.js';

/** Every path under dir (not dir itself) with its permission bits, e.g. ['state.db', 0o644]. */
function modesUnder(dir: string, prefix = ''): Array<[string, number, 'file' | 'dir']> {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    const rel = prefix + e.name;
    const mode = statSync(path).mode & 0o777;
    return e.isDirectory()
      ? [[rel, mode, 'dir'] as [string, number, 'dir'], ...modesUnder(path, `${rel}/`)]
      : [[rel, mode, 'file'] as [string, number, 'file']];
  });
}

/** Paths readable, writable or searchable by anyone but the owner: what the test refuses. */
const loose = (dir: string) =>
  modesUnder(dir)
    .filter(([, mode, kind]) => mode !== (kind === 'dir' ? 0o700 : 0o600))
    .map(([path, mode]) => `${path} ${mode.toString(8)}`);

/** Runs one psql session through the proxy and waits until its recording is uploaded. */
async function recordOneSession(gh: TestServer, token: string): Promise<void> {
  const port = gh.gatehouse.dbAddr?.port as number;
  const ran = await psql(through(port, 'postgres', 'pg', 'test'), token, ['-tAc', 'select 42']);
  assert.equal(ran.code, 0, ran.stderr);
  assert.equal(ran.stdout.trim(), '42');
  await until(
    'the recording to be uploaded',
    async () => {
      const list = await api(gh.url, 'GET', '/v1/sessions?per_page=100', { token: gh.adminToken });
      const sessions = list.json.sessions as Array<{ status: string; recording: { status: string } }>;
      return sessions.length > 0 && sessions.every((s) => s.recording.status === 'uploaded') ? true : undefined;
    },
    30_000,
  );
}

if (requirePostgres('data dir modes')) {
  describe('data dir file modes', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-modes-'));
    let gh: TestServer | undefined;
    after(async () => {
      await gh?.stop({ keepData: true });
      rmSync(dataDir, { recursive: true, force: true });
    });

    test('a data dir made 0755 before the first start: databases, WAL files, spool and recordings are 0600/0700', async () => {
      chmodSync(dataDir, 0o755);
      gh = await startTestServer({}, { dataDir });
      await registerPostgres(gh);
      await createDbRole(gh, 'modes-db');
      const user = await userWithRoles(gh, 'modes-user', ['modes-db']);
      await recordOneSession(gh, user.token);

      const names = modesUnder(dataDir).map(([path]) => path);
      for (const expected of ['state.db', 'state.db-wal', 'state.db-shm', 'audit.db', 'audit.db-wal', 'spool']) {
        assert.ok(names.includes(expected), `${expected} is missing: ${names.join(', ')}`);
      }
      assert.ok(
        names.some((n) => n.startsWith('recordings/') && !n.startsWith('recordings/.')),
        `no uploaded recording: ${names.join(', ')}`,
      );
      assert.deepEqual(loose(dataDir), [], 'everything in the data dir is the owner’s alone');
      // The operator's choice for the data dir itself is left as it was.
      assert.equal(statSync(dataDir).mode & 0o777, 0o755);
    });

    test('state and audit databases, spool and recordings left 0644/0755 by an older release are tightened on start', async () => {
      await gh?.stop({ keepData: true });
      gh = undefined;
      const older = /^(state\.db|audit\.db)(-wal|-shm)?$|^(spool|recordings)$/;
      const loosened = modesUnder(dataDir).filter(([path]) => older.test(path));
      for (const [path, , kind] of loosened) chmodSync(join(dataDir, path), kind === 'dir' ? 0o755 : 0o644);
      const names = loosened.map(([path]) => path);
      for (const expected of ['state.db', 'audit.db', 'spool', 'recordings'])
        assert.ok(names.includes(expected), `${expected} was not there to loosen: ${names.join(', ')}`);

      gh = await startTestServer({}, { dataDir });
      const again = await userWithRoles(gh, 'modes-user-2', ['modes-db']);
      await recordOneSession(gh, again.token);
      assert.deepEqual(loose(dataDir), [], 'everything in the data dir is the owner’s alone again');
    });
  });
}
