// The audit writer thread's main-thread side when the thread is gone: appends fail with the reason,
// and close() returns instead of waiting for an exit that already happened (the process then had
// nothing left to wait on, and a test runner saw its promises left pending).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
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
