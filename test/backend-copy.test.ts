// `gatehouse backend copy`: an embedded install's state moved into etcd and PostgreSQL serves the same
// users, keys and sealed server keys there; a non-empty target and a source in use are refused.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type EtcdCluster, startEtcd } from './helpers/etcd.js';
import { api, startTestServer } from './helpers/gatehouse.js';
import { adminSql, POSTGRES_URL } from './helpers/postgres.js';
import { runToExit } from './helpers/process.js';

const dir = mkdtempSync(join(tmpdir(), 'gatehouse-copy-'));
const source = join(dir, 'old');
const sourceUrl = `sqlite://${join(source, 'state.db')}`;
const sealKey = join(source, 'webhook-secret.key');
const schema = `gh_copy_${randomBytes(5).toString('hex')}`;
let etcd: EtcdCluster;
let opsKey: string;
let serverKey: string;

const copy = (...args: string[]) => runToExit({}, ['backend', 'copy', ...args]);

before(async () => {
  etcd = await startEtcd(1);
  // The embedded install: a user with an API key, and a server whose upstream key is sealed.
  const old = await startTestServer({}, { dataDir: source });
  const ops = await api(old.url, 'POST', '/v1/users', { token: old.adminToken, body: { name: 'ops', roles: [] } });
  assert.equal(ops.status, 201, ops.text);
  const key = await api(old.url, 'POST', `/v1/users/${ops.json.id}/api-keys`, { token: old.adminToken, body: {} });
  assert.equal(key.status, 201, key.text);
  opsKey = key.json.api_key;
  const server = await api(old.url, 'POST', '/v1/resources', {
    token: old.adminToken,
    body: { kind: 'server', name: 'web-1', address: '10.0.0.9:22' },
  });
  assert.equal(server.status, 201, server.text);
  serverKey = server.json.ssh_public_key;

  // While it runs, its store is not copied: writes made during the copy would be lost.
  const busy = await copy('--from', sourceUrl, '--to', etcd.url('/busy/'));
  assert.equal(busy.code, 1, busy.stderr);
  assert.match(busy.stderr, /refusing to copy: the source is in use by gatehouse pid \d+/);
  await old.stop({ keepData: true });
});

after(async () => {
  await etcd?.close();
  await adminSql(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

/** A new instance on the target, with the old install's seal key: the copied state works there. */
async function servesTheCopy(backendUrl: string) {
  const fresh = await startTestServer({ backend_url: backendUrl, seal_key_file: sealKey });
  try {
    const token = await api(fresh.url, 'POST', '/v1/auth/token', { body: { api_key: opsKey } });
    assert.equal(token.status, 200, `the old API key works on the new store: ${token.text}`);
    const users = await api(fresh.url, 'GET', '/v1/users?name=ops', { token: fresh.adminToken });
    assert.equal(users.json.pagination.total, 1);
    const servers = await api(fresh.url, 'GET', '/v1/resources?name=web-1', { token: fresh.adminToken });
    assert.equal(servers.json.resources[0]?.ssh_public_key, serverKey);
  } finally {
    await fresh.stop();
  }
}

describe('gatehouse backend copy', () => {
  test('sqlite → etcd: progress, a checked count, and the new store serves the old state', async () => {
    const target = etcd.url('/prod/');
    const done = await copy('--from', sourceUrl, '--to', target);
    assert.equal(done.code, 0, done.stderr);
    assert.match(done.stderr, /^copied \d+ items \(\d+\/s\)$/m, 'a progress line');
    const m = /^Copied (\d+) items in [\d.]+ s; the target holds all (\d+) with the same values\.$/m.exec(done.stdout);
    assert.ok(m, done.stdout);
    assert.equal(m[1], m[2]);
    assert.ok(Number(m[1]) > 5, `users, roles, keys, the server, the seal marker: ${m[1]}`);
    await servesTheCopy(target);

    // Now the target holds items (and a copy of them would overwrite what instances wrote since).
    const again = await copy('--from', sourceUrl, '--to', target);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /refusing to copy: the target already holds items \(first: [^)]+\); .* --force/);
    const forced = await copy('--from', sourceUrl, '--to', target, '--force');
    assert.equal(forced.code, 0, forced.stderr);
  });

  test('sqlite → postgres', async () => {
    const target = `${POSTGRES_URL}?schema=${schema}`;
    const done = await copy('--from', sourceUrl, '--to', target);
    assert.equal(done.code, 0, done.stderr);
    await servesTheCopy(target);
  });

  test('bad usage and a missing source are one-line refusals', async () => {
    const missing = await copy('--from', `sqlite://${join(dir, 'nowhere.db')}`, '--to', etcd.url('/x/'));
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /^gatehouse: --from: no state store at .*nowhere\.db$/m);
    const noTo = await copy('--from', sourceUrl);
    assert.equal(noTo.code, 2);
    assert.match(noTo.stderr, /copy needs both --from and --to/);
    const badUrl = await copy('--from', sourceUrl, '--to', 'mysql://x');
    assert.equal(badUrl.code, 2);
    assert.match(badUrl.stderr, /backend_url/);
    assert.doesNotMatch(badUrl.stderr, /at .*\.ts:\d+/, 'no stack trace');
  });
});
