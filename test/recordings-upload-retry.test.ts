// The upload completer's retry loop, against a store that refuses connections and then comes back:
// a retry that comes due while its failed attempt is still being written to the audit log (which can
// be slower than a short backoff under load) is run once that attempt is over, never dropped, so the
// recording is uploaded as soon as the store answers again.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { EventInput } from '../src/audit/audit-log.js';
import type { ObjectInfo, ObjectStore } from '../src/recordings/object-store.js';
import type { Artifact, ClosedRecording } from '../src/recordings/spool.js';
import { createUploader, recordingKey } from '../src/recordings/uploader.js';

const root = mkdtempSync(join(tmpdir(), 'gatehouse-upload-retry-'));
after(() => rmSync(root, { recursive: true, force: true }));

const SESSION = `sess_${'0'.repeat(25)}1`;

/** A spool holding one closed recording, already compressed (the uploader only stats and reads it). */
function oneRecordingSpool(sessionId: string) {
  const bytes = Buffer.from('gzip bytes of a recording');
  const path = join(root, `${sessionId}.cast.gz`);
  writeFileSync(path, bytes);
  const artifact: Artifact = {
    sessionId,
    path,
    size: bytes.length,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    md5: createHash('md5').update(bytes).digest('base64'),
    rawSize: bytes.length,
    truncated: false,
    interrupted: false,
  };
  const closed: ClosedRecording = { sessionId, path, bytes: bytes.length, truncated: false, interrupted: false };
  let discarded = false;
  return {
    get discarded() {
      return discarded;
    },
    closed: async () => (discarded ? [] : [closed]),
    compress: async () => artifact,
    discard: async () => {
      discarded = true;
    },
    onClosed: () => () => undefined,
  };
}

/** An in-memory store that, while down, fails every call the way a stopped S3 server does. */
function flakyStore() {
  const objects = new Map<string, ObjectInfo>();
  let down = true;
  const refuse = () => {
    if (down) throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });
  };
  const store: ObjectStore = {
    description: 'flaky test store',
    async put(key, body, opts) {
      refuse();
      const chunks: Buffer[] = [];
      for await (const chunk of body()) chunks.push(chunk as Buffer);
      assert.equal(Buffer.concat(chunks).length, opts.size);
      objects.set(key, { key, size: opts.size, metadata: { ...opts.metadata } });
    },
    async get() {
      refuse();
      return undefined;
    },
    async head(key) {
      refuse();
      return objects.get(key);
    },
    async *list() {},
    async delete(key) {
      refuse();
      objects.delete(key);
    },
    async close() {},
  };
  return {
    store,
    objects,
    up() {
      down = false;
    },
  };
}

async function waitFor(what: string, check: () => boolean, timeoutMs: number, detail: () => string) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; ${detail()}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

test('a retry that comes due while the failed attempt is being recorded is run after it, not dropped', async () => {
  const spool = oneRecordingSpool(SESSION);
  const s3 = flakyStore();
  const events: EventInput[] = [];
  // The audit log takes 40 ms per upload_failed event, longer than every backoff here (< 10 ms).
  const record = async (event: EventInput) => {
    if (event.type === 'recording.upload_failed') await new Promise((r) => setTimeout(r, 40));
    events.push(event);
  };
  const uploader = createUploader({
    spool,
    store: s3.store,
    record,
    minDelayMs: 5,
    maxDelayMs: 10,
    random: () => 0.5, // 2 ms after attempt 1, then 5 ms
    onError: (error) => assert.fail(error as Error),
  });
  await uploader.start();
  try {
    const status = () => JSON.stringify(uploader.status(SESSION));
    // Attempts 1 and 2 are each recorded (40 ms) while their 2–5 ms retry comes due; the retries go on.
    await waitFor('three failed attempts', () => (uploader.status(SESSION)?.attempts ?? 0) >= 3, 5_000, status);
    s3.up();
    await waitFor(
      'the upload once the store is back',
      () => uploader.status(SESSION)?.state === 'uploaded',
      5_000,
      status,
    );
    assert.equal(s3.objects.get(recordingKey(SESSION))?.metadata.sha256, uploader.status(SESSION)?.sha256);
    assert.equal(spool.discarded, true);
    const uploaded = events.filter((e) => e.type === 'recording.uploaded');
    assert.equal(uploaded.length, 1);
    assert.ok(Number(uploaded[0]?.data?.attempts) >= 4, JSON.stringify(uploaded[0]));
    // Failed attempts 1, 2, 4, … were recorded, each while its retry came due.
    const failedAttempts = events
      .filter((e) => e.type === 'recording.upload_failed')
      .map((e) => Number(e.data?.attempt));
    assert.deepEqual(failedAttempts.slice(0, 2), [1, 2]);
    assert.ok(
      failedAttempts.every((n) => (n & (n - 1)) === 0),
      JSON.stringify(failedAttempts),
    );
  } finally {
    await uploader.stop();
  }
});
