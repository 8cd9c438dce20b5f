// Conformance: watch (snapshot, events, ordering, stop) and expiry (read-side hiding, the sweeper).
import assert from 'node:assert/strict';
import { createStateCache } from '../../src/backend/cache.js';
import type { WatchEvent } from '../../src/backend/types.js';
import {
  type BackendCase,
  type BackendConformanceOptions,
  describeEvent,
  eventKey,
  eventRevision,
  record,
  rejectsWith,
  sleep,
} from './helpers.js';

const past = (): number => Date.now() - 1000;

function assertRevisionOrder(events: WatchEvent[], after: number): void {
  let last = after;
  for (const e of events) {
    const revision = eventRevision(e);
    assert.ok(revision > after, `${describeEvent(e)} at ${revision} is newer than the snapshot ${after}`);
    assert.ok(revision >= last, `${describeEvent(e)} at ${revision} follows ${last}`);
    last = revision;
  }
}

export function registerWatchTests(it: BackendCase, options: BackendConformanceOptions): void {
  it('the initial snapshot holds exactly the live items under the watched prefixes', async ({ backend }) => {
    const written = [];
    for (const key of ['u/1', 'u/2', 'r/1', 'ux', 'u', 'other/u/1']) written.push(await backend.put(key, key));
    await backend.put('u/expired', 'x', { expiresAt: past() });
    const { watcher } = await record(backend, ['u/', 'r/']);
    const byKey = new Map(written.map((i) => [i.key, i]));
    const initial = [...watcher.initial].sort((a, b) => (a.key < b.key ? -1 : 1));
    assert.deepEqual(
      initial,
      ['r/1', 'u/1', 'u/2'].map((k) => byKey.get(k)),
    );
    const newest = Math.max(...written.map((i) => i.revision));
    assert.ok(watcher.revision >= newest, `snapshot revision ${watcher.revision} covers ${newest}`);
    watcher.stop();
  });

  it('overlapping prefixes list each item once in the snapshot and deliver each event once', async ({ backend }) => {
    await backend.put('o/a/1', 'x');
    const rec = await record(backend, ['o/', 'o/a/']);
    assert.deepEqual(
      rec.watcher.initial.map((i) => i.key),
      ['o/a/1'],
    );
    const item = await backend.put('o/a/2', 'y');
    await rec.reach(item.revision);
    assert.deepEqual(rec.events.map(describeEvent), ['put o/a/2']);
    rec.watcher.stop();
  });

  it('put and delete events arrive in revision order, and other prefixes are not delivered', async ({ backend }) => {
    await backend.put('w/pre', 'p');
    const rec = await record(backend, ['w/']);
    const a = await backend.put('w/a', '1');
    await backend.put('x/a', 'elsewhere');
    await backend.put('wx', 'not under w/');
    const b = await backend.create('w/b', '1', { expiresAt: Date.now() + 3_600_000 });
    const a2 = await backend.update('w/a', '2');
    await backend.delete('w/pre');
    const c = await backend.compareAndSwap('w/b', b.revision, '2');
    const aw = await backend.atomicWrite(
      [],
      [
        { type: 'delete', key: 'w/a' },
        { type: 'put', key: 'w/c', value: '1' },
        { type: 'put', key: 'x/c', value: '1' },
      ],
    );
    assert.equal(await backend.deleteRange('w/'), 2);
    const last = await backend.put('w/end', 'e');
    await rec.reach(last.revision);
    const seen = rec.events.map(describeEvent);
    seen.splice(7, 2, ...seen.slice(7, 9).sort()); // deleteRange may report its keys in any order
    assert.deepEqual(seen, [
      'put w/a',
      'put w/b',
      'put w/a',
      'delete w/pre',
      'put w/b',
      'delete w/a',
      'put w/c',
      'delete w/b',
      'delete w/c',
      'put w/end',
    ]);
    assertRevisionOrder(rec.events, rec.watcher.revision);
    const puts = rec.events.flatMap((e) => (e.type === 'put' ? [e.item] : []));
    assert.deepEqual(puts.slice(0, 3), [a, b, a2], 'put events carry the written item');
    assert.deepEqual(puts[3], c);
    assert.ok(eventRevision(rec.events[6] as WatchEvent) <= aw);
    rec.watcher.stop();
  });

  it('every acknowledged write reaches the watcher (what the cache waitFor relies on)', async ({ backend }) => {
    const rec = await record(backend, ['']);
    const seenAtResolve: boolean[] = [];
    for (let i = 0; i < 20; i++) {
      const item = await backend.put(`e/${i}`, String(i));
      seenAtResolve.push(rec.events.some((e) => eventRevision(e) >= item.revision));
      await rec.reach(item.revision);
    }
    if (options.inProcessWatch) {
      // In-process guarantee: the listener runs before the write's promise resolves.
      assert.deepEqual(seenAtResolve, Array(20).fill(true));
    }
    const cache = await createStateCache(backend, ['e/']);
    const revision = await backend.atomicWrite([], [{ type: 'put', key: 'e/json', value: '{"n":1}' }]);
    await cache.waitFor(revision);
    assert.deepEqual(cache.get('e/json')?.value, { n: 1 });
    cache.close();
    rec.watcher.stop();
  });

  it('stop() ends delivery to that watcher only', async ({ backend }) => {
    const stopped = await record(backend, ['s/']);
    const sentinel = await record(backend, ['s/']);
    const first = await backend.put('s/1', '1');
    await stopped.reach(first.revision);
    stopped.watcher.stop();
    await backend.put('s/2', '2');
    await backend.delete('s/1');
    const last = await backend.put('s/3', '3');
    await sentinel.reach(last.revision);
    await sleep(20);
    assert.deepEqual(stopped.events.map(describeEvent), ['put s/1']);
    assert.deepEqual(sentinel.events.map(describeEvent), ['put s/1', 'put s/2', 'delete s/1', 'put s/3']);
    sentinel.watcher.stop();
  });

  it('concurrent writes are delivered once each, in strictly increasing revisions per key', async ({ backend }) => {
    const rec = await record(backend, ['c/']);
    const items = await Promise.all(Array.from({ length: 50 }, (_, i) => backend.put(`c/${i % 5}`, String(i))));
    const newest = Math.max(...items.map((i) => i.revision));
    await rec.reach(newest);
    assert.equal(rec.events.length, 50);
    assertRevisionOrder(rec.events, rec.watcher.revision);
    assert.equal(new Set(items.map((i) => i.revision)).size, 50, 'each write has its own revision');
    for (let k = 0; k < 5; k++) {
      const lastEvent = rec.events.filter((e) => eventKey(e) === `c/${k}`).at(-1);
      assert.deepEqual((await backend.get(`c/${k}`))?.revision, lastEvent && eventRevision(lastEvent));
    }
    rec.watcher.stop();
  });
}

export function registerExpiryTests(it: BackendCase): void {
  it('an item whose expiresAt has passed is invisible and treated as absent', async ({ backend }) => {
    await backend.put('x/gone', 'old', { expiresAt: past() });
    await backend.put('x/here', 'live', { expiresAt: Date.now() + 3_600_000 });
    assert.equal(await backend.get('x/gone'), undefined);
    assert.deepEqual(
      (await backend.getRange('x/')).map((i) => i.key),
      ['x/here'],
    );
    await rejectsWith(backend.update('x/gone', 'v'), 'not_found', 'x/gone');
    await rejectsWith(backend.delete('x/gone'), 'not_found', 'x/gone');
    const created = await backend.create('x/gone', 'new');
    assert.equal((await backend.get('x/gone'))?.value, 'new');
    assert.equal(created.expiresAt, undefined);
  });

  it('an item disappears from reads once its expiresAt passes', async ({ backend }) => {
    await backend.put('soon', 'v', { expiresAt: Date.now() + 150 });
    assert.equal((await backend.get('soon'))?.value, 'v');
    await sleep(200);
    assert.equal(await backend.get('soon'), undefined);
    assert.deepEqual(await backend.getRange('so'), []);
  });

  it('deleteRange counts only live items', async ({ backend }) => {
    await backend.put('dr/expired', 'x', { expiresAt: past() });
    await backend.put('dr/live', 'y');
    assert.equal(await backend.deleteRange('dr/'), 1);
    assert.deepEqual(await backend.getRange('dr/'), []);
  });

  it(
    'the sweeper deletes expired items and watchers see the delete',
    async ({ backend }) => {
      const rec = await record(backend, ['ttl/']);
      await backend.put('ttl/past', 'x', { expiresAt: past() });
      await backend.put('ttl/soon', 'x', { expiresAt: Date.now() + 100 });
      const kept = await backend.put('ttl/kept', 'x', { expiresAt: Date.now() + 3_600_000 });
      await rec.sawKey('ttl/past', 'delete');
      await rec.sawKey('ttl/soon', 'delete');
      assertRevisionOrder(rec.events, rec.watcher.revision);
      assert.deepEqual(await backend.getRange('ttl/'), [kept]);
      assert.equal(rec.events.filter((e) => e.type === 'delete').length, 2);
      const after = await backend.put('ttl/new', 'y');
      const deleteRevisions = rec.events.filter((e) => e.type === 'delete').map(eventRevision);
      assert.ok(after.revision > Math.max(...deleteRevisions), 'sweeper deletes take revisions');
      rec.watcher.stop();
    },
    { sweepIntervalMs: 20 },
  );
}
