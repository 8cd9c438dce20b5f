// Audit retention over real SQLite stores: old events go in batches, recent ones stay, the pruning
// is itself recorded, and with two instances only the lease holder prunes.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { createAuditLog } from '../src/audit/audit-log.js';
import { startAuditRetention } from '../src/audit/retention.js';
import { openSqliteAuditStore } from '../src/audit/sqlite.js';
import type { AuditEvent } from '../src/audit/types.js';
import { openSqliteBackend } from '../src/backend/sqlite.js';

const HOUR = 3_600_000;

function event(i: number, time: number): AuditEvent {
  return {
    id: `evt_${String(i).padStart(26, '0')}`,
    type: 'user.created',
    code: 'GH2000I',
    time: new Date(time).toISOString(),
    actor: { kind: 'system' },
    success: true,
  };
}

test('events older than the retention are deleted in batches; the pruning is recorded; one instance works', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-retention-'));
  const backend = openSqliteBackend({ path: join(dir, 'state.db') });
  const store = openSqliteAuditStore({ path: join(dir, 'audit.db') });
  try {
    const now = Date.now();
    await store.append(Array.from({ length: 35 }, (_, i) => event(i, now - 3 * HOUR + i)));
    await store.append(Array.from({ length: 5 }, (_, i) => event(100 + i, now - HOUR / 2 + i)));
    const audit = createAuditLog({ store, clock: () => now });
    const deps = { backend, store, audit, clock: () => now };
    const first = startAuditRetention(deps, { retentionMs: HOUR, batchSize: 10, intervalMs: 60_000, leaseTtlMs: 2000 });
    const second = startAuditRetention(deps, {
      retentionMs: HOUR,
      batchSize: 10,
      intervalMs: 60_000,
      leaseTtlMs: 2000,
    });
    // Stop both runners whatever happens: a live runner would keep the test process alive.
    try {
      // The pruning event is written after the last batch: wait for both, not only the deletions (under
      // a loaded CI machine the gap between them failed this test).
      const deadline = Date.now() + 15_000;
      const leftNow = () => store.query({ types: ['user.created'], limit: 100, countUpTo: 1000 });
      const prunedNow = () => store.query({ types: ['audit.pruned'], limit: 10, countUpTo: 10 });
      let [left, pruned] = await Promise.all([leftNow(), prunedNow()]);
      while ((left.total !== 5 || pruned.total === 0) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 20));
        [left, pruned] = await Promise.all([leftNow(), prunedNow()]);
      }
      assert.equal(left.total, 5, 'only the recent events remain');
      assert.ok(left.events.every((e) => e.id >= 'evt_00000000000000000000000100'));
      // Another instance that pruned too would have written its event by now.
      await new Promise((r) => setTimeout(r, 200));
      pruned = await prunedNow();
      assert.equal(pruned.total, 1, 'one instance pruned, once');
      assert.equal(pruned.events[0]?.data?.deleted, 35);
      assert.equal(pruned.events[0]?.actor.kind, 'system');
      assert.equal([first.held, second.held].filter(Boolean).length, 1, 'exactly one holds the lease');
    } finally {
      await Promise.all([first.stop(), second.stop()]);
    }
  } finally {
    await store.close();
    await backend.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
