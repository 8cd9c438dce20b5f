// The watch-fed StateCache over the SQLite backend.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { type CachedItem, createStateCache, type StateCache } from '../src/backend/cache.js';
import { openSqliteBackend } from '../src/backend/sqlite.js';
import type { Backend } from '../src/backend/types.js';
import { eventually, sleep, tempDir } from './conformance/helpers.js';

const json = (v: unknown): string => JSON.stringify(v);
const keysOf = (items: readonly CachedItem[]): string[] => items.map((i) => i.key);

/** Resolves to 'resolved' if p settles within ms, else 'pending'. */
async function settlesWithin(p: Promise<unknown>, ms: number): Promise<'resolved' | 'pending'> {
  return Promise.race([p.then(() => 'resolved' as const), sleep(ms).then(() => 'pending' as const)]);
}

describe('StateCache over the sqlite backend', () => {
  let tmp: ReturnType<typeof tempDir>;
  let backend: Backend;
  const caches: StateCache[] = [];
  const cacheOf = async (prefixes?: string[]): Promise<StateCache> => {
    const cache = await createStateCache(backend, prefixes);
    caches.push(cache);
    return cache;
  };

  beforeEach(() => {
    tmp = tempDir('cache');
    backend = openSqliteBackend({ path: join(tmp.dir, 'state.db'), sweepIntervalMs: 60_000 });
  });
  afterEach(async () => {
    for (const cache of caches.splice(0)) cache.close();
    await backend.close();
    tmp.remove();
  });

  test('fills from the backend on creation, with parsed values and the current revision', async () => {
    const a = await backend.put('users/alice', json({ name: 'Alice', roles: ['admin'] }));
    const exp = Date.now() + 3_600_000;
    await backend.put('users/bob', json({ name: 'Bob' }), { expiresAt: exp });
    await backend.put('roles/admin', json({ allow: ['*'] }));
    await backend.put('gone', json(1), { expiresAt: Date.now() - 1000 });
    const last = await backend.put('users/carol', json(null));
    await backend.delete('users/carol');
    const cache = await cacheOf();
    assert.deepEqual(cache.get('users/alice'), {
      key: 'users/alice',
      value: { name: 'Alice', roles: ['admin'] },
      revision: a.revision,
    });
    assert.equal(cache.get('users/bob')?.expiresAt, exp);
    assert.deepEqual(cache.get('roles/admin')?.value, { allow: ['*'] });
    assert.equal(cache.get('users/carol'), undefined);
    assert.equal(cache.get('gone'), undefined);
    assert.ok(cache.revision > last.revision, 'the revision includes the delete');
  });

  test('puts and deletes are reflected once waitFor(revision) resolves', async () => {
    const cache = await cacheOf();
    const item = await backend.put('k', json({ v: 1 }));
    await cache.waitFor(item.revision);
    assert.deepEqual(cache.get('k'), { key: 'k', value: { v: 1 }, revision: item.revision });
    const revision = await backend.atomicWrite(
      [{ key: 'k', revision: item.revision }],
      [
        { type: 'delete', key: 'k' },
        { type: 'put', key: 'k2', value: json('two') },
      ],
    );
    await cache.waitFor(revision);
    assert.equal(cache.get('k'), undefined);
    assert.equal(cache.get('k2')?.value, 'two');
    assert.equal(cache.revision, revision);
  });

  test('list(prefix) is sorted, respects prefix boundaries and follows changes', async () => {
    for (const key of ['a/c', 'a/a', 'ab', 'a/b/x', 'a', 'b/1']) await backend.put(key, json(key));
    const cache = await cacheOf();
    const before = cache.list('a/');
    assert.deepEqual(keysOf(before), ['a/a', 'a/b/x', 'a/c']);
    assert.equal(cache.list('a/'), before, 'an unchanged listing is reused');
    assert.deepEqual(keysOf(cache.list('a/b')), ['a/b/x']);
    assert.deepEqual(keysOf(cache.list('zzz')), []);
    const bList = cache.list('b/');
    await cache.waitFor((await backend.put('a/0', json('new'))).revision);
    assert.deepEqual(keysOf(cache.list('a/')), ['a/0', 'a/a', 'a/b/x', 'a/c']);
    assert.deepEqual(keysOf(before), ['a/a', 'a/b/x', 'a/c'], 'a listing already handed out is not mutated');
    assert.equal(cache.list('b/'), bList, 'listings of other prefixes are kept');
    const updated = await backend.put('a/a', json('changed'));
    await cache.waitFor(updated.revision);
    assert.equal(cache.list('a/')[1]?.value, 'changed');
    await backend.delete('a/c');
    const last = await backend.put('zzz/1', json(1));
    await cache.waitFor(last.revision);
    assert.deepEqual(keysOf(cache.list('a/')), ['a/0', 'a/a', 'a/b/x']);
    assert.deepEqual(keysOf(cache.list('zzz')), ['zzz/1']);
    assert.deepEqual(keysOf(cache.list('')), ['a', 'a/0', 'a/a', 'a/b/x', 'ab', 'b/1', 'zzz/1']);
  });

  test('waitFor resolves at once for seen revisions and waits for future ones', async () => {
    const cache = await cacheOf();
    const first = await backend.put('x', json(1));
    assert.equal(await settlesWithin(cache.waitFor(first.revision), 50), 'resolved');
    assert.equal(await settlesWithin(cache.waitFor(0), 50), 'resolved');
    const later = cache.waitFor(first.revision + 2);
    const nearer = cache.waitFor(first.revision + 1);
    assert.equal(await settlesWithin(later, 30), 'pending');
    await backend.put('y', json(2));
    assert.equal(await settlesWithin(nearer, 50), 'resolved');
    assert.equal(await settlesWithin(later, 30), 'pending');
    await backend.put('z', json(3));
    assert.equal(await settlesWithin(later, 50), 'resolved');
  });

  test('waitFor resolves for a write outside the watched prefixes', async () => {
    const cache = await cacheOf(['users/']);
    const outside = await backend.put('sessions/1', json(1));
    assert.equal(cache.get('sessions/1'), undefined);
    assert.equal(await settlesWithin(cache.waitFor(outside.revision), 500), 'resolved');
  });

  test('onChange listeners see each put and delete; unsubscribing stops them', async () => {
    const cache = await cacheOf(['u/']);
    const seen: Array<[string, unknown]> = [];
    const other: string[] = [];
    const off = cache.onChange((key, item) => seen.push([key, item?.value]));
    cache.onChange((key) => other.push(key));
    const a = await backend.put('u/a', json('A'));
    await backend.put('elsewhere', json('x'));
    await backend.update('u/a', json('A2'));
    await backend.delete('u/a');
    assert.deepEqual(seen, [
      ['u/a', 'A'],
      ['u/a', 'A2'],
      ['u/a', undefined],
    ]);
    off();
    const b = await backend.put('u/b', json('B'));
    await cache.waitFor(b.revision);
    assert.equal(seen.length, 3);
    assert.deepEqual(other, ['u/a', 'u/a', 'u/a', 'u/b']);
    assert.ok(b.revision > a.revision);
  });

  test('expired items are hidden from get and list alike', async () => {
    const cache = await cacheOf();
    await backend.put('t/live', json(1));
    const soon = await backend.put('t/soon', json(2), { expiresAt: Date.now() + 100 });
    await cache.waitFor(soon.revision);
    assert.deepEqual(keysOf(cache.list('t/')), ['t/live', 't/soon']);
    await sleep(150);
    assert.equal(cache.get('t/soon'), undefined);
    assert.deepEqual(keysOf(cache.list('t/')), ['t/live']);
  });

  test('the sweeper removes expired items from the cache', async () => {
    const sweeping = openSqliteBackend({ path: join(tmp.dir, 'sweep.db'), sweepIntervalMs: 20 });
    const cache = await createStateCache(sweeping);
    try {
      await sweeping.put('s/1', json(1), { expiresAt: Date.now() + 1000 });
      await sweeping.put('s/2', json(2));
      assert.deepEqual(keysOf(cache.list('s/')), ['s/1', 's/2']);
      await eventually(() => cache.list('s/').length === 1, 'the sweeper delete reaches the cache');
      assert.deepEqual(keysOf(cache.list('s/')), ['s/2']);
    } finally {
      cache.close();
      await sweeping.close();
    }
  });

  test('close stops updates', async () => {
    const cache = await cacheOf();
    const calls: string[] = [];
    cache.onChange((key) => calls.push(key));
    const a = await backend.put('a', json(1));
    cache.close();
    await backend.put('b', json(2));
    assert.equal(cache.get('b'), undefined);
    assert.equal(cache.revision, a.revision);
    assert.deepEqual(calls, ['a']);
  });
});
