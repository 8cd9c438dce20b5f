// The embedded store's durability with its WAL synced off the main thread: nothing is acknowledged
// or published before a sync that began after its commit has completed, and a failed sync refuses
// the writes it covered and every later one (durability unknown), rather than acknowledging them.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { openSqliteBackend } from '../src/backend/sqlite.js';
import type { SyncFile } from '../src/backend/sqlite-wal-sync.js';
import type { WatchEvent } from '../src/backend/types.js';
import { GatehouseError } from '../src/lib/errors.js';
import { eventKey, sleep, tempDir } from './conformance/helpers.js';

const tmp = tempDir('sqlite-sync');
after(() => tmp.remove());
let n = 0;
const freshPath = (): string => join(tmp.dir, `state-${n++}.db`);

/** A sync that waits for release(); each call is counted. */
function gatedSync(): { syncFile: SyncFile; release(error?: Error): void; calls(): number } {
  const pending: Array<(error: Error | null) => void> = [];
  let calls = 0;
  return {
    syncFile: (_fd, callback) => {
      calls++;
      pending.push(callback);
    },
    release(error) {
      for (const callback of pending.splice(0)) callback(error ?? null);
    },
    calls: () => calls,
  };
}

test('a write is acknowledged and published only after the WAL sync that covers it', async () => {
  const gate = gatedSync();
  const backend = openSqliteBackend({ path: freshPath(), syncFile: gate.syncFile });
  const rec = { events: [] as WatchEvent[], revisions: [] as number[] };
  await backend.watch([''], (batch, revision) => {
    rec.events.push(...batch);
    rec.revisions.push(revision);
  });
  let firstDone = false;
  const first = backend.put('a', '1').then((item) => {
    firstDone = true;
    return item;
  });
  await sleep(30);
  assert.equal(gate.calls(), 1, 'the first batch started a sync');
  assert.equal(firstDone, false, 'not acknowledged while its sync runs');
  assert.deepEqual(rec.events, [], 'not published while its sync runs');

  // Committed while the first sync runs: covered by the next sync, not the running one.
  let secondDone = false;
  const second = backend.put('b', '2').then((item) => {
    secondDone = true;
    return item;
  });
  await sleep(30);
  gate.release();
  const a = await first;
  await sleep(30);
  assert.equal(secondDone, false, 'the second write waits for a sync that began after its commit');
  assert.equal(gate.calls(), 2);
  assert.deepEqual(rec.events.map(eventKey), ['a']);
  assert.equal(rec.revisions.at(-1), a.revision, 'watchers hear the first batch with its own revision');
  gate.release();
  const b = await second;
  assert.ok(b.revision > a.revision);
  assert.equal(rec.revisions.at(-1), b.revision);
  gate.release();
  await backend.close();
});

test('many writers during one sync share the next one (group commit across batches)', async () => {
  const gate = gatedSync();
  const backend = openSqliteBackend({ path: freshPath(), syncFile: gate.syncFile });
  const first = backend.put('k0', 'v');
  await sleep(20);
  const rest = Array.from({ length: 50 }, (_, i) => backend.put(`k${i + 1}`, 'v'));
  await sleep(50);
  gate.release();
  await first;
  await sleep(20);
  gate.release();
  await Promise.all(rest);
  assert.equal(gate.calls(), 2, '51 writes, two syncs');
  await backend.close();
});

test('a failed sync refuses the writes it covered and every later one (positive control first)', async () => {
  const gate = gatedSync();
  const path = freshPath();
  const backend = openSqliteBackend({ path, syncFile: gate.syncFile });
  const ok = backend.put('ok', '1');
  await sleep(20);
  gate.release();
  assert.equal((await ok).key, 'ok', 'positive control: a synced write is acknowledged');

  const doomed = backend.put('doomed', '1');
  await sleep(20);
  gate.release(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' }));
  await assert.rejects(doomed, (e: unknown) => e instanceof GatehouseError && e.code === 'state_unavailable');
  await assert.rejects(
    backend.put('later', '1'),
    (e: unknown) => e instanceof GatehouseError && e.code === 'state_unavailable',
  );
  await assert.rejects(backend.ping(), /state store/);
  await backend.close();
});

test('with the default sync, a write survives reopening the file', async () => {
  const path = freshPath();
  const backend = openSqliteBackend({ path });
  await backend.put('k', 'durable');
  await backend.close();
  const again = openSqliteBackend({ path });
  assert.equal((await again.get('k'))?.value, 'durable');
  await again.close();
});

test('close waits for a write queued while the last sync ran: committed, synced, acknowledged', async () => {
  const gate = gatedSync();
  const path = freshPath();
  const backend = openSqliteBackend({ path, syncFile: gate.syncFile });
  const first = backend.put('a', '1');
  await sleep(20);
  const closing = backend.close();
  const second = backend.put('b', '2');
  const releaser = setInterval(() => gate.release(), 10);
  await Promise.all([first, second, closing]);
  clearInterval(releaser);
  assert.ok(gate.calls() >= 2, 'the late write had a sync of its own');
  const again = openSqliteBackend({ path });
  assert.deepEqual([(await again.get('a'))?.value, (await again.get('b'))?.value], ['1', '2']);
  await again.close();
});

test('onCommitted runs when the write has committed, before its sync completes; a refused write never calls it', async () => {
  const gate = gatedSync();
  const backend = openSqliteBackend({ path: freshPath(), syncFile: gate.syncFile });
  try {
    const told: string[] = [];
    let done = false;
    const write = backend
      .atomicWrite([{ key: 'k', is: 'absent' }], [{ type: 'put', key: 'k', value: '1' }], {
        onCommitted: () => told.push('k committed'),
      })
      .then(() => {
        done = true;
      });
    const refused = backend.atomicWrite(
      [{ key: 'nothing-here', is: 'present' }],
      [{ type: 'put', key: 'x', value: '1' }],
      {
        onCommitted: () => told.push('x committed'),
      },
    );
    await sleep(30);
    assert.deepEqual(told, ['k committed'], 'told at commit, the refused write never');
    assert.equal(done, false, 'while the sync runs, the write is not acknowledged');
    gate.release();
    await write;
    await assert.rejects(refused, /compare_failed/);
    assert.equal(done, true);
    assert.deepEqual(told, ['k committed'], 'told once');
  } finally {
    gate.release();
    await backend.close();
  }
});
