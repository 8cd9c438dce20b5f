// Conformance: contention on one key, persistence across close and reopen, and close semantics.
import assert from 'node:assert/strict';
import { describe } from 'node:test';
import { type Backend, BackendError, type Item } from '../../src/backend/types.js';
import type { BackendCase, BackendFixture } from './helpers.js';

function outcomes(results: PromiseSettledResult<Item>[], reason: string): number[] {
  const winners: number[] = [];
  results.forEach((r, i) => {
    if (r.status === 'fulfilled') winners.push(i);
    else {
      assert.ok(r.reason instanceof BackendError, `loser ${i} failed with ${String(r.reason)}`);
      assert.equal(r.reason.reason, reason);
    }
  });
  return winners;
}

/** Closes the fixture's backend and opens the same storage again. */
async function reopen(f: BackendFixture, current: Backend): Promise<Backend> {
  await current.close();
  assert.ok(f.reopen);
  return f.reopen();
}

export function registerLifecycleTests(it: BackendCase): void {
  describe('concurrency', () => {
    it('100 concurrent creates of the same key: exactly one succeeds', async ({ backend }) => {
      const results = await Promise.allSettled(Array.from({ length: 100 }, (_, i) => backend.create('k', String(i))));
      const winners = outcomes(results, 'already_exists');
      assert.equal(winners.length, 1);
      const won = results[winners[0] as number] as PromiseFulfilledResult<Item>;
      assert.deepEqual(await backend.get('k'), won.value);
    });

    it('100 concurrent compareAndSwaps from the same revision: exactly one succeeds', async ({ backend }) => {
      const base = await backend.put('k', 'base');
      const results = await Promise.allSettled(
        Array.from({ length: 100 }, (_, i) => backend.compareAndSwap('k', base.revision, String(i))),
      );
      const winners = outcomes(results, 'compare_failed');
      assert.equal(winners.length, 1);
      const won = results[winners[0] as number] as PromiseFulfilledResult<Item>;
      assert.ok(won.value.revision > base.revision);
      assert.deepEqual(await backend.get('k'), won.value);
    });

    it('100 concurrent puts to distinct keys all land', async ({ backend }) => {
      const items = await Promise.all(Array.from({ length: 100 }, (_, i) => backend.put(`m/${i}`, String(i))));
      assert.equal(new Set(items.map((i) => i.revision)).size, 100);
      const stored = await backend.getRange('m/');
      assert.equal(stored.length, 100);
      for (const item of items) assert.deepEqual(await backend.get(item.key), item);
    });
  });

  describe('lifecycle', () => {
    it('data, revisions and expiry survive close and reopen; new writes continue above', async (f, t) => {
      if (!f.reopen) return t.skip('the fixture has no reopen: not a persistent backend');
      let backend = f.backend;
      const a = await backend.put('p/a', 'a', { expiresAt: Date.now() + 3_600_000 });
      const b = await backend.put('p/b', 'b');
      await backend.put('p/c', 'c');
      await backend.delete('p/c');
      const gone = await backend.put('p/gone', 'x', { expiresAt: Date.now() - 1000 });
      const top = await backend.put('q/top', 'q');
      backend = await reopen(f, backend);
      assert.deepEqual(await backend.getRange('p/'), [a, b]);
      assert.equal(await backend.get('p/gone'), undefined);
      const next = await backend.put('p/d', 'd');
      assert.ok(next.revision > top.revision && next.revision > gone.revision, 'revisions continue after reopen');
      const watcher = await backend.watch(['p/'], () => undefined);
      assert.ok(watcher.revision >= next.revision);
      watcher.stop();
    });

    it('close lets queued writes commit; they are there after reopen', async (f, t) => {
      if (!f.reopen) return t.skip('the fixture has no reopen: not a persistent backend');
      const writes = Array.from({ length: 50 }, (_, i) => f.backend.put(`z/${String(i).padStart(2, '0')}`, String(i)));
      const guarded = assert.rejects(f.backend.create('z/00', 'duplicate'), BackendError);
      await f.backend.close();
      const items = await Promise.all(writes);
      await guarded;
      const backend = await f.reopen();
      assert.deepEqual(await backend.getRange('z/'), items);
    });

    it('close is idempotent and later operations are refused', async ({ backend }) => {
      await backend.put('k', 'v');
      await backend.close();
      await backend.close();
      await assert.rejects(backend.put('k', 'w'));
      await assert.rejects(backend.atomicWrite([], [{ type: 'put', key: 'k', value: 'w' }]));
    });
  });
}
