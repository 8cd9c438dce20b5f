// The compactor compacts to the revision seen one interval earlier, never on its first look, and
// takes another instance having compacted further as done; any other failure is its caller's.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startEtcdCompactor } from './etcd-compactor.js';

test('each tick compacts to the revision the previous tick saw; already compacted is not an error', async () => {
  const revisions = ['1', '40', '90', '120', '150'];
  const compacted: string[] = [];
  let failWith: string | undefined;
  const compactor = startEtcdCompactor({
    intervalMs: 60_000,
    currentRevision: async () => revisions.shift() as string,
    compact: async (revision) => {
      if (failWith) throw new Error(failWith);
      compacted.push(revision);
    },
  });
  await compactor.tick(); // sees 1: nothing below it to keep or drop yet
  await compactor.tick(); // sees 40; 1 is the oldest revision there is
  await compactor.tick(); // sees 90, compacts to 40
  assert.deepEqual(compacted, ['40']);
  failWith = 'etcdserver: mvcc: required revision has been compacted';
  await compactor.tick(); // another instance compacted past 90 already
  failWith = 'etcdserver: request timed out';
  await assert.rejects(compactor.tick(), /request timed out/);
  await compactor.stop();
});
