// Configuration as an operator writes it: the comma forms the README shows work in YAML too, a
// misspelled GATEHOUSE_* variable is reported (with the name it probably meant) instead of being
// ignored in silence, and the start line names every listener.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ConfigError, loadConfig, unknownVariables } from '../src/config/load.js';
import { api } from './helpers/gatehouse.js';

const withFile = <T>(yaml: string, fn: (file: string) => T): T => {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-config-'));
  try {
    const file = join(dir, 'gatehouse.yaml');
    writeFileSync(file, yaml);
    return fn(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

test('YAML lists may be written comma-separated, as the README and the variables do', () => {
  const config = withFile(
    'roles: auth\nwebhook_allowed_hosts: hooks.internal, 10.0.0.7\nwebhooks:\n  retry_schedule: 1s,30s,2m\n',
    (file) => loadConfig({ file, env: {} }),
  );
  assert.deepEqual(config.roles, ['auth']);
  assert.deepEqual(config.webhook_allowed_hosts, ['hooks.internal', '10.0.0.7']);
  assert.deepEqual(config.webhooks.retry_schedule, ['1s', '30s', '2m']);
  const both = withFile('roles: auth,proxy\n', (file) => loadConfig({ file, env: {} }));
  assert.deepEqual(both.roles, ['auth', 'proxy']);
  // Sequences still work, and a bad element is still named.
  const seq = withFile('roles: [proxy, auth]\n', (file) => loadConfig({ file, env: {} }));
  assert.deepEqual(seq.roles, ['proxy', 'auth']);
  assert.throws(
    () => withFile('roles: auth,poxy\n', (file) => loadConfig({ file, env: {} })),
    (e: Error) => e instanceof ConfigError && /roles/.test(e.message),
  );
});

test('a GATEHOUSE_* variable that names no setting gets a warning naming the nearest one', () => {
  const warnings = unknownVariables({
    GATEHOUSE_AUTH_ADR: '127.0.0.1:1',
    GATEHOUSE_TOKENS_ACCES_TTL: '5m',
    GATEHOUSE_COMPLETELY_DIFFERENT_THING: 'x',
    GATEHOUSE_DATA_DIR: '/tmp/x',
    GATEHOUSE_ALLOW_UNSUPPORTED_NODE: '1',
    GATEHOUSE_TEST_POSTGRES_URL: 'postgres://x',
    HOME: '/root',
  });
  assert.deepEqual(warnings, [
    'GATEHOUSE_AUTH_ADR is not a Gatehouse setting and is ignored; did you mean GATEHOUSE_AUTH_ADDR?',
    'GATEHOUSE_COMPLETELY_DIFFERENT_THING is not a Gatehouse setting and is ignored',
    'GATEHOUSE_TOKENS_ACCES_TTL is not a Gatehouse setting and is ignored; did you mean GATEHOUSE_TOKENS_ACCESS_TTL?',
  ]);
});

test('gatehouse start warns about a misspelled variable and names every listener', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-banner-'));
  const ports = Object.fromEntries(
    ['AUTH', 'WEB', 'SSH', 'METRICS', 'KUBE', 'DB'].map((p) => [`GATEHOUSE_${p}_ADDR`, '127.0.0.1:0']),
  );
  const child = spawn(process.execPath, ['bin/gatehouse.mjs', 'start'], {
    env: {
      PATH: process.env.PATH ?? '',
      GATEHOUSE_DATA_DIR: dataDir,
      GATEHOUSE_BOOTSTRAP_API_KEY: 'banner-test-bootstrap-key-0123456789abcdef',
      GATEHOUSE_WEBHOOKS_DELIVER: 'false',
      GATEHOUSE_LOG_LEVEL: 'warn',
      GATEHOUSE_METRICS_ENABLE: 'false',
      ...ports,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => {
    out += d;
  });
  child.stderr.on('data', (d) => {
    out += d;
  });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  try {
    // Generous: starting from the TypeScript sources on a busy 2-core machine takes a while.
    const started = Date.now();
    while (!/^Gatehouse .*\n/m.test(out)) {
      assert.ok(Date.now() - started < 90_000, `no start within 90 s:\n${out}`);
      assert.equal(child.exitCode, null, `exited:\n${out}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.match(
      out,
      /gatehouse: warning: GATEHOUSE_METRICS_ENABLE is not a Gatehouse setting and is ignored; did you mean GATEHOUSE_METRICS_ENABLED\?/,
    );
    const line = out.split('\n').find((l) => l.startsWith('Gatehouse ')) as string;
    for (const part of [
      /auth API http:\/\/127\.0\.0\.1:\d+/,
      /web http:\/\/127\.0\.0\.1:\d+/,
      /SSH 127\.0\.0\.1:\d+/,
      /Kubernetes https:\/\/127\.0\.0\.1:\d+/,
      /PostgreSQL 127\.0\.0\.1:\d+/,
      /metrics http:\/\/127\.0\.0\.1:\d+\/metrics/,
    ]) {
      assert.match(line, part);
    }
    // The ports named are the ones listening.
    const metrics = /metrics (http:\/\/[^\s,]+)/.exec(line)?.[1] as string;
    assert.equal((await fetch(metrics)).status, 200);
    const auth = /auth API (http:\/\/[^\s,]+)/.exec(line)?.[1] as string;
    assert.equal((await api(auth, 'GET', '/healthz')).status, 200);
  } finally {
    child.kill('SIGTERM');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
});
