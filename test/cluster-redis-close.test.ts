// Closing an instance's Redis link ends its connections whenever it happens: a link closed while
// node-redis was still connecting left both sockets open and the process running (a test file of
// instances on etcd never exited; found this way). Real Redis on loopback.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const REDIS = process.env.GATEHOUSE_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const fixture = fileURLToPath(new URL('./fixtures/redis-close-race.ts', import.meta.url));

const closeAfter = (ms: number) =>
  new Promise<{ code: number | null; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', fixture, REDIS, String(ms)],
      { timeout: 30_000 },
      (error, _out, stderr) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stderr: stderr.trim() }),
    );
  });

test('a Redis link closed at any point of its start leaves nothing running: the process exits', async () => {
  // 0 ms: before node-redis is loaded; then while the sockets connect; 1.5 s: connected (control).
  for (const ms of [0, 20, 50, 100, 200, 1500]) {
    assert.deepEqual(await closeAfter(ms), { code: 0, stderr: '' }, `closed after ${ms} ms`);
  }
});
