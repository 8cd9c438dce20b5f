// Nothing acknowledged is lost: SIGKILL the server in the middle of a burst of writes, restart it,
// and every request that got a 2xx has both its state and its audit event.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { api } from './helpers/gatehouse.js';
import { run, stop } from './helpers/process.js';

const KEY = 'crash-test-bootstrap-key-0123456789abcdef';

test('SIGKILL during a burst: every acknowledged user and its user.created event survive', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-crash-'));
  try {
    const first = await run({ GATEHOUSE_DATA_DIR: dataDir, GATEHOUSE_BOOTSTRAP_API_KEY: KEY });
    const token = (await api(first.authUrl, 'POST', '/v1/auth/token', { body: { api_key: KEY } })).json.access_token;
    const acknowledged: string[] = [];
    let killed = false;
    const worker = async (w: number) => {
      for (let i = 0; !killed; i++) {
        try {
          const res = await api(first.authUrl, 'POST', '/v1/users', { token, body: { name: `crash-${w}-${i}` } });
          if (res.status === 201) acknowledged.push(res.json.id);
        } catch {
          return; // the connection died with the server
        }
      }
    };
    const workers = Array.from({ length: 20 }, (_, w) => worker(w));
    while (acknowledged.length < 300) await new Promise((r) => setTimeout(r, 5));
    killed = true;
    first.child.kill('SIGKILL');
    await Promise.all(workers);
    assert.ok(acknowledged.length >= 300);

    const second = await run({ GATEHOUSE_DATA_DIR: dataDir, GATEHOUSE_BOOTSTRAP_API_KEY: KEY });
    try {
      const t2 = (await api(second.authUrl, 'POST', '/v1/auth/token', { body: { api_key: KEY } })).json.access_token;
      const created = new Set<string>();
      let cursor: string | null = null;
      do {
        const q: string = cursor ? `&cursor=${cursor}` : '';
        const page = await api(second.authUrl, 'GET', `/v1/audit/events?type=user.created&per_page=100${q}`, {
          token: t2,
        });
        assert.equal(page.status, 200, page.text);
        for (const e of page.json.events) created.add(e.target.id);
        cursor = page.json.next_cursor;
      } while (cursor);
      const missingEvents = acknowledged.filter((id) => !created.has(id));
      assert.deepEqual(missingEvents, [], 'acknowledged users without an event');
      for (const id of acknowledged.slice(-50)) {
        const res = await api(second.authUrl, 'GET', `/v1/users/${id}`, { token: t2 });
        assert.equal(res.status, 200, `user ${id} acknowledged but lost`);
      }
      const users = await api(second.authUrl, 'GET', '/v1/users?per_page=1', { token: t2 });
      assert.ok(users.json.pagination.total >= acknowledged.length + 1);
    } finally {
      await stop(second);
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
