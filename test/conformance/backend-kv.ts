// Conformance: single-key operations, ranges and atomicWrite.
import assert from 'node:assert/strict';
import type { Backend, Item } from '../../src/backend/types.js';
import { type BackendCase, byCodePoint, rejectsWith } from './helpers.js';

const keys = (items: Item[]): string[] => items.map((i) => i.key);
const future = (): number => Date.now() + 3_600_000;

export function registerSingleKeyTests(it: BackendCase): void {
  it('get of a missing key is undefined; ping answers', async ({ backend }) => {
    assert.equal(await backend.get('nope'), undefined);
    await backend.ping();
  });

  it('put stores and returns the item; a second put overwrites with a higher revision', async ({ backend }) => {
    const first = await backend.put('k', 'v1');
    assert.deepEqual(first, { key: 'k', value: 'v1', revision: first.revision });
    assert.deepEqual(await backend.get('k'), first);
    const second = await backend.put('k', 'v2');
    assert.equal(second.value, 'v2');
    assert.ok(second.revision > first.revision, `${second.revision} > ${first.revision}`);
    assert.deepEqual(await backend.get('k'), second);
  });

  it('values round-trip exactly (empty, unicode, JSON, 200 KB)', async ({ backend }) => {
    const values = ['', 'naïve 🚪 "quoted" \\ end', JSON.stringify({ a: [1, { b: 'c' }] }), 'x'.repeat(200_000)];
    for (const [i, value] of values.entries()) await backend.put(`v/${i}`, value);
    for (const [i, value] of values.entries()) assert.equal((await backend.get(`v/${i}`))?.value, value);
  });

  it('expiresAt is stored and returned; a put without it clears the expiry', async ({ backend }) => {
    const at = future();
    const item = await backend.put('t', 'v', { expiresAt: at });
    assert.equal(item.expiresAt, at);
    assert.equal((await backend.get('t'))?.expiresAt, at);
    await backend.put('t', 'v2');
    const after = await backend.get('t');
    assert.equal(after?.value, 'v2');
    assert.equal(after?.expiresAt, undefined);
  });

  it('create writes an absent key and fails with already_exists on a present one', async ({ backend }) => {
    const created = await backend.create('c', 'one');
    assert.deepEqual(created, { key: 'c', value: 'one', revision: created.revision });
    await rejectsWith(backend.create('c', 'two'), 'already_exists', 'c');
    assert.deepEqual(await backend.get('c'), created);
  });

  it('update fails with not_found on an absent key and replaces a present one', async ({ backend }) => {
    await rejectsWith(backend.update('u', 'x'), 'not_found', 'u');
    assert.equal(await backend.get('u'), undefined);
    const before = await backend.put('u', 'one');
    const updated = await backend.update('u', 'two');
    assert.equal(updated.value, 'two');
    assert.ok(updated.revision > before.revision);
    assert.deepEqual(await backend.get('u'), updated);
  });

  it('compareAndSwap succeeds only at the expected revision and bumps it', async ({ backend }) => {
    await rejectsWith(backend.compareAndSwap('s', 1, 'x'), 'compare_failed', 's');
    assert.equal(await backend.get('s'), undefined);
    const v1 = await backend.put('s', 'one');
    await rejectsWith(backend.compareAndSwap('s', v1.revision + 1000, 'x'), 'compare_failed', 's');
    assert.deepEqual(await backend.get('s'), v1);
    const v2 = await backend.compareAndSwap('s', v1.revision, 'two');
    assert.equal(v2.value, 'two');
    assert.ok(v2.revision > v1.revision);
    await rejectsWith(backend.compareAndSwap('s', v1.revision, 'three'), 'compare_failed', 's');
    assert.deepEqual(await backend.get('s'), v2);
  });

  it('delete removes a present key and fails with not_found on an absent one', async ({ backend }) => {
    await rejectsWith(backend.delete('d'), 'not_found', 'd');
    await backend.put('d', 'x');
    await backend.put('d2', 'y');
    await backend.delete('d');
    assert.equal(await backend.get('d'), undefined);
    assert.equal((await backend.get('d2'))?.value, 'y');
    await rejectsWith(backend.delete('d'), 'not_found', 'd');
    const again = await backend.create('d', 'back');
    assert.equal(again.value, 'back');
  });

  it('every write takes a strictly higher revision, and get reports the written revision', async ({ backend }) => {
    const revisions: number[] = [];
    revisions.push((await backend.put('r/a', '1')).revision);
    revisions.push((await backend.create('r/b', '1')).revision);
    revisions.push((await backend.update('r/a', '2')).revision);
    const current = revisions[2] as number;
    revisions.push((await backend.compareAndSwap('r/a', current, '3')).revision);
    await backend.delete('r/b');
    revisions.push(await backend.atomicWrite([], [{ type: 'put', key: 'r/c', value: '1' }]));
    revisions.push((await backend.put('r/b', 'again')).revision);
    for (let i = 1; i < revisions.length; i++) {
      assert.ok((revisions[i] as number) > (revisions[i - 1] as number), `revisions ${revisions.join(', ')}`);
    }
    assert.equal((await backend.get('r/a'))?.revision, revisions[3]);
    assert.equal((await backend.get('r/b'))?.revision, revisions[5]);
  });
}

async function putAll(backend: Backend, list: string[]): Promise<void> {
  for (const key of list) await backend.put(key, `value of ${key}`);
}

export function registerRangeTests(it: BackendCase): void {
  const tricky = ['a', 'a/', 'a/b', 'a/b/c', 'a/bc', 'a/c', 'a0', 'a.', 'ab', 'ab/x', 'b', '`', 'a%', 'a_', 'a_/x'];

  it('getRange returns exactly the keys that start with the prefix, in key order', async ({ backend }) => {
    await putAll(backend, [...tricky].reverse());
    const expect = (prefix: string) => tricky.filter((k) => k.startsWith(prefix)).sort(byCodePoint);
    for (const prefix of ['a/', 'a/b', 'a/b/', 'ab', 'a', 'a%', 'a_', 'a_/', 'zz']) {
      assert.deepEqual(keys(await backend.getRange(prefix)), expect(prefix), `prefix ${JSON.stringify(prefix)}`);
    }
    assert.deepEqual(keys(await backend.getRange('')), [...tricky].sort(byCodePoint));
    const one = await backend.getRange('a/b/');
    assert.deepEqual(one, [await backend.get('a/b/c')]);
  });

  it('getRange includes keys with any characters after the prefix (accents, emoji, U+FFFF)', async ({ backend }) => {
    const wanted = ['n/z', 'n/é', 'n/\uffff', 'n/\uffffz', 'n/🚪', 'n/𝔸'];
    await putAll(backend, [...wanted, 'n', 'm/🚪', 'o/']);
    assert.deepEqual(keys(await backend.getRange('n/')), [...wanted].sort(byCodePoint));
    assert.equal(await backend.deleteRange('n/'), wanted.length);
    assert.deepEqual(keys(await backend.getRange('n/')), []);
  });

  it('limit and startKey page through a prefix without gaps or leakage', async ({ backend }) => {
    const inside = Array.from({ length: 10 }, (_, i) => `p/${String(i).padStart(2, '0')}`);
    await putAll(backend, [...inside, 'p', 'o/99', 'q/00', 'p0']);
    assert.deepEqual(keys(await backend.getRange('p/', { limit: 3 })), inside.slice(0, 3));
    assert.deepEqual(keys(await backend.getRange('p/', { startKey: 'p/05' })), inside.slice(5));
    assert.deepEqual(keys(await backend.getRange('p/', { startKey: 'p/045', limit: 2 })), ['p/05', 'p/06']);
    assert.deepEqual(keys(await backend.getRange('p/', { startKey: 'a' })), inside, 'startKey before the prefix');
    assert.deepEqual(keys(await backend.getRange('p/', { startKey: 'p0' })), [], 'startKey after the prefix');
    // Paging by inclusive startKey: each page starts at the previous page's last key.
    const pages: string[] = [];
    let startKey: string | undefined;
    for (;;) {
      const page = keys(await backend.getRange('p/', { limit: 4, ...(startKey ? { startKey } : {}) }));
      pages.push(...(startKey ? page.slice(1) : page));
      if (page.length < 4) break;
      startKey = page[page.length - 1];
    }
    assert.deepEqual(pages, inside);
  });

  it('limit counts only live items: expired items do not shorten a page', async ({ backend }) => {
    await backend.put('x/1', 'gone', { expiresAt: Date.now() - 1000 });
    await backend.put('x/2', 'gone', { expiresAt: Date.now() - 1000 });
    await putAll(backend, ['x/3', 'x/4', 'x/5']);
    assert.deepEqual(keys(await backend.getRange('x/', { limit: 2 })), ['x/3', 'x/4']);
  });

  it('deleteRange removes only keys under the prefix and returns how many', async ({ backend }) => {
    await putAll(backend, tricky);
    assert.equal(await backend.deleteRange('a/b'), 3);
    assert.deepEqual(keys(await backend.getRange('a/')), ['a/', 'a/c']);
    assert.equal(await backend.deleteRange('a_'), 2);
    assert.equal((await backend.get('ab'))?.value, 'value of ab');
    assert.equal(await backend.deleteRange('a/'), 2);
    assert.equal(await backend.deleteRange('a/'), 0);
    assert.equal(await backend.deleteRange('nothing/'), 0);
    const left = tricky.filter((k) => !k.startsWith('a/') && !k.startsWith('a_')).sort(byCodePoint);
    assert.deepEqual(keys(await backend.getRange('')), left);
  });
}

export function registerAtomicTests(it: BackendCase): void {
  it('applies every put and delete and returns the revision of the write', async ({ backend }) => {
    const before = await backend.put('w/old', 'x');
    const revision = await backend.atomicWrite(
      [{ key: 'w/new', is: 'absent' }],
      [
        { type: 'put', key: 'w/new', value: 'n' },
        { type: 'put', key: 'w/idx', value: 'i', expiresAt: future() },
        { type: 'delete', key: 'w/old' },
        { type: 'put', key: 'w/last', value: 'l' },
      ],
    );
    assert.ok(revision > before.revision);
    assert.equal(await backend.get('w/old'), undefined);
    const written = await backend.getRange('w/');
    assert.deepEqual(keys(written), ['w/idx', 'w/last', 'w/new']);
    for (const item of written) assert.ok(item.revision > before.revision && item.revision <= revision);
    assert.equal(Math.max(...written.map((i) => i.revision)), revision, 'the returned revision covers the write');
    assert.ok((await backend.get('w/idx'))?.expiresAt);
  });

  it('a failing condition writes nothing and names the key', async ({ backend }) => {
    const a = await backend.put('c/a', 'a');
    const b = await backend.put('c/b', 'b');
    const write = (conditions: Parameters<Backend['atomicWrite']>[0]) =>
      backend.atomicWrite(conditions, [
        { type: 'put', key: 'c/new', value: 'n' },
        { type: 'put', key: 'c/a', value: 'changed' },
        { type: 'delete', key: 'c/b' },
      ]);
    await rejectsWith(
      write([
        { key: 'c/new', is: 'absent' },
        { key: 'c/a', is: 'absent' },
      ]),
      'compare_failed',
      'c/a',
    );
    await rejectsWith(
      write([
        { key: 'c/a', is: 'present' },
        { key: 'c/zz', is: 'present' },
      ]),
      'compare_failed',
      'c/zz',
    );
    await rejectsWith(write([{ key: 'c/b', revision: b.revision + 1 }]), 'compare_failed', 'c/b');
    await rejectsWith(write([{ key: 'c/new', revision: a.revision }]), 'compare_failed', 'c/new');
    assert.deepEqual(await backend.getRange('c/'), [a, b]);
    const next = await backend.put('c/z', 'z');
    assert.ok(next.revision > b.revision);
  });

  it('absent, present and revision conditions pass when they hold', async ({ backend }) => {
    const a = await backend.put('h/a', 'a');
    await backend.put('h/b', 'b');
    const revision = await backend.atomicWrite(
      [
        { key: 'h/none', is: 'absent' },
        { key: 'h/b', is: 'present' },
        { key: 'h/a', revision: a.revision },
      ],
      [{ type: 'put', key: 'h/a', value: 'a2' }],
    );
    const now = await backend.get('h/a');
    assert.equal(now?.value, 'a2');
    assert.equal(now?.revision, revision);
    await rejectsWith(
      backend.atomicWrite([{ key: 'h/a', revision: a.revision }], [{ type: 'put', key: 'h/a', value: 'a3' }]),
      'compare_failed',
      'h/a',
    );
  });

  it('an expired key counts as absent for conditions', async ({ backend }) => {
    const old = await backend.put('e/k', 'old', { expiresAt: Date.now() - 1000 });
    await rejectsWith(
      backend.atomicWrite([{ key: 'e/k', is: 'present' }], [{ type: 'put', key: 'e/x', value: '1' }]),
      'compare_failed',
      'e/k',
    );
    await rejectsWith(
      backend.atomicWrite([{ key: 'e/k', revision: old.revision }], [{ type: 'put', key: 'e/x', value: '1' }]),
      'compare_failed',
      'e/k',
    );
    await backend.atomicWrite([{ key: 'e/k', is: 'absent' }], [{ type: 'put', key: 'e/k', value: 'new' }]);
    assert.equal((await backend.get('e/k'))?.value, 'new');
    assert.equal(await backend.get('e/x'), undefined);
  });

  it('100 concurrent atomicWrites guarded by the same absent condition: exactly one applies', async ({ backend }) => {
    const results = await Promise.allSettled(
      Array.from({ length: 100 }, (_, i) =>
        backend.atomicWrite([{ key: 'once', is: 'absent' }], [{ type: 'put', key: 'once', value: String(i) }]),
      ),
    );
    const won = results.flatMap((r, i) => (r.status === 'fulfilled' ? [i] : []));
    assert.equal(won.length, 1);
    assert.equal((await backend.get('once'))?.value, String(won[0]));
  });
}
