// The Backend conformance suite against the embedded SQLite backend, plus what only SQLite has:
// the schema_migrations table, the schema-version guard, and rows physically leaving the file.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { openSqliteBackend } from '../src/backend/sqlite.js';
import type { Backend } from '../src/backend/types.js';
import { runBackendConformance } from './conformance/backend-conformance.js';
import { eventKey, record, tempDir } from './conformance/helpers.js';

// Both durability modes: FULL acknowledges after its own WAL sync off the main thread, NORMAL at commit.
for (const synchronous of ['FULL', 'NORMAL'] as const) {
  runBackendConformance(
    `sqlite (synchronous ${synchronous})`,
    async (opts = {}) => {
      const tmp = tempDir('backend');
      const path = join(tmp.dir, 'state.db');
      const opened: Backend[] = [];
      const open = (): Backend => {
        const backend = openSqliteBackend({ path, synchronous, ...opts });
        opened.push(backend);
        return backend;
      };
      return {
        backend: open(),
        reopen: async () => open(),
        async cleanup() {
          for (const backend of opened) await backend.close();
          tmp.remove();
        },
      };
    },
    { inProcessWatch: true },
  );
}

describe('sqlite backend specifics', () => {
  const tmp = tempDir('backend-specific');
  after(() => tmp.remove());
  let n = 0;
  const freshPath = (): string => join(tmp.dir, `state-${n++}.db`);

  test('a new file records schema version 1 in schema_migrations', async () => {
    const path = freshPath();
    const backend = openSqliteBackend({ path });
    await backend.put('k', 'v');
    await backend.close();
    const db = new Database(path, { readonly: true });
    try {
      const rows = db.prepare('SELECT version, applied_at FROM schema_migrations ORDER BY version').all() as Array<{
        version: number;
        applied_at: string;
      }>;
      assert.deepEqual(
        rows.map((r) => r.version),
        [1],
      );
      assert.ok(!Number.isNaN(Date.parse(rows[0]?.applied_at ?? '')), 'applied_at is a timestamp');
      assert.deepEqual(db.prepare('SELECT key, value FROM kv').all(), [{ key: 'k', value: 'v' }]);
    } finally {
      db.close();
    }
    const again = openSqliteBackend({ path });
    assert.equal((await again.get('k'))?.value, 'v');
    await again.close();
    const check = new Database(path, { readonly: true });
    assert.equal((check.prepare('SELECT COUNT(*) AS n FROM schema_migrations').get() as { n: number }).n, 1);
    check.close();
  });

  test('a database at a newer schema version is refused with a clear message', async () => {
    const path = freshPath();
    await openSqliteBackend({ path }).close();
    const db = new Database(path);
    db.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (2, ?)').run(new Date().toISOString());
    db.close();
    assert.throws(
      () => openSqliteBackend({ path }),
      /the state database is at schema version 2, newer than this Gatehouse \(1\); upgrade Gatehouse/,
    );
  });

  test('the sweeper removes expired rows from the file, not just from reads', async () => {
    const path = freshPath();
    const backend = openSqliteBackend({ path, sweepIntervalMs: 20 });
    const rec = await record(backend, ['']);
    await backend.put('gone', 'x', { expiresAt: Date.now() - 1000 });
    await backend.put('kept', 'y');
    await rec.sawKey('gone', 'delete');
    const db = new Database(path, { readonly: true });
    try {
      assert.deepEqual(db.prepare('SELECT key FROM kv ORDER BY key').all(), [{ key: 'kept' }]);
    } finally {
      db.close();
      await backend.close();
    }
  });

  test('the now option drives expiry', async () => {
    let clock = 1_000_000;
    const backend = openSqliteBackend({ path: freshPath(), now: () => clock });
    await backend.put('k', 'v', { expiresAt: 1_000_500 });
    assert.equal((await backend.get('k'))?.value, 'v');
    clock = 1_000_500;
    assert.equal(await backend.get('k'), undefined);
    await backend.close();
  });

  test('an operation the database rejects rolls back its whole atomicWrite and spares the others', async () => {
    const backend = openSqliteBackend({ path: freshPath() });
    const rec = await record(backend, ['']);
    const bad = { type: 'put' as const, key: 'aw/2', value: { not: 'a string' } as unknown as string };
    const [failed, neighbour] = await Promise.allSettled([
      backend.atomicWrite([], [{ type: 'put', key: 'aw/1', value: 'first' }, bad]),
      backend.put('other', 'fine'),
    ]);
    assert.equal(failed?.status, 'rejected');
    assert.equal(neighbour?.status, 'fulfilled');
    assert.equal((await backend.get('other'))?.value, 'fine');
    assert.deepEqual(await backend.getRange('aw/'), [], 'nothing of the failed write is stored');
    assert.deepEqual(rec.events.map(eventKey), ['other'], 'nothing of the failed write is published');
    await backend.close();
  });

  // A batch runs straight in one transaction and reruns with a savepoint per job only when a job
  // failed after it wrote (src/backend/sqlite.ts): both kinds of failure in one batch, with
  // writes before, between and after them, each kept whole and numbered without gaps.
  test('in one batch, a write refused after it wrote and a condition that fails leave the jobs around them whole', async () => {
    const path = freshPath();
    const backend = openSqliteBackend({ path });
    await backend.put('taken', 'already');
    const rec = await record(backend, ['']);
    const start = (await backend.get('taken'))?.revision ?? 0;
    const bad = { type: 'put' as const, key: 'aw/2', value: { not: 'a string' } as unknown as string };
    const settled = await Promise.allSettled([
      backend.put('a', 'before'),
      backend.atomicWrite([], [{ type: 'put', key: 'aw/1', value: 'first' }, bad]),
      backend.put('b', 'between'),
      backend.create('taken', 'again'),
      backend.put('c', 'after'),
    ]);
    assert.deepEqual(
      settled.map((s) => s.status),
      ['fulfilled', 'rejected', 'fulfilled', 'rejected', 'fulfilled'],
    );
    assert.equal((settled[3] as PromiseRejectedResult).reason.reason, 'already_exists');
    assert.deepEqual(
      (await backend.getRange('')).map((i) => [i.key, i.value, i.revision]),
      [
        ['a', 'before', start + 1],
        ['b', 'between', start + 2],
        ['c', 'after', start + 3],
        ['taken', 'already', start],
      ],
    );
    assert.deepEqual(rec.events.map(eventKey), ['a', 'b', 'c'], 'only what was stored is published');
    await backend.close();
    // Reopened, the file holds the same and the revision goes on from the last write.
    const reopened = openSqliteBackend({ path });
    assert.deepEqual(
      (await reopened.getRange('')).map((i) => i.key),
      ['a', 'b', 'c', 'taken'],
    );
    assert.equal((await reopened.put('d', 'later')).revision, start + 4);
    await reopened.close();
  });
});
