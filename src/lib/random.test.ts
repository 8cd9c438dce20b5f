import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newRequestId, randomBytes } from './random.js';

test('pooled draws are the size asked, never repeat, and cross pool refills', () => {
  const seen = new Set<string>();
  // 3,000 draws of 14 bytes span ten refills of the 4 KiB pool.
  for (let i = 0; i < 3000; i++) {
    const b = randomBytes(14);
    assert.equal(b.length, 14);
    seen.add(b.toString('hex'));
  }
  assert.equal(seen.size, 3000);
});

test('a draw is a copy: later draws do not change it (the pool is wiped behind it)', () => {
  const first = randomBytes(32);
  const copy = Buffer.from(first);
  for (let i = 0; i < 200; i++) randomBytes(32);
  assert.deepEqual(first, copy);
  assert.notDeepEqual(first, Buffer.alloc(32));
});

test('large draws bypass the pool; zero bytes is an empty buffer', () => {
  assert.equal(randomBytes(4096).length, 4096);
  assert.equal(randomBytes(0).length, 0);
});

test('request ids: req_ and 32 hex digits, distinct', () => {
  const ids = Array.from({ length: 1000 }, newRequestId);
  for (const id of ids) assert.match(id, /^req_[0-9a-f]{32}$/);
  assert.equal(new Set(ids).size, 1000);
});
