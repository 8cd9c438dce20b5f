// The recordings object stores: one contract run against the local-directory store and against the
// S3 store talking to a real S3 API (s3rver on loopback); then choosing a store by URL, and the config keys.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../src/config/load.js';
import { createFsStore } from '../src/recordings/fs-store.js';
import type { ObjectStore } from '../src/recordings/object-store.js';
import { defaultRecordingsDir, openObjectStore } from '../src/recordings/open.js';
import { parseS3Url } from '../src/recordings/s3-store.js';
import { startS3rver, type TestS3 } from './helpers/s3rver.js';

const dir = mkdtempSync(join(tmpdir(), 'gatehouse-store-'));
const servers: TestS3[] = [];
after(async () => {
  for (const s of servers) await s.stop();
  rmSync(dir, { recursive: true, force: true });
});

const body = (data: Buffer) => () => Readable.from([data.subarray(0, 7), data.subarray(7)]);
async function text(stream: Readable | undefined): Promise<string | undefined> {
  if (!stream) return undefined;
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString();
}
async function keys(store: ObjectStore, prefix?: string): Promise<string[]> {
  const out: string[] = [];
  for await (const o of store.list(prefix)) out.push(o.key);
  return out;
}
/** A body that fails after its first bytes, as a dying client would. */
const failingBody = () =>
  Readable.from(
    (async function* () {
      yield Buffer.from('partial ');
      throw new Error('the source broke');
    })(),
  );

function storeContract(name: string, open: () => Promise<ObjectStore>) {
  describe(`${name} object store`, () => {
    test('put, head with metadata, get, overwrite, delete', async () => {
      const store = await open();
      const data = Buffer.from('{"version": 2}\nsome recording bytes');
      await store.put('sess_1.cast.gz', body(data), {
        size: data.length,
        contentType: 'application/gzip',
        metadata: { sha256: 'f'.repeat(64), 'session-id': 'sess_1' },
      });
      const head = await store.head('sess_1.cast.gz');
      assert.equal(head?.size, data.length);
      assert.deepEqual(head?.metadata, { sha256: 'f'.repeat(64), 'session-id': 'sess_1' });
      assert.ok(head?.lastModified instanceof Date);
      assert.equal(await text(await store.get('sess_1.cast.gz')), data.toString());

      const next = Buffer.from('replaced');
      await store.put('sess_1.cast.gz', body(next), { size: next.length, metadata: { sha256: 'a'.repeat(64) } });
      assert.equal(await text(await store.get('sess_1.cast.gz')), 'replaced');
      assert.equal((await store.head('sess_1.cast.gz'))?.metadata.sha256, 'a'.repeat(64));

      await store.delete('sess_1.cast.gz');
      await store.delete('sess_1.cast.gz'); // idempotent
      assert.equal(await store.head('sess_1.cast.gz'), undefined);
      assert.equal(await store.get('sess_1.cast.gz'), undefined);
      await store.close();
    });

    test('list by prefix, in key order, with sizes', async () => {
      const store = await open();
      for (const key of ['b/2.gz', 'a/1.gz', 'a/3.gz', 'a/sub/4.gz', 'c.gz']) {
        const data = Buffer.from(key);
        await store.put(key, body(data), { size: data.length });
      }
      assert.deepEqual(await keys(store), ['a/1.gz', 'a/3.gz', 'a/sub/4.gz', 'b/2.gz', 'c.gz']);
      assert.deepEqual(await keys(store, 'a/'), ['a/1.gz', 'a/3.gz', 'a/sub/4.gz']);
      assert.deepEqual(await keys(store, 'a/s'), ['a/sub/4.gz']);
      assert.deepEqual(await keys(store, 'zzz'), []);
      const sizes: number[] = [];
      for await (const o of store.list('b/')) sizes.push(o.size);
      assert.deepEqual(sizes, [Buffer.byteLength('b/2.gz')]);
      await store.close();
    });

    test('a put whose body fails leaves the previous object whole', async () => {
      const store = await open();
      const data = randomBytes(64 * 1024);
      await store.put('keep.gz', body(data), { size: data.length, metadata: { sha256: 'old' } });
      await assert.rejects(store.put('keep.gz', failingBody, { size: 1000, metadata: { sha256: 'new' } }));
      const head = await store.head('keep.gz');
      assert.equal(head?.size, data.length);
      assert.equal(head?.metadata.sha256, 'old');
      assert.deepEqual(await keys(store, 'keep'), ['keep.gz']);
      await store.close();
    });

    test('keys that could escape the store are refused', async () => {
      const store = await open();
      for (const key of ['../x', 'a/../../x', '/abs', 'a//b', '.meta/x', 'a/.tmp/x', 'sp ace', '']) {
        await assert.rejects(store.head(key), /invalid object key/, key);
      }
      await store.close();
    });
  });
}

let fsRoot = 0;
storeContract('file', async () => createFsStore(join(dir, `fs-${++fsRoot}`)));

let s3Prefix = 0;
let s3: TestS3 | undefined;
storeContract('s3 (s3rver)', async () => {
  if (!s3) {
    s3 = await startS3rver(join(dir, 's3rver'));
    servers.push(s3);
  }
  return openObjectStore(s3.url(`run/p${++s3Prefix}`), dir);
});

test('the file store checks the declared size and MD5, and leaves no temp files behind', async () => {
  const root = join(dir, 'fs-checks');
  const store = createFsStore(root);
  const data = Buffer.from('twelve bytes');
  await assert.rejects(store.put('x.gz', body(data), { size: 13 }), /got 12 bytes, expected 13/);
  await assert.rejects(store.put('x.gz', body(data), { size: 12, md5: 'AAAAAAAAAAAAAAAAAAAAAA==' }), /MD5/);
  await assert.rejects(store.put('x.gz', failingBody, { size: 8 }));
  assert.equal(await store.head('x.gz'), undefined);
  assert.deepEqual(readdirSync(join(root, '.tmp')), []);
  const md5 = (await import('node:crypto')).createHash('md5').update(data).digest('base64');
  await store.put('x.gz', body(data), { size: 12, md5 }); // positive control
  assert.equal((await store.head('x.gz'))?.size, 12);
});

test('the store is chosen by URL; anything else is a config error naming the key', () => {
  assert.equal(openObjectStore(undefined, '/srv/gh').description, 'file:///srv/gh/recordings');
  assert.equal(defaultRecordingsDir('/srv/gh'), '/srv/gh/recordings');
  assert.equal(openObjectStore('file:///var/rec', '/x').description, 'file:///var/rec');
  assert.equal(openObjectStore('file://./rel', '/x').description, `file://${join(process.cwd(), 'rel')}`);
  const s3store = openObjectStore(
    's3://my-bucket/rec/ordings?endpoint=http://127.0.0.1:9000&region=eu-west-1&path_style=true',
    '/x',
  );
  assert.equal(s3store.description, 's3://my-bucket/rec/ordings/ at http://127.0.0.1:9000');
  assert.deepEqual(parseS3Url('s3://my-bucket/rec/?path_style=true&access_key_id=K&secret_access_key=S'), {
    bucket: 'my-bucket',
    prefix: 'rec/',
    region: process.env.AWS_REGION ?? 'us-east-1',
    pathStyle: true,
    credentials: { accessKeyId: 'K', secretAccessKey: 'S' },
  });
  const bad: Array<[string, RegExp]> = [
    ['gs://bucket', /unsupported store "gs"/],
    ['/just/a/path', /unsupported store/],
    ['s3://B_ad', /not a valid bucket name/],
    ['s3://bucket?endpont=http://x', /unknown parameter "endpont"/],
    ['s3://bucket?endpoint=ftp://x', /endpoint must be/],
    ['s3://bucket?path_style=yes', /path_style must be true or false/],
    ['s3://bucket?access_key_id=K', /give both/],
    ['s3://user:secret@bucket', /not user:pass@/],
  ];
  for (const [url, message] of bad) {
    assert.throws(
      () => openObjectStore(url, '/x'),
      (e: unknown) =>
        e instanceof ConfigError &&
        e.message.startsWith('config key recordings_url (or GATEHOUSE_RECORDINGS_URL)') &&
        message.test(e.message),
      url,
    );
  }
  assert.ok(!existsSync('/x'), 'choosing a store creates nothing');
});

test('config: recordings_url and the recordings section, from YAML defaults and GATEHOUSE_* variables', () => {
  const defaults = loadConfig({ env: {} });
  assert.equal(defaults.recordings_url, undefined);
  assert.deepEqual(defaults.recordings, {
    session_max_bytes: 64 * 1024 * 1024,
    spool_max_bytes: 4 * 1024 * 1024 * 1024,
    upload_retry_min: '1s',
    upload_retry_max: '5m',
  });
  const set = loadConfig({
    env: {
      GATEHOUSE_RECORDINGS_URL: 's3://b/p?endpoint=http://127.0.0.1:1',
      GATEHOUSE_RECORDINGS_SESSION_MAX_BYTES: '1048576',
      GATEHOUSE_RECORDINGS_SPOOL_MAX_BYTES: '10485760',
      GATEHOUSE_RECORDINGS_UPLOAD_RETRY_MAX: '30s',
    },
  });
  assert.equal(set.recordings_url, 's3://b/p?endpoint=http://127.0.0.1:1');
  assert.equal(set.recordings.session_max_bytes, 1_048_576);
  assert.equal(set.recordings.upload_retry_max, '30s');
  assert.throws(
    () => loadConfig({ env: { GATEHOUSE_RECORDINGS_SESSION_MAX_BYTES: '100' } }),
    /config key recordings\.session_max_bytes \(or GATEHOUSE_RECORDINGS_SESSION_MAX_BYTES\)/,
  );
});
