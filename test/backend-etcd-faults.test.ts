// The etcd backend under etcd's own faults, on a real 3-member cluster: a watch that etcd compacted
// past resyncs and its consumer ends with exactly the store's state; the leader killed mid-load loses
// no acknowledged write; with two members down a write fails fast with the stable state_unavailable
// (nothing half-done) and the store works again when they return.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { openEtcdBackend } from '../src/backend/etcd.js';
import type { Backend, WatchEvent } from '../src/backend/types.js';
import { GatehouseError } from '../src/lib/errors.js';
import { type EtcdCluster, type EtcdMember, startEtcd } from './helpers/etcd.js';
import { until } from './helpers/until.js';

let etcd: EtcdCluster;
const opened: Backend[] = [];
const open = (members: EtcdMember[], prefix: string, callTimeoutMs = 2000) => {
  const backend = openEtcdBackend({ hosts: members.map((m) => m.clientUrl), prefix, callTimeoutMs });
  opened.push(backend);
  return backend;
};
const members = () => etcd.members;

before(async () => {
  etcd = await startEtcd(3);
});
after(async () => {
  await Promise.allSettled(opened.map((b) => b.close()));
  await etcd?.close();
});

async function status(member: EtcdMember): Promise<{ id: string; leader: string; revision: number }> {
  const res = await fetch(`${member.clientUrl}/v3/maintenance/status`, { method: 'POST', body: '{}' });
  const body = (await res.json()) as { header: { member_id: string; revision: string }; leader: string };
  return { id: body.header.member_id, leader: body.leader, revision: Number(body.header.revision) };
}

/** The member that leads now (asked of each; a member that is down does not answer). */
async function leader(): Promise<EtcdMember> {
  return until('a leader', async () => {
    const seen = await Promise.all(members().map((m) => status(m).catch(() => undefined)));
    const leaderId = seen.find((s) => s && s.leader !== '0')?.leader;
    const i = seen.findIndex((s) => s?.id === leaderId);
    return i >= 0 ? members()[i] : undefined;
  });
}

describe('etcd backend under faults', () => {
  test('a watch compacted past while its member was down resyncs: the consumer ends with the store’s state', async () => {
    const [m0, m1, m2] = members() as [EtcdMember, EtcdMember, EtcdMember];
    const writer = open([m1, m2], '/compact/');
    for (let i = 0; i < 20; i++) await writer.put(`k/${i}`, `v${i}`);
    // The watcher talks to m0 only, so stopping m0 cuts its watch while the others go on.
    const watcher = open([m0], '/compact/');
    const view = new Map<string, string>();
    let resyncs = 0;
    const w = await watcher.watch(['k/'], (events: WatchEvent[]) => {
      if (events.length > 3) resyncs += 1;
      for (const e of events) {
        if (e.type === 'put') view.set(e.item.key, e.item.value);
        else view.delete(e.key);
      }
    });
    for (const item of w.initial) view.set(item.key, item.value);
    assert.equal(view.size, 20, 'positive control: the snapshot');

    await m0.stop();
    for (let i = 0; i < 10; i++) await writer.delete(`k/${i}`);
    for (let i = 10; i < 30; i++) await writer.put(`k/${i}`, `w${i}`);
    // Compact everything the watch has not seen: etcd cannot replay it when the watch comes back.
    const { revision } = await status(m1);
    await promisify(execFile)('etcdctl', ['--endpoints', m1.clientUrl, 'compact', String(revision)], {
      env: { ...process.env, ETCDCTL_API: '3' },
    });
    await m0.start();

    const expected = new Map((await writer.getRange('k/')).map((i) => [i.key, i.value]));
    assert.equal(expected.size, 20);
    await until(
      'the watcher catches up after the compaction',
      async () => (JSON.stringify([...view].sort()) === JSON.stringify([...expected].sort()) ? true : undefined),
      20_000,
    );
    assert.ok(resyncs >= 1, 'it caught up through a resync (etcd could not replay the compacted events)');
    // And it goes on watching after the resync.
    await writer.put('k/after', 'x');
    await until('a write after the resync', async () => (view.get('k/after') === 'x' ? true : undefined), 5000);
    w.stop();
  });

  test('the leader killed under 50 writers: no acknowledged write is lost', async () => {
    const backend = open(members(), '/leader/', 5000);
    const acked: string[] = [];
    let failed = 0;
    let running = true;
    const writers = Array.from({ length: 50 }, async (_, w) => {
      for (let n = 0; running; n++) {
        const key = `w/${w}/${n}`;
        try {
          await backend.create(key, 'x');
          acked.push(key);
        } catch (error) {
          // Only the stable, retryable refusal is acceptable while the cluster elects a new leader.
          assert.ok(error instanceof GatehouseError && error.code === 'state_unavailable', String(error));
          failed += 1;
        }
      }
    });
    await new Promise((r) => setTimeout(r, 1000));
    const old = await leader();
    const before = acked.length;
    await old.stop('SIGKILL');
    await new Promise((r) => setTimeout(r, 3000));
    running = false;
    await Promise.all(writers);
    await old.start();
    const after = acked.length;
    assert.ok(after > before + 50, `writes went on after the leader died (${before} → ${after})`);
    // The restarted member may answer before it has caught up; read what the cluster agrees on.
    const items = await until('a read after the restart', () => backend.getRange('w/').catch(() => undefined));
    const present = new Set(items.map((i) => i.key));
    const lost = acked.filter((k) => !present.has(k));
    console.log(`# leader killed: ${acked.length} writes acknowledged, ${failed} refused (state_unavailable), 0 lost`);
    assert.deepEqual(lost, []);
  });

  test('two of three members down: writes fail fast with state_unavailable; back when they return', async () => {
    const backend = open(members(), '/quorum/', 2000);
    await backend.put('a', '1');
    const [, m1, m2] = members() as [EtcdMember, EtcdMember, EtcdMember];
    await Promise.all([m1.stop(), m2.stop()]);
    try {
      const t0 = performance.now();
      await assert.rejects(backend.put('b', '2'), (e: unknown) => {
        assert.ok(e instanceof GatehouseError, String(e));
        assert.equal(e.code, 'state_unavailable');
        assert.equal(e.status, 503);
        assert.equal(e.headers?.['retry-after'], '1');
        return true;
      });
      const took = performance.now() - t0;
      console.log(`# no quorum: a write refused after ${took.toFixed(0)} ms`);
      assert.ok(took < 15_000, `refused within the call timeout and the client's retries (${took} ms)`);
    } finally {
      await Promise.all([m1.start(), m2.start()]);
    }
    await until(
      'writes again once quorum is back',
      async () => ((await backend.put('c', '3').catch(() => undefined)) ? true : undefined),
      30_000,
    );
    assert.equal((await backend.get('a'))?.value, '1');
  });
});
