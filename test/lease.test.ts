// Singleton jobs under a backend lease, on a real SQLite backend: one holder at a time, renewal,
// release on stop, and takeover once a dead holder's lease expires.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { leaseKey, runUnderLease } from '../src/backend/lease.js';
import { openSqliteBackend } from '../src/backend/sqlite.js';
import type { Backend } from '../src/backend/types.js';

let dir: string;
let backend: Backend;

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'gatehouse-lease-'));
  backend = openSqliteBackend({ path: join(dir, 'state.db'), sweepIntervalMs: 50 });
});
after(async () => {
  await backend.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Polls until check() holds (timing under load varies; the bound is generous). */
async function until(check: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting until ${what}`);
    await sleep(10);
  }
}

/** A job that counts how many holders run at once and runs until its signal aborts. */
function tracker() {
  const state = { running: 0, maxRunning: 0, starts: 0 };
  const job = (signal: AbortSignal) =>
    new Promise<void>((resolve) => {
      state.running++;
      state.starts++;
      state.maxRunning = Math.max(state.maxRunning, state.running);
      signal.addEventListener('abort', () => {
        state.running--;
        resolve();
      });
    });
  return { state, job };
}

test('of several contenders exactly one runs, across renewals; stopping hands over at once', async () => {
  const { state, job } = tracker();
  // A TTL long enough that renewals (every TTL/2) stay on time on a busy 2-core machine.
  const runners = [1, 2, 3].map((i) =>
    runUnderLease(backend, 'one', { ttlMs: 1000, retryMs: 50, holder: `h${i}` }, job),
  );
  try {
    await until(() => state.running === 1, 'one contender runs');
    await sleep(1600); // three renewal rounds
    assert.equal(state.running, 1);
    assert.equal(state.maxRunning, 1);
    assert.equal(state.starts, 1, 'the holder kept its lease by renewing it');
    const holder = runners.find((r) => r.held);
    assert.ok(holder);
    const item = await backend.get(leaseKey('one'));
    assert.ok(item?.expiresAt && item.expiresAt > Date.now(), 'the lease carries a TTL');

    await holder.stop();
    await until(() => state.starts === 2 && state.running === 1, 'another contender takes over');
    assert.equal(state.maxRunning, 1);
  } finally {
    for (const r of runners) await r.stop();
  }
  assert.equal(state.running, 0);
  assert.equal(await backend.get(leaseKey('one')), undefined, 'the last holder released the lease');
});

test('a dead holder (its lease left behind, never renewed) is taken over once the lease expires', async () => {
  const expiresAt = Date.now() + 600;
  await backend.create(leaseKey('two'), JSON.stringify({ holder: 'crashed' }), { expiresAt });
  const { state, job } = tracker();
  const runner = runUnderLease(backend, 'two', { ttlMs: 200 }, job);
  try {
    while (Date.now() < expiresAt - 50) {
      assert.equal(state.running, 0, 'not while the dead holder’s lease lasts');
      await sleep(20);
    }
    await until(() => state.running === 1, 'taken over after expiry');
  } finally {
    await runner.stop();
  }
});

test('a holder whose lease was taken from it aborts its job', async () => {
  const { state, job } = tracker();
  const runner = runUnderLease(backend, 'three', { ttlMs: 200 }, job);
  try {
    await until(() => state.running === 1, 'the job runs');
    // Someone else's lease now (as if ours expired during a long pause and another instance took it).
    await backend.put(leaseKey('three'), JSON.stringify({ holder: 'other' }), { expiresAt: Date.now() + 10_000 });
    await until(() => state.running === 0, 'renewal fails the revision check and the job is told to stop');
  } finally {
    await runner.stop();
  }
  assert.match((await backend.get(leaseKey('three')))?.value ?? '', /other/, 'the other holder’s lease is left alone');
});

test('a job that returns on its own releases the lease and runs again later', async () => {
  let runs = 0;
  const runner = runUnderLease(backend, 'four', { ttlMs: 100, retryMs: 20 }, async () => {
    runs++;
  });
  try {
    await until(() => runs >= 2, 'the job runs a second time');
  } finally {
    await runner.stop();
  }
});
