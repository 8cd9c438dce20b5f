// Break-glass refusals: `gatehouse admin reset` while a server runs on the same store, bad usage and
// a missing store; one line each, never a stack trace. A file of its own (as admin-reset-mfa): each
// reset test starts real servers and the reset as child processes, and together they ran past the
// runner's 180 s per file on a loaded 2-core machine.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { BOOTSTRAP, noStack, printedKey, tempDir, tokenFor } from './helpers/admin-reset.js';
import { api } from './helpers/gatehouse.js';
import { run, runToExit, stop } from './helpers/process.js';

test('reset refuses while a server uses the same store, naming it; --force resets anyway', async () => {
  const dataDir = tempDir();
  const env = { GATEHOUSE_DATA_DIR: dataDir, GATEHOUSE_BOOTSTRAP_API_KEY: BOOTSTRAP };
  const server = await run(env);
  let forcedKey: string;
  try {
    const refused = await runToExit(env, ['admin', 'reset']);
    assert.equal(refused.code, 1);
    assert.equal(refused.stdout, '', 'no key');
    assert.match(refused.stderr, /^gatehouse: refusing to reset: the state store is in use by gatehouse pid \d+/);
    assert.ok(refused.stderr.includes(`pid ${server.child.pid} on `), `names the server:\n${refused.stderr}`);
    assert.match(refused.stderr, /Stop it \(Ctrl-C or SIGTERM\) and run this again, or pass --force/);
    assert.equal(refused.stderr.trim().split('\n').length, 1, 'one line');

    const forced = await runToExit(env, ['admin', 'reset', '--force']);
    assert.equal(forced.code, 0, forced.stderr);
    forcedKey = printedKey(forced.stdout);
    assert.match(forced.stderr, /--force: gatehouse pid \d+ .* still uses this store/);
  } finally {
    assert.equal(await stop(server), 0);
  }
  const again = await run(env);
  try {
    const token = await tokenFor(again, forcedKey);
    assert.equal((await api(again.authUrl, 'GET', '/v1/users', { token })).status, 200);
  } finally {
    await stop(again);
  }
});

test('bad usage exits 2, a missing store exits 1; one line each, never a stack trace', async () => {
  const dataDir = tempDir();
  const env = { GATEHOUSE_DATA_DIR: dataDir };
  const usages = [
    ['admin', 'reset', '--bogus'],
    ['admin', 'reset', '--user'],
    ['admin', 'reset', '--user', 'no spaces'],
    ['admin', 'frobnicate'],
    ['admin'],
  ];
  const [results, badConfig, missing, help] = await Promise.all([
    Promise.all(usages.map((args) => runToExit(env, args))),
    runToExit({ ...env, GATEHOUSE_TOKENS_ACCESS_TTL: 'forever' }, ['admin', 'reset']),
    runToExit({ GATEHOUSE_DATA_DIR: join(dataDir, 'nowhere') }, ['admin', 'reset']),
    runToExit(env, ['admin', 'reset', '--help']),
  ]);
  results.forEach((r, i) => {
    const args = (usages[i] as string[]).join(' ');
    assert.equal(r.code, 2, `${args}: ${r.stderr}`);
    assert.match(r.stderr, /^gatehouse: .+\nusage: gatehouse admin reset/, args);
    assert.equal(r.stdout, '');
    noStack(r.stderr);
  });
  assert.equal(badConfig.code, 2);
  assert.match(badConfig.stderr, /^gatehouse: config key tokens\.access_ttl/);

  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /^gatehouse: no state store at .*nowhere\/state\.db; check --config/);
  noStack(missing.stderr);

  assert.equal(help.code, 0);
  assert.match(help.stdout, /^usage: gatehouse admin reset \[--config FILE\] \[--user NAME\] \[--force\]/);
});
