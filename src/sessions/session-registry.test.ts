// What a read of a session shows between its termination and the end its holder writes: the
// counters the holder counted, never the zeros of the start (CI on Node 22, 2026-12-03: a
// port-forward ended by DELETE /v1/sessions/{id} read back as terminated with 0 bytes).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { AuditLog } from '../audit/audit-log.js';
import { createStateCache } from '../backend/cache.js';
import { openSqliteBackend } from '../backend/sqlite.js';
import { createStateStore } from '../backend/state.js';
import { createSessionRegistry, type LiveSession, type SessionRecord } from './session-registry.js';

const dir = mkdtempSync(join(tmpdir(), 'gatehouse-session-registry-'));
const backend = openSqliteBackend({ path: join(dir, 'state.db'), synchronous: 'NORMAL' });
after(async () => {
  await backend.close();
  rmSync(dir, { recursive: true, force: true });
});
const audit = { record: async () => {} } as unknown as AuditLog;

async function registryWithSession(bytesIn: number, bytesOut: number) {
  const registry = createSessionRegistry({
    state: createStateStore(backend, await createStateCache(backend)),
    audit,
    clock: Date.now,
  });
  const terminated: string[] = [];
  const holder = (id: string): LiveSession => ({
    id,
    bytesIn: () => bytesIn,
    bytesOut: () => bytesOut,
    terminate: (message) => terminated.push(message),
  });
  const record = await registry.start(
    {
      kind: 'kube',
      type: 'port_forward',
      principal: { kind: 'user', id: 'user_1', name: 'pat' },
      resource: { kind: 'kube_cluster', id: 'kube_1', name: 'pf-cluster' },
      login: 'gatehouse:user:pat',
      remote_addr: '127.0.0.1',
      recorded: false,
    } as Parameters<typeof registry.start>[0],
    holder,
  );
  const read = (): SessionRecord => registry.withLiveCounters(registry.get(record.id) as SessionRecord);
  return { registry, id: record.id, read, terminated };
}

test('while active, a read shows the holder’s live counters (control)', async () => {
  const { read } = await registryWithSession(15, 20);
  assert.deepEqual([read().status, read().bytes_in, read().bytes_out], ['active', 15, 20]);
});

test('terminated, and while its holder writes the end, a read shows the counted bytes; then the stored ones', async () => {
  const { registry, id, read, terminated } = await registryWithSession(15, 20);
  await registry.terminate(id, 'terminated by admin');
  assert.deepEqual([read().status, read().bytes_in, read().bytes_out], ['terminated', 15, 20]);
  assert.equal(terminated.length, 1, 'the holder was told to end it');

  const ending = registry.end(id, { bytesIn: 15, bytesOut: 20, reason: 'terminated by admin', terminated: true });
  // The end's write is queued, not yet committed: the holder still holds it.
  assert.deepEqual([read().bytes_in, read().bytes_out], [15, 20]);
  assert.equal(registry.isLive(id), true);
  const ended = await ending;
  assert.deepEqual([ended?.status, ended?.bytes_in, ended?.bytes_out], ['terminated', 15, 20]);
  assert.equal(registry.isLive(id), false);
  const stored = registry.get(id);
  assert.deepEqual([stored?.status, stored?.bytes_in, stored?.end_reason], ['terminated', 15, 'terminated by admin']);
});
