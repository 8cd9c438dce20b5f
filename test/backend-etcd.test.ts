// The Backend conformance suite against a real etcd (Debian etcd-server on loopback), plus what only
// etcd has: the URL form and values over its request limit refused.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
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
