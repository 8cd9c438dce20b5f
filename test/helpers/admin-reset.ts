// What the break-glass tests share (test/admin-reset*.test.ts): temporary data dirs, removed after
// the file's tests, and reading what a reset printed and what it recorded.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { api } from './gatehouse.js';
import type { Running } from './process.js';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
export const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'gatehouse-reset-'));
  dirs.push(d);
  return d;
};
export const BOOTSTRAP = 'admin-reset-test-bootstrap-key-0123456789';
export const noStack = (text: string) => assert.ok(!/\n\s+at /.test(text), `stack trace printed:\n${text}`);

/** The one API key a successful reset prints, alone on its line. */
export function printedKey(stdout: string): string {
  const found = stdout.match(/^ghk_\S+$/gm) ?? [];
  assert.equal(found.length, 1, `one key line expected:\n${stdout}`);
  const key = found[0] as string;
  assert.equal(stdout.split(key).length, 2, 'the key is printed once');
  return key;
}

export async function tokenFor(server: Running, apiKey: string): Promise<string | undefined> {
  const res = await api(server.authUrl, 'POST', '/v1/auth/token', { body: { api_key: apiKey } });
  return res.status === 200 ? res.json.access_token : undefined;
}

export async function resetEvents(server: Running, token: string) {
  const res = await api(server.authUrl, 'GET', '/v1/events?type=system.admin_reset', { token });
  assert.equal(res.status, 200);
  return res;
}
