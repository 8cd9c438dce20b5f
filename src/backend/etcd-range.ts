// Range reads in pages. One etcd response must fit the client's gRPC receive limit (4 MiB by
// default), so a whole prefix read in one call failed once the state outgrew it — about 6,000 tokens:
// an instance could then not start (its watch begins with a snapshot), nor resync, nor sweep. As
// Kubernetes lists in pages for the same reason, this reads PAGE_KEYS keys a call, every page at the
// first page's revision, so the pages make one consistent snapshot. A value is at most 1 MiB
// (ETCD_MAX_VALUE_BYTES), so a page is at most ~200 MiB: the client's limit is set above that
// (MAX_RESPONSE_BYTES), because a refused response would count against etcd3's circuit breaker and
// stop every call to that member for a while.
import type { IKeyValue, Namespace } from 'etcd3';
import { Range } from 'etcd3';

export const PAGE_KEYS = 200;
export const MAX_RESPONSE_BYTES = 256 * 1024 * 1024;

/**
 * Every key under `prefix` (relative to the namespace) in key order, at one revision. `namespace`
 * is the namespace's own prefix, which etcd3 leaves on the keys it returns.
 */
export async function rangeInPages(
  kv: Namespace,
  namespace: string,
  prefix = '',
  pageKeys = PAGE_KEYS,
): Promise<{ kvs: IKeyValue[]; revision: string }> {
  const whole = Range.prefix(prefix);
  const kvs: IKeyValue[] = [];
  let start: Buffer = whole.start;
  let revision: string | undefined;
  for (;;) {
    const builder = kv.getAll().inRange({ start, end: whole.end }).sort('Key', 'Ascend').limit(pageKeys);
    if (revision !== undefined) builder.revision(revision);
    const res = await builder.exec();
    revision ??= res.header.revision;
    for (const item of res.kvs) kvs.push(item);
    const last = res.kvs[res.kvs.length - 1];
    if (!res.more || last === undefined) return { kvs, revision };
    // The next page starts just after the last key (etcd3 leaves the namespace on it).
    const key = last.key.subarray(last.key.indexOf(namespace) === 0 ? Buffer.byteLength(namespace) : 0);
    start = Buffer.concat([key, Buffer.from([0])]);
  }
}
