// How Gatehouse is run in production: `npm start` (and the `gatehouse` bin it runs) must let a
// SIGTERM from systemd or a container runtime — sent to the process they started, npm — reach
// Gatehouse, which closes every port and commits what it acknowledged before exiting.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { api } from './helpers/gatehouse.js';
import { run, stop } from './helpers/process.js';

const KEY = 'signal-test-bootstrap-key-0123456789abcdef';
const refused = (url: string) =>
  new Promise<boolean>((resolve) => {
    const s = connect(Number(new URL(url).port), '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(false);
    });
    s.once('error', () => resolve(true));
  });

test('SIGTERM to the process `npm start` created closes the ports within 10 s; acknowledged writes survive', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-signal-'));
  try {
    const env = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      GATEHOUSE_DATA_DIR: dataDir,
      GATEHOUSE_BOOTSTRAP_API_KEY: KEY,
      GATEHOUSE_WEBHOOKS_DELIVER: 'false',
      GATEHOUSE_LOG_LEVEL: 'warn',
    };
    const ports = Object.fromEntries(
      ['AUTH', 'WEB', 'SSH', 'METRICS', 'KUBE', 'DB'].map((p) => [`GATEHOUSE_${p}_ADDR`, '127.0.0.1:0']),
    );
    const npm = spawn('npm', ['start', '--silent'], { env: { ...env, ...ports }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    npm.stdout.on('data', (d) => {
      out += d;
    });
    npm.stderr.on('data', (d) => {
      out += d;
    });
    const exited = new Promise<number | null>((resolve) => npm.on('exit', (code) => resolve(code)));
    const started = Date.now();
    while (!/auth API (http:\/\/[^\s,]+), web (http:\/\/[^\s,]+)/.test(out)) {
      assert.ok(Date.now() - started < 90_000, `no start within 90 s:\n${out}`);
      assert.equal(npm.exitCode, null, `npm start exited:\n${out}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const [, authUrl, webUrl] = /auth API (http:\/\/[^\s,]+), web (http:\/\/[^\s,]+)/.exec(out) as unknown as string[];
    const token = (await api(authUrl as string, 'POST', '/v1/auth/token', { body: { api_key: KEY } })).json
      .access_token;

    // Writes in flight when the signal arrives: each one answered 201 must be there after a restart.
    const writes = Array.from({ length: 40 }, (_, i) =>
      api(authUrl as string, 'POST', '/v1/users', { token, body: { name: `queued-${i}`, roles: ['auditor'] } }).catch(
        () => undefined,
      ),
    );
    await Promise.race(writes); // the signal lands while the rest are in flight
    const signalled = Date.now();
    npm.kill('SIGTERM');
    const code = await exited;
    const tookMs = Date.now() - signalled;
    const acknowledged = (await Promise.all(writes)).filter((r) => r?.status === 201).map((r) => r?.json.id);
    assert.ok(acknowledged.length > 0, 'some writes were answered');
    assert.ok(tookMs < 10_000, `npm start exited ${tookMs} ms after SIGTERM:\n${out}`);
    assert.equal(code, 0, `exit code ${code}:\n${out}`);
    assert.match(out, /SIGTERM, shutting down/, 'the signal reached Gatehouse itself');
    assert.ok(await refused(authUrl as string), 'the auth port is closed');
    assert.ok(await refused(webUrl as string), 'the web port is closed');

    const again = await run({ GATEHOUSE_DATA_DIR: dataDir, GATEHOUSE_BOOTSTRAP_API_KEY: KEY, ...ports });
    try {
      const t = (await api(again.authUrl, 'POST', '/v1/auth/token', { body: { api_key: KEY } })).json.access_token;
      for (const id of acknowledged) {
        assert.equal((await api(again.authUrl, 'GET', `/v1/users/${id}`, { token: t })).status, 200, `${id} was lost`);
      }
      const events = await api(again.authUrl, 'GET', '/v1/events?type=user.created&per_page=100', { token: t });
      const recorded = new Set(events.json.events.map((e: { target?: { id: string } }) => e.target?.id));
      for (const id of acknowledged) assert.ok(recorded.has(id), `the user.created event of ${id} was lost`);
    } finally {
      await stop(again);
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
