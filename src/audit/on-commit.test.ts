// The state write and its audit event overlap: the event is appended once the write committed, while
// the state store still syncs; the caller is answered only once both are durable.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { createStateCache } from '../backend/cache.js';
import { openSqliteBackend } from '../backend/sqlite.js';
import type { SyncFile } from '../backend/sqlite-wal-sync.js';
import { createStateStore } from '../backend/state.js';
import type { AuditLog } from './audit-log.js';
import { eventOnCommit } from './on-commit.js';

const dir = mkdtempSync(join(tmpdir(), 'gatehouse-on-commit-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const tick = () => new Promise((r) => setTimeout(r, 20));

async function setup(name: string) {
  const syncs: Array<(e: Error | null) => void> = [];
  const syncFile: SyncFile = (_fd, callback) => {
    syncs.push(callback);
  };
  const backend = openSqliteBackend({ path: join(dir, `${name}.db`), syncFile });
  const state = createStateStore(backend, await createStateCache(backend));
  const appends: Array<{ resolve: () => void; reject: (e: Error) => void }> = [];
  const audit = {
    record: () => new Promise<void>((resolve, reject) => appends.push({ resolve, reject })),
  } as unknown as AuditLog;
  const releaseSyncs = () => {
    for (const s of syncs.splice(0)) s(null);
  };
  return { backend, state, audit, appends, releaseSyncs };
}

const event = { type: 'agent.created' as const, actor: { kind: 'system' as const } };

test('the event is appended while the write is being synced; the caller waits for both', async () => {
  const { backend, state, audit, appends, releaseSyncs } = await setup('both');
  try {
    const created = eventOnCommit(audit, event);
    let answered = false;
    const request = (async () => {
      await state.write([{ key: 'a', is: 'absent' }], [{ type: 'put', key: 'a', value: '1' }], created);
      await created.done();
      answered = true;
    })();
    await tick();
    assert.equal(appends.length, 1, 'appended before the state sync completed');
    releaseSyncs();
    await tick();
    assert.equal(answered, false, 'the state write is durable, the event not yet');
    appends[0]?.resolve();
    await request;
    assert.equal(answered, true);
  } finally {
    releaseSyncs();
    await backend.close();
  }
});

test('a refused write appends nothing; a failed append fails the request', async () => {
  const { backend, state, audit, appends, releaseSyncs } = await setup('refused');
  try {
    const refused = eventOnCommit(audit, event);
    const write = state.write([{ key: 'missing', is: 'present' }], [{ type: 'put', key: 'b', value: '1' }], refused);
    await tick();
    releaseSyncs();
    await assert.rejects(write, /compare_failed/);
    assert.equal(appends.length, 0, 'no event for a write that did not happen');

    const failing = eventOnCommit(audit, event);
    const request = (async () => {
      await state.write([], [{ type: 'put', key: 'c', value: '1' }], failing);
      await failing.done();
    })();
    await tick();
    appends[0]?.reject(new Error('audit_unavailable'));
    releaseSyncs();
    await assert.rejects(request, /audit_unavailable/);
  } finally {
    releaseSyncs();
    await backend.close();
  }
});
