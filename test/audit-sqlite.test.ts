// The AuditStore conformance suite against the embedded SQLite store, plus its schema bookkeeping.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { openSqliteAuditStore } from '../src/audit/sqlite.js';
import type { AuditStore } from '../src/audit/types.js';
import { generateEvents, runAuditConformance } from './conformance/audit-conformance.js';
import { tempDir } from './conformance/helpers.js';

runAuditConformance('sqlite', async () => {
  const tmp = tempDir('audit');
  const path = join(tmp.dir, 'audit.db');
  const opened: AuditStore[] = [];
  const open = (): AuditStore => {
    const store = openSqliteAuditStore({ path, synchronous: 'NORMAL' });
    opened.push(store);
    return store;
  };
  return {
    store: open(),
    reopen: async () => open(),
    async cleanup() {
      for (const store of opened) await store.close();
      tmp.remove();
    },
  };
});

describe('sqlite audit store specifics', () => {
  const tmp = tempDir('audit-specific');
  after(() => tmp.remove());

  test('schema_migrations records version 1, and a newer schema is refused', async () => {
    const path = join(tmp.dir, 'audit.db');
    const store = openSqliteAuditStore({ path });
    await store.append(generateEvents(3));
    await store.close();
    const db = new Database(path);
    const versions = db.prepare('SELECT version FROM schema_migrations').all() as Array<{ version: number }>;
    assert.deepEqual(
      versions.map((v) => v.version),
      [1],
    );
    assert.equal((db.prepare('SELECT COUNT(*) AS n FROM events').get() as { n: number }).n, 3);
    db.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (2, ?)').run(new Date().toISOString());
    db.close();
    assert.throws(
      () => openSqliteAuditStore({ path }),
      /the audit database is at schema version 2, newer than this Gatehouse \(1\); upgrade Gatehouse/,
    );
  });
});
