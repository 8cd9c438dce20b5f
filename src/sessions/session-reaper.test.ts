// The reaper's rule: a session is ended only when its instance held no lease on two passes in a row,
// so an instance whose lease lapsed while the store was unreachable keeps its live sessions.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { openSqliteBackend } from '../backend/sqlite.js';
import { reapOnce, startSessionReaper } from './session-reaper.js';
import type { SessionRecord, SessionRegistry } from './session-registry.js';

const dir = mkdtempSync(join(tmpdir(), 'gatehouse-reaper-'));
const backend = openSqliteBackend({ path: join(dir, 'state.db') });
after(async () => {
  await backend.close();
  rmSync(dir, { recursive: true, force: true });
});

const session = (id: string, instance: string) => ({ id, instance, status: 'active' }) as SessionRecord;
/** The registry's two calls the reaper makes; endOrphaned records what it was asked to end. */
function registry(records: SessionRecord[]) {
  const ended: string[] = [];
  const fake = {
    list: () => records.filter((r) => !ended.includes(r.id)),
    endOrphaned: async (ids: string[]) => {
      ended.push(...ids);
      return records.filter((r) => ids.includes(r.id));
    },
  } as unknown as SessionRegistry;
  return { fake, ended };
}
const lease = (instance: string) =>
  backend.put(`locks/instances/${instance}`, JSON.stringify({ holder: 'test', instance }), {
    expiresAt: Date.now() + 60_000,
  });

test('a session is ended on the second pass that finds its instance without a lease, not the first', async () => {
  await lease('alive');
  const { fake, ended } = registry([session('s1', 'alive'), session('s2', 'gone')]);
  const suspects = new Set<string>();
  assert.deepEqual(await reapOnce({ backend, sessions: fake }, suspects), []);
  assert.deepEqual(await reapOnce({ backend, sessions: fake }, suspects), ['s2']);
  assert.deepEqual(ended, ['s2'], 'the session of the live instance stays (positive control)');
});

test('an instance that takes its lease again between two passes keeps its sessions', async () => {
  const { fake, ended } = registry([session('s3', 'back')]);
  const suspects = new Set<string>();
  assert.deepEqual(await reapOnce({ backend, sessions: fake }, suspects), []);
  await lease('back'); // the store was back, and the instance renewed
  assert.deepEqual(await reapOnce({ backend, sessions: fake }, suspects), []);
  await backend.delete('locks/instances/back');
  assert.deepEqual(await reapOnce({ backend, sessions: fake }, suspects), []);
  assert.deepEqual(await reapOnce({ backend, sessions: fake }, suspects), ['s3']);
  assert.deepEqual(ended, ['s3']);
});

test('a reaper that runs pass after pass under one lease does not pile listeners on its signal', async () => {
  // Each pause used to add an abort listener that stayed: after 10, Node warned of a leak, and a
  // reaper holding its lease for days held one listener per 5 s pass.
  const warnings: string[] = [];
  const onWarning = (w: Error) => warnings.push(w.name);
  process.on('warning', onWarning);
  let passes = 0;
  const { fake } = registry([]);
  const counting = {
    ...fake,
    list: () => {
      passes++;
      return fake.list();
    },
  } as SessionRegistry;
  const reaper = startSessionReaper({ backend, sessions: counting }, { intervalMs: 1 });
  try {
    while (passes < 30) await new Promise((r) => setTimeout(r, 5));
    await new Promise((r) => setImmediate(r));
  } finally {
    await reaper.stop();
    process.off('warning', onWarning);
  }
  assert.ok(passes >= 30, `${passes} passes`);
  assert.deepEqual(warnings, []);
});
