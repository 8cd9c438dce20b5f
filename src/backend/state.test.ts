// Writes in parts, on the embedded store given etcd-like bounds (4 operations, 3 conditions here): a
// change within the bound is one atomic write; a larger one writes its decisive part under the
// conditions first (nothing at all if they fail), then the rest; a write over the bound is refused
// with the reason instead of reaching the backend.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { createStateCache } from './cache.js';
import { openSqliteBackend } from './sqlite.js';
import { createStateStore } from './state.js';
import type { Backend, Operation } from './types.js';

const dir = mkdtempSync(join(tmpdir(), 'gatehouse-state-'));
const backends: Array<{ close(): Promise<void> }> = [];
after(async () => {
  await Promise.all(backends.map((b) => b.close()));
  rmSync(dir, { recursive: true, force: true });
});

async function bounded(name: string) {
  const backend = openSqliteBackend({ path: join(dir, `${name}.db`) });
  backends.push(backend);
  const writes: number[] = [];
  const counted: Backend = {
    ...backend,
    atomicWrite: (conditions, operations, opts) => {
      writes.push(operations.length);
      return backend.atomicWrite(conditions, operations, opts);
    },
  };
  const state = createStateStore(counted, await createStateCache(backend), { operations: 4, conditions: 3 });
  return { state, writes };
}

const puts = (prefix: string, n: number): Operation[] =>
  Array.from({ length: n }, (_, i) => ({ type: 'put', key: `${prefix}/${i}`, value: '1' }));

test('within the bound a change is one write; beyond it, the decisive part first and the rest in parts', async () => {
  const { state, writes } = await bounded('parts');
  assert.equal(state.maxWriteOperations, 4);
  assert.equal(await state.writeInParts([], puts('small/d', 1), puts('small/c', 3)), 1);
  assert.deepEqual(writes, [4], 'one atomic write');

  await state.insert('gate', { open: true });
  const gate = state.get('gate');
  assert.ok(gate);
  writes.length = 0;
  const parts = await state.writeInParts(
    [{ key: 'gate', revision: gate.revision }],
    puts('big/d', 2),
    puts('big/c', 9),
  );
  assert.equal(parts, 3);
  assert.deepEqual(writes, [4, 4, 3], 'the decisive 2 with 2 of the rest, then 4, then 3');
  assert.equal(state.list('big/d/').length, 2);
  assert.equal(state.list('big/c/').length, 9);
});

test('when the conditions fail, no part is written', async () => {
  const { state } = await bounded('conditions');
  await state.insert('gate', { open: true });
  await assert.rejects(
    state.writeInParts([{ key: 'gate', revision: 999 }], puts('d', 2), puts('c', 9)),
    (e: Error) => e.name === 'BackendError',
  );
  assert.equal(state.list('d/').length + state.list('c/').length, 0);
});

test('a write over the bound is refused with the reason, before it reaches the store', async () => {
  const { state, writes } = await bounded('refused');
  await assert.rejects(
    state.write([], puts('over', 5)),
    /5 operations and 0 conditions exceeds .* \(4 and 3\); write it in parts/,
  );
  await assert.rejects(
    state.write(
      ['a', 'b', 'c', 'd'].map((key) => ({ key, is: 'absent' as const })),
      puts('x', 1),
    ),
    /4 conditions exceeds/,
  );
  await assert.rejects(state.writeInParts([], puts('decisive', 5), []), /5 operations/);
  assert.equal(state.list('over/').length + state.list('decisive/').length, 0);
  assert.deepEqual(writes, [], 'none reached the store');
  await state.write([], puts('fits', 4));
  assert.equal(state.list('fits/').length, 4, 'the positive control: the bound itself is allowed');
});
