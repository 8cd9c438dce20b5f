// The audit writer thread's main-thread side when the thread is gone: appends fail with the reason,
// and close() returns instead of waiting for an exit that already happened (the process then had
// nothing left to wait on, and a test runner saw its promises left pending).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { openWriter } from './sqlite-writer.js';

test('a writer whose thread failed at start refuses appends and still closes', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-writer-'));
  try {
    // A directory is no database: the thread's first statement throws and the thread exits.
    const writer = openWriter(dir, 'FULL');
    const event = {
      id: 'evt_x',
      type: 'auth.token.issued',
      code: 'T1000',
      time: new Date().toISOString(),
      actor: { kind: 'system' },
      success: true,
    } as Parameters<typeof writer.append>[0][number];
    await assert.rejects(writer.append([event]), /the audit writer thread (failed|stopped)/);
    // Long enough for the thread's exit to have been reported before close() is called.
    await new Promise((r) => setTimeout(r, 300));
    const closed = await Promise.race([
      writer.close().then(() => 'closed'),
      new Promise((r) => setTimeout(() => r('still waiting after 5 s'), 5000)),
    ]);
    assert.equal(closed, 'closed');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('close() with an append still on its way returns once it committed, every time (no emptied event loop)', async () => {
  // Before the fix the event loop emptied inside close() about one run in three: the thread's ref
  // did not hold the process until the thread's exit, and the process ended early, with code 0.
  const script = fileURLToPath(new URL('../../test/fixtures/audit-close-race.ts', import.meta.url));
  const run = () =>
    new Promise<string>((resolve) => {
      execFile(process.execPath, ['--import', 'tsx', script], { timeout: 30_000 }, (_error, _stdout, stderr) =>
        resolve(stderr.trim().split('\n').pop() ?? ''),
      );
    });
  for (let round = 0; round < 4; round++) {
    assert.deepEqual(await Promise.all([run(), run()]), ['OK', 'OK'], `round ${round}`);
  }
});
