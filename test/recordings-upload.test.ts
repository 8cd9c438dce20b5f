// The upload completer end to end, on real stores: the local directory with the real SQLite audit log,
// and S3 (s3rver on loopback) stopped in the middle of an upload. Nothing is deleted before a verified
// upload, failures are retried with jittered backoff and recorded, and a crashed proxy's spool is
// closed off and uploaded on the next start.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { after, test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { type AuditLog, createAuditLog, type EventInput } from '../src/audit/audit-log.js';
import { openSqliteAuditStore } from '../src/audit/sqlite.js';
import type { AuditStore } from '../src/audit/types.js';
import { INTERRUPTED_MARKER, parseAsciicast } from '../src/recordings/asciicast.js';
import type { ObjectStore } from '../src/recordings/object-store.js';
import { openObjectStore } from '../src/recordings/open.js';
import { createRecordingService, type RecordingServiceDeps } from '../src/recordings/recording-service.js';
import { recordingKey, retryDelay } from '../src/recordings/uploader.js';
import { startS3rver, type TestS3 } from './helpers/s3rver.js';

const root = mkdtempSync(join(tmpdir(), 'gatehouse-upload-'));
const cleanups: Array<() => Promise<void> | void> = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
  rmSync(root, { recursive: true, force: true });
});

let n = 0;
const freshDataDir = () => join(root, `data-${++n}`);
const recordingsConfig = {
  session_max_bytes: 64 * 1024 * 1024,
  spool_max_bytes: 1024 * 1024 * 1024,
  upload_retry_min: '20ms',
  upload_retry_max: '200ms',
};
const session = { width: 80, height: 24 };
const sid = (i: number) => `sess_${String(i).padStart(26, '0')}`;

function service(dataDir: string, extra: Partial<RecordingServiceDeps> = {}) {
  const events: EventInput[] = [];
  const svc = createRecordingService({
    config: { data_dir: dataDir, recordings_url: undefined, recordings: recordingsConfig },
    record: async (e) => {
      events.push(e);
    },
    ...extra,
  });
  return { svc, events };
}

async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
async function readAll(stream: AsyncIterable<unknown> | undefined): Promise<Buffer> {
  assert.ok(stream, 'a recording to read');
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(Buffer.isBuffer(c) ? c : Buffer.from(String(c)));
  return Buffer.concat(chunks);
}
const spoolFiles = (dataDir: string) => readdirSync(join(dataDir, 'spool')).filter((f) => !f.startsWith('.'));
const outputOf = (cast: string) =>
  parseAsciicast(cast)
    .events.filter((e) => e[1] === 'o')
    .map((e) => e[2])
    .join('');

test('retry delays: full jitter under a doubling bound, capped', () => {
  const top = () => 0.999999;
  assert.deepEqual(
    [1, 2, 3, 4, 5, 6, 7, 50].map((a) => retryDelay(a, 1000, 30_000, top)),
    [999, 1999, 3999, 7999, 15_999, 29_999, 29_999, 29_999],
  );
  assert.equal(
    retryDelay(9, 1000, 30_000, () => 0),
    0,
  );
  const spread = new Set(Array.from({ length: 50 }, () => retryDelay(5, 1000, 30_000, Math.random)));
  assert.ok(spread.size > 40 && [...spread].every((d) => d >= 0 && d < 16_000));
});

test('local store: closed recordings are gzipped, uploaded, verified, recorded in the audit log, then unspooled', async () => {
  const dataDir = freshDataDir();
  const auditStore: AuditStore = openSqliteAuditStore({ path: join(root, `audit-${n}.db`) });
  cleanups.push(() => auditStore.close());
  const audit: AuditLog = createAuditLog({ store: auditStore, clock: Date.now });
  const { svc } = service(dataDir, { record: (e) => audit.record(e) });
  await svc.start();
  const rec = svc.begin(sid(1), { ...session, title: 'alice@web-1' });
  rec.output('\x1b[1mhello\x1b[0m\r\n');
  rec.resize(120, 40);
  rec.output('bye\r\n');
  assert.equal((await svc.status(sid(1)))?.state, 'recording');
  const closed = await rec.close();
  const spooled = readFileSync(closed.path);
  await svc.uploader.idle();

  const status = await svc.status(sid(1));
  assert.equal(status?.state, 'uploaded');
  const object = readFileSync(join(dataDir, 'recordings', recordingKey(sid(1))));
  assert.equal(status?.sha256, createHash('sha256').update(object).digest('hex'));
  assert.equal(status?.size, object.length);
  assert.deepEqual(gunzipSync(object), spooled, 'the object is the spool file, gzipped');
  assert.deepEqual(spoolFiles(dataDir), [], 'the spool copy is gone, after verification');
  assert.deepEqual(await readAll(await svc.openRecording(sid(1))), spooled);
  assert.equal((await readAll(await svc.openText(sid(1)))).toString(), 'hello\nbye\n');
  assert.equal(await svc.openRecording(sid(2)), undefined);

  const { events } = await audit.query({ session_id: sid(1), limit: 10 });
  assert.equal(events.length, 1);
  const event = events[0];
  assert.equal(event?.type, 'recording.uploaded');
  assert.equal(event?.code, 'GH4100I');
  assert.deepEqual(event?.actor, { kind: 'system', name: 'recording-uploader' });
  assert.deepEqual(event?.target, { kind: 'session', id: sid(1) });
  assert.equal(event?.data?.sha256, status?.sha256);
  assert.equal(event?.data?.raw_size, spooled.length);
  assert.equal(event?.data?.truncated, false);
  await svc.stop();

  // Another instance (the API on an auth server) finds it in the store.
  const { svc: reader } = service(freshDataDir(), { store: openObjectStore(`file://${dataDir}/recordings`, '/') });
  assert.equal((await reader.status(sid(1)))?.state, 'uploaded');
});

/** Wraps a store so that the first put stops after its first 64 KiB until released. */
function pausingStore(inner: ObjectStore) {
  let reached!: () => void;
  let release!: () => void;
  const midUpload = new Promise<void>((r) => (reached = r));
  const released = new Promise<void>((r) => (release = r));
  let armed = true;
  const counts = { puts: 0, heads: 0 };
  const store: ObjectStore = {
    description: inner.description,
    put(key, body, opts) {
      counts.puts++;
      if (!armed) return inner.put(key, body, opts);
      armed = false;
      let sent = 0;
      const gate = new Transform({
        transform(chunk: Buffer, _enc, done) {
          sent += chunk.length;
          if (sent > 64 * 1024) {
            reached();
            void released.then(() => done(null, chunk));
          } else done(null, chunk);
        },
      });
      return inner.put(key, () => body().pipe(gate), opts);
    },
    head: (key, signal) => {
      counts.heads++;
      return inner.head(key, signal);
    },
    get: (key, signal) => inner.get(key, signal),
    list: (prefix) => inner.list(prefix),
    delete: (key) => inner.delete(key),
    close: () => inner.close(),
  };
  return { store, midUpload, release, counts };
}

let s3: TestS3 | undefined;
async function s3server(): Promise<TestS3> {
  if (!s3) {
    s3 = await startS3rver(join(root, 's3rver'));
    cleanups.push(() => s3?.stop());
  }
  return s3;
}

test('S3: the server dies mid-upload; the spool copy is kept and retried, and nothing is lost once it is back', async () => {
  const server = await s3server();
  const dataDir = freshDataDir();
  const gated = pausingStore(openObjectStore(server.url('mid-upload'), dataDir));
  const { svc, events } = service(dataDir, { store: gated.store });
  await svc.start();
  const rec = svc.begin(sid(1), session);
  let sent = '';
  for (let i = 0; i < 64; i++) {
    const chunk = `${randomBytes(24 * 1024).toString('base64')}\r\n`; // barely compressible
    sent += chunk;
    assert.equal(rec.output(chunk), 'recorded');
  }
  const closed = await rec.close();
  const spooled = readFileSync(closed.path);

  await gated.midUpload;
  await server.stop(); // connections cut while the body is half sent
  gated.release();
  await waitFor('two failed attempts while S3 is down, and a retry scheduled', async () => {
    const s = await svc.status(sid(1));
    return (s?.attempts ?? 0) >= 2 && s?.state === 'upload_failed' && Boolean(s.next_attempt_at);
  });
  const failing = await svc.status(sid(1));
  assert.equal(failing?.state, 'upload_failed');
  assert.match(String(failing?.last_error), /\w+/);
  assert.ok(failing?.next_attempt_at);
  assert.deepEqual(spoolFiles(dataDir).sort(), [`${sid(1)}.cast`, `${sid(1)}.cast.gz`], 'spool kept');
  assert.ok(events.every((e) => e.type === 'recording.upload_failed' && e.success === false));
  assert.equal(events[0]?.data?.attempt, 1);
  assert.equal(events[0]?.data?.spool_kept, true);
  // The first attempt died with its connection (not a refused one): it really was cut mid-upload.
  assert.match(String(events[0]?.data?.error), /ECONNRESET|EPIPE|socket hang up/);

  await server.start();
  await svc.uploader.idle();
  assert.equal((await svc.status(sid(1)))?.state, 'uploaded');
  assert.deepEqual(spoolFiles(dataDir), []);
  const uploaded = events.filter((e) => e.type === 'recording.uploaded');
  assert.equal(uploaded.length, 1);
  assert.ok(Number(uploaded[0]?.data?.attempts) >= 3);
  const failedAttempts = events.filter((e) => e.type === 'recording.upload_failed').map((e) => e.data?.attempt);
  assert.deepEqual(
    failedAttempts,
    failedAttempts.filter((a) => [1, 2, 4, 8, 16, 32].includes(Number(a))),
  );

  // What S3 holds is the whole recording: size and sha256 verified, bytes identical once gunzipped.
  const head = await gated.store.head(recordingKey(sid(1)));
  const object = await readAll(await gated.store.get(recordingKey(sid(1))));
  assert.equal(head?.size, object.length);
  assert.equal(head?.metadata.sha256, createHash('sha256').update(object).digest('hex'));
  assert.deepEqual(gunzipSync(object), spooled);
  assert.equal(outputOf(gunzipSync(object).toString()), sent);
  assert.deepEqual(await readAll(await svc.openRecording(sid(1))), spooled);
  await svc.stop();
});

test('S3 unreachable at shutdown: the recording waits in the spool and is uploaded by the next start', async () => {
  const server = await s3server();
  const dataDir = freshDataDir();
  const url = server.url('restart');
  await server.stop();
  const first = service(dataDir, { store: openObjectStore(url, dataDir) });
  await first.svc.start();
  const live = first.svc.begin(sid(7), session);
  live.output('still typing when the proxy stops\r\n');
  await first.svc.stop({ drainMs: 300 }); // closes the live recording, cannot upload it
  assert.deepEqual(
    spoolFiles(dataDir).filter((f) => f.endsWith('.cast')),
    [`${sid(7)}.cast`],
  );
  assert.ok(first.events.some((e) => e.type === 'recording.upload_failed'));
  assert.ok(!first.events.some((e) => e.type === 'recording.uploaded'));

  await server.start();
  const second = service(dataDir, { store: openObjectStore(url, dataDir) });
  await second.svc.start();
  await second.svc.uploader.idle();
  assert.deepEqual(spoolFiles(dataDir), []);
  const cast = (await readAll(await second.svc.openRecording(sid(7)))).toString();
  const parsed = parseAsciicast(cast);
  assert.equal(parsed.interrupted, true);
  assert.equal(outputOf(cast), 'still typing when the proxy stops\r\n');
  assert.equal(second.events.filter((e) => e.type === 'recording.uploaded').length, 1);
  await second.svc.stop();
});

test('an upload that does not verify, or an audit log that is down, never deletes the spool copy', async () => {
  const dataDir = freshDataDir();
  const inner = openObjectStore(undefined, dataDir);
  let lie = true;
  let auditDown = true;
  const lying: ObjectStore = {
    ...inner,
    description: inner.description,
    put: (k, b, o) => inner.put(k, b, o),
    head: async (key, signal) => {
      const info = await inner.head(key, signal);
      return info && lie ? { ...info, metadata: { ...info.metadata, sha256: '0'.repeat(64) } } : info;
    },
    get: (k, s) => inner.get(k, s),
    list: (p) => inner.list(p),
    delete: (k) => inner.delete(k),
    close: () => inner.close(),
  };
  const events: EventInput[] = [];
  const { svc } = service(dataDir, {
    store: lying,
    record: async (e) => {
      if (e.type === 'recording.uploaded' && auditDown) throw new Error('audit store unavailable');
      events.push(e);
    },
  });
  await svc.start();
  const rec = svc.begin(sid(3), session);
  rec.output('precious\r\n');
  await rec.close();
  await waitFor('four failed verifications', async () => ((await svc.status(sid(3)))?.attempts ?? 0) >= 4);
  assert.match(String((await svc.status(sid(3)))?.last_error), /verification failed/);
  assert.ok(spoolFiles(dataDir).includes(`${sid(3)}.cast`));
  assert.deepEqual(
    events.map((e) => e.data?.attempt),
    [1, 2, 4],
    'failure events on attempts 1, 2, 4, … only',
  );

  lie = false; // the store is honest now, but the audit log is down: still no delete, no success
  const before = (await svc.status(sid(3)))?.attempts ?? 0;
  await waitFor(
    'an attempt failing on the audit log',
    async () => ((await svc.status(sid(3)))?.attempts ?? 0) > before,
  );
  assert.match(String((await svc.status(sid(3)))?.last_error), /audit store unavailable/);
  assert.ok(spoolFiles(dataDir).includes(`${sid(3)}.cast`));

  auditDown = false;
  await svc.uploader.idle();
  assert.equal((await svc.status(sid(3)))?.state, 'uploaded');
  assert.deepEqual(spoolFiles(dataDir), []);
  assert.equal(events.filter((e) => e.type === 'recording.uploaded').length, 1);
  await svc.stop();
});

const crashingProxy = (spoolDir: string) => `
  import { createSpool } from ${JSON.stringify(new URL('../src/recordings/spool.ts', import.meta.url).href)};
  const spool = createSpool({ dir: ${JSON.stringify(spoolDir)}, sessionMaxBytes: 1e9, spoolMaxBytes: 1e10 });
  await spool.open();
  const done = spool.begin(${JSON.stringify(sid(1))}, { width: 80, height: 24 });
  done.output('a finished session\\r\\n');
  await done.close();
  const live = spool.begin(${JSON.stringify(sid(2))}, { width: 80, height: 24 });
  let i = 0;
  const pump = () => {
    for (let k = 0; k < 50; k++, i++) live.output('chunk ' + i + ' ' + 'x'.repeat(i % 200) + '\\r\\n');
    if (i === 2000) console.log('writing');
    setImmediate(pump);
  };
  pump();
`;

test('crash recovery: a proxy killed mid-session leaves spool files that the next start closes off and uploads', async () => {
  const dataDir = freshDataDir();
  const spoolDir = join(dataDir, 'spool');
  const script = join(root, 'crashing-proxy.mts');
  writeFileSync(script, crashingProxy(spoolDir));
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  cleanups.push(() => void child.kill('SIGKILL'));
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (d: Buffer) => d.toString().includes('writing') && resolve());
    child.once('exit', (code) => reject(new Error(`the child exited early (${code})`)));
  });
  await new Promise((r) => setTimeout(r, 200)); // still writing
  child.kill('SIGKILL');
  await new Promise((r) => child.once('exit', r));
  const part = join(spoolDir, `${sid(2)}.cast.part`);
  assert.ok(existsSync(part), 'the live session was left as .part');
  appendFileSync(part, '[99.5, "o", "a line torn by the cra'); // whatever the kill left, end torn

  const { svc, events } = service(dataDir);
  const { recovered } = await svc.start();
  assert.deepEqual(recovered, [sid(2)]);
  await svc.uploader.idle();
  assert.deepEqual(spoolFiles(dataDir), []);
  assert.deepEqual(events.map((e) => [e.type, e.session_id]).sort(), [
    ['recording.uploaded', sid(1)],
    ['recording.uploaded', sid(2)],
  ]);
  assert.equal(events.find((e) => e.session_id === sid(2))?.data?.interrupted, true);

  assert.equal(outputOf((await readAll(await svc.openRecording(sid(1)))).toString()), 'a finished session\r\n');
  const cast = (await readAll(await svc.openRecording(sid(2)))).toString();
  const parsed = parseAsciicast(cast); // still parses: the torn line is gone
  assert.equal(parsed.interrupted, true);
  assert.equal(parsed.events.at(-1)?.[2], `${INTERRUPTED_MARKER} (the proxy stopped before the session ended)`);
  const chunks = parsed.events.filter((e) => e[1] === 'o').map((e) => e[2]);
  // What reached the disk before the kill survives, whole lines only (the buffer in memory dies).
  assert.ok(chunks.length > 0, `${chunks.length} chunks survived the kill`);
  for (const [i, c] of chunks.entries())
    assert.equal(c, `chunk ${i} ${'x'.repeat(i % 200)}\r\n`, 'in order, none torn');
  await svc.stop();
});

test('a recording of a session that is still live is not uploaded; status says so', async () => {
  const dataDir = freshDataDir();
  const { svc, events } = service(dataDir);
  await svc.start();
  const rec = svc.begin(sid(5), session);
  rec.output('x');
  await new Promise((r) => setTimeout(r, 100));
  assert.equal((await svc.status(sid(5)))?.state, 'recording');
  assert.deepEqual(events, []);
  assert.equal(await svc.openRecording(sid(5)), undefined);
  await rec.close();
  await svc.uploader.idle();
  assert.equal((await svc.status(sid(5)))?.state, 'uploaded');
  await svc.stop();
});
