// The real command a newcomer runs (src/main.ts via tsx), as a child process: first start,
// bootstrap key file, config errors, clean shutdown on SIGTERM, and data that survives a restart.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { api } from './helpers/gatehouse.js';
import { run, stop } from './helpers/process.js';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'gatehouse-proc-'));
  dirs.push(d);
  return d;
};

test('first start prints the admin key once and writes it 0600; restart keeps data and revocations', async () => {
  const dataDir = tempDir();
  const first = await run({ GATEHOUSE_DATA_DIR: dataDir });
  const key = readFileSync(join(dataDir, 'admin-api-key'), 'utf8').trim();
  assert.match(key, /^ghk_/);
  assert.equal(statSync(join(dataDir, 'admin-api-key')).mode & 0o777, 0o600);
  assert.ok(first.output().includes(key), 'the key is printed on first start');

  const ping = await api(first.webUrl, 'GET', '/webapi/ping');
  assert.equal(ping.json.status, 'ok');
  const token = (await api(first.authUrl, 'POST', '/v1/auth/token', { body: { api_key: key } })).json.access_token;
  const viaWeb = await api(first.webUrl, 'GET', '/v1/users', { token });
  assert.equal(viaWeb.status, 200, '/v1 is served on the web port too');
  const user = await api(first.authUrl, 'POST', '/v1/users', { token, body: { name: 'survivor', roles: ['auditor'] } });
  assert.equal(user.status, 201);
  const doomed = (await api(first.authUrl, 'POST', '/v1/auth/token', { body: { api_key: key } })).json.access_token;
  assert.equal((await api(first.authUrl, 'DELETE', '/v1/auth/revoke', { token: doomed })).status, 200);
  assert.equal(await stop(first), 0, 'SIGTERM exits cleanly');

  const second = await run({ GATEHOUSE_DATA_DIR: dataDir });
  try {
    assert.ok(!second.output().includes(key), 'the key is not printed again');
    const got = await api(second.authUrl, 'GET', `/v1/users/${user.json.id}`, { token });
    assert.equal(got.status, 200, 'users and tokens survive a restart');
    assert.equal(got.json.name, 'survivor');
    const revoked = await api(second.authUrl, 'GET', '/v1/users', { token: doomed });
    assert.equal(revoked.json.code, 'token_revoked', 'a revoked token stays revoked');
    const events = await api(second.authUrl, 'GET', '/v1/events?type=user.created', { token });
    assert.ok(events.json.events.some((e: { target?: { name: string } }) => e.target?.name === 'survivor'));
  } finally {
    await stop(second);
  }
});

test('GATEHOUSE_BOOTSTRAP_API_KEY is the admin key and nothing is printed or written', async () => {
  const dataDir = tempDir();
  const bootstrap = 'my-automation-key-with-at-least-32-characters';
  const r = await run({ GATEHOUSE_DATA_DIR: dataDir, GATEHOUSE_BOOTSTRAP_API_KEY: bootstrap });
  try {
    assert.throws(() => statSync(join(dataDir, 'admin-api-key')));
    assert.ok(!r.output().includes(bootstrap));
    const res = await api(r.authUrl, 'POST', '/v1/auth/token', { body: { api_key: bootstrap } });
    assert.equal(res.status, 200);
  } finally {
    await stop(r);
  }
});

test('a YAML config file is read, and environment variables override it', async () => {
  const dataDir = tempDir();
  const file = join(dataDir, 'gatehouse.yaml');
  writeFileSync(file, `data_dir: ${dataDir}\ntokens:\n  access_ttl: 5m\n`);
  const r = await run({ GATEHOUSE_BOOTSTRAP_API_KEY: 'k'.repeat(40), GATEHOUSE_TOKENS_ACCESS_TTL: '10m' }, [
    'start',
    '--config',
    file,
  ]);
  try {
    const res = await api(r.authUrl, 'POST', '/v1/auth/token', { body: { api_key: 'k'.repeat(40) } });
    assert.equal(res.json.expires_in, 600);
  } finally {
    await stop(r);
  }
});

test('a bad setting stops the process with a message naming the key', async () => {
  const dataDir = tempDir();
  await assert.rejects(
    run({ GATEHOUSE_DATA_DIR: dataDir, GATEHOUSE_TOKENS_ACCESS_TTL: 'forever' }),
    (e: Error & { code?: number }) => {
      assert.equal(e.code, 2);
      assert.match(e.message, /tokens\.access_ttl \(or GATEHOUSE_TOKENS_ACCESS_TTL\)/);
      assert.ok(!/\n\s+at /.test(e.message), 'no stack trace');
      return true;
    },
  );
  await assert.rejects(
    run({ GATEHOUSE_DATA_DIR: dataDir, GATEHOUSE_AUTH_ADDR: '0.0.0.0:0' }),
    /not loopback; configure tls/,
  );
  await assert.rejects(
    run({ GATEHOUSE_DATA_DIR: dataDir, GATEHOUSE_AUDIT_URL: 'mysql://127.0.0.1/test' }),
    /audit_url/,
  );
});

test('an unreachable audit store stops the start with one clear line, not a stack trace', async () => {
  const dataDir = tempDir();
  await assert.rejects(
    run({ GATEHOUSE_DATA_DIR: dataDir, GATEHOUSE_AUDIT_URL: 'postgres://postgres@127.0.0.1:1/test' }),
    (e: Error & { code?: number }) => {
      assert.equal(e.code, 1);
      assert.match(e.message, /cannot open the audit store \(audit_url\)/);
      assert.ok(!/\n\s+at /.test(e.message), `stack trace printed: ${e.message}`);
      return true;
    },
  );
});
