// On a Node.js release Gatehouse does not support, `gatehouse` stops at once with one line naming
// the supported versions, instead of aborting later in a native addon (docs/operations.md, "Node versions").
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { unsupportedNode } from '../src/node-version.js';

/** Runs bin/gatehouse.mjs as if on Node `version` (process.versions.node redefined first). */
const runAs = (version: string, env: Record<string, string> = {}) =>
  spawnSync(
    process.execPath,
    [
      '--import',
      `data:text/javascript,Object.defineProperty(process.versions,'node',{value:'${version}'})`,
      'bin/gatehouse.mjs',
      '--version',
    ],
    { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', ...env } },
  );

test('Node 24, 21 and 20.5 are refused at start with one line and exit 1', () => {
  for (const version of ['24.21.0', '21.7.3', '20.5.1']) {
    const r = runAs(version);
    assert.equal(r.status, 1, `${version}: ${r.stderr}`);
    assert.equal(r.stdout, '');
    const lines = r.stderr.trim().split('\n');
    assert.equal(lines.length, 1, r.stderr);
    assert.match(
      lines[0] as string,
      new RegExp(`^gatehouse: Node.js ${version.replace(/\./g, '\\.')} is not supported: use Node 20 .* or 22`),
    );
  }
});

test('Node 20 and 22 run (positive control), and the override lets another try', () => {
  for (const version of ['20.20.2', '22.23.3']) {
    const r = runAs(version);
    assert.equal(r.status, 0, `${version}: ${r.stderr}`);
    assert.match(r.stdout, /^gatehouse \d+\.\d+\.\d+/);
  }
  assert.equal(runAs('24.21.0', { GATEHOUSE_ALLOW_UNSUPPORTED_NODE: '1' }).status, 0);
});

test('unsupportedNode names what is supported', () => {
  assert.equal(unsupportedNode('v22.0.0'), undefined);
  assert.equal(unsupportedNode('20.6.0'), undefined);
  assert.match(unsupportedNode('18.20.4') ?? '', /use Node 20 \(20\.6 or later\) or 22/);
});
