// The layer rule (scripts/check-layers.mjs, explained in docs/architecture.md) holds over src/: no
// import points up a layer or across the two doors, and no two files import each other in a cycle.
import assert from 'node:assert/strict';
import { test } from 'node:test';
// @ts-expect-error: a plain ES module without types, which node also runs on its own.
import { checkLayers, LAYERS } from '../scripts/check-layers.mjs';

test('every import in src/ points down a layer, and no files import each other in a cycle', () => {
  assert.deepEqual(checkLayers(), []);
});

test('control: with the state store put above the domains, their imports of it are reported', () => {
  const layers = (LAYERS as string[][]).map((l) => l.filter((n) => n !== 'backend'));
  layers.push(['backend']);
  const breaches = checkLayers(layers) as string[];
  assert.ok(
    breaches.some((b) => /^agents\/.* -> backend\/.*: agents \(layer \d+\) imports backend/.test(b)),
    breaches.slice(0, 5).join('\n'),
  );
});
