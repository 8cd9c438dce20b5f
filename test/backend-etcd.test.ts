// The Backend conformance suite against a real etcd (Debian etcd-server on loopback), plus what only
// etcd has: the URL form, values over its request limit refused, and history compaction.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Etcd3 } from 'etcd3';
import { openEtcdBackend, parseEtcdUrl } from '../src/backend/etcd.js';
import { type Backend, BackendError } from '../src/backend/types.js';
import { runBackendConformance } from './conformance/backend-conformance.js';
import { type EtcdCluster, startEtcd } from './helpers/etcd.js';

let etcd: EtcdCluster;
let n = 0;
before(async () => {
  etcd = await startEtcd(1);
});
after(() => etcd.close());

/** Every test gets its own prefix: empty storage nobody else shares, on one etcd. */
const openFresh = (sweepIntervalMs?: number) => {
  const prefix = `/t${process.pid}-${++n}/`;
  const opened: Backend[] = [];
  const open = () => {
    const { hosts } = parseEtcdUrl(etcd.url());
    const b = openEtcdBackend({ hosts, prefix, ...(sweepIntervalMs ? { sweepIntervalMs } : {}) });
    opened.push(b);
    return b;
  };
  return { open, opened };
};

runBackendConformance('etcd', async (opts = {}) => {
  const { open, opened } = openFresh(opts.sweepIntervalMs);
  return {
    backend: open(),
    reopen: async () => open(),
    async cleanup() {
      const b = opened[opened.length - 1] as Backend;
      await b.deleteRange('').catch(() => {});
      for (const x of opened) await x.close();
    },
  };
});

describe('etcd backend specifics', () => {
  test('URL: hosts, prefix, and clear refusals', () => {
    assert.deepEqual(parseEtcdUrl('etcd://a:2379,b:2380?prefix=/gh'), {
      hosts: ['http://a:2379', 'http://b:2380'],
      prefix: '/gh/',
    });
    assert.throws(() => parseEtcdUrl('etcd://a'), /not host:port/);
    assert.throws(() => parseEtcdUrl('etcd://a:1?x=1'), /unknown parameter x/);
    assert.equal(parseEtcdUrl('etcd://a:1?compaction=10m').compactionIntervalMs, 600_000);
    assert.equal(parseEtcdUrl('etcd://a:1?prefix=/x&compaction=off').compactionIntervalMs, 0);
    assert.equal(parseEtcdUrl('etcd://a:1').compactionIntervalMs, undefined, 'the default: 5 minutes');
    for (const bad of ['10', '500ms', 'never'])
      assert.throws(() => parseEtcdUrl(`etcd://a:1?compaction=${bad}`), /compaction must be a duration of at least 1s/);
  });

  test('a prefix larger than one etcd response (4 MiB) is read whole: ranges, watch snapshots', async () => {
    const { open, opened } = openFresh();
    const b = open();
    try {
      const value = 'v'.repeat(700);
      for (let i = 0; i < 8000; i += 128) {
        const ops = Array.from({ length: Math.min(128, 8000 - i) }, (_, j) => ({
          type: 'put' as const,
          key: `small/${String(i + j).padStart(5, '0')}`,
          value,
        }));
        await b.atomicWrite([], ops);
      }
      // Values near etcd's limit: even a few of them are over gRPC's default 4 MiB a response.
      const big = 'B'.repeat(900 * 1024);
      for (let i = 0; i < 12; i++) await b.put(`big/${i}`, big);
      const small = await b.getRange('small/');
      assert.equal(small.length, 8000);
      assert.equal(small[7999]?.key, 'small/07999', 'in key order, to the last');
      const large = await b.getRange('big/');
      assert.deepEqual(
        large.map((i) => [i.key, i.value.length]),
        Array.from({ length: 12 }, (_, i) => [`big/${i}`, big.length]).sort(),
      );
      const watcher = await b.watch([''], () => {});
      assert.equal(watcher.initial.length, 8012, 'a new instance starts from the whole state');
      watcher.stop();
    } finally {
      await opened[0]?.deleteRange('').catch(() => {});
      for (const x of opened) await x.close();
    }
  });

  test('history is compacted to the revision seen one interval earlier; watches go on', async () => {
    const raw = new Etcd3({ hosts: parseEtcdUrl(etcd.url()).hosts });
    const prefix = `/compaction-${process.pid}/`;
    const readAt = (key: string, revision: number) => raw.get(key).revision(revision).string();
    const b = openEtcdBackend({ ...parseEtcdUrl(etcd.url()), prefix, compactionIntervalMs: 300 });
    try {
      const seen: string[] = [];
      const watcher = await b.watch([''], (events) => {
        for (const e of events) if (e.type === 'put') seen.push(e.item.value);
      });
      const first = await b.put('k', 'v0');
      assert.equal(await readAt(`${prefix}k`, first.revision), 'v0', 'the positive control: history is there');
      await sleep(400); // an interval passes with nothing to compact below yet
      assert.equal(await readAt(`${prefix}k`, first.revision), 'v0', 'no compaction before a whole interval');
      for (let i = 1; i <= 5; i++) await b.put('k', `v${i}`);
      const deadline = Date.now() + 5000;
      let compacted: unknown;
      while (!compacted && Date.now() < deadline) {
        await sleep(100);
        compacted = await readAt(`${prefix}k`, first.revision).then(
          () => undefined,
          (error: Error) => error,
        );
      }
      assert.match(String((compacted as Error)?.message), /required revision has been compacted/);
      assert.equal(await raw.get(`${prefix}k`).string(), 'v5', 'the current value stays');
      await b.put('k', 'after');
      while (!seen.includes('after') && Date.now() < deadline) await sleep(20);
      assert.deepEqual(seen, ['v0', 'v1', 'v2', 'v3', 'v4', 'v5', 'after'], 'the watch saw every write, in order');
      watcher.stop();
    } finally {
      await b.close();
      raw.close();
    }
  });

  test('a value over the request limit is refused as too_large, not truncated', async () => {
    const { open, opened } = openFresh();
    const b = open();
    try {
      await assert.rejects(b.put('big', 'x'.repeat(1024 * 1024 + 1)), (e: unknown) => {
        assert.ok(e instanceof BackendError && e.reason === 'too_large' && e.key === 'big');
        return true;
      });
      assert.equal(await b.get('big'), undefined);
      await b.put('ok', 'x'.repeat(1000)); // positive control
      assert.equal((await b.get('ok'))?.value.length, 1000);
    } finally {
      for (const x of opened) await x.close();
    }
  });
});
