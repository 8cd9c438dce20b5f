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

test('inside proxy/, a door imports the door kit, never another door; only proxy/*.ts composes doors', async () => {
  // @ts-expect-error: as above.
  const { doorBreach, SRC } = await import('../scripts/check-layers.mjs');
  const at = (p: string) => `${SRC}/${p}`;
  assert.match(
    doorBreach(at('proxy/mcp/mcp-door.ts'), at('proxy/app/app-door.ts')),
    /the mcp door imports the app door/,
  );
  assert.match(
    doorBreach(at('proxy/common/relay.ts'), at('proxy/ssh/ssh-proxy.ts')),
    /door kit .* imports the ssh door/,
  );
  // Controls: the kit, the door's own folder, and the composition file directly in proxy/.
  assert.equal(doorBreach(at('proxy/mcp/mcp-door.ts'), at('proxy/common/relay.ts')), undefined);
  assert.equal(doorBreach(at('proxy/app/app-door.ts'), at('proxy/app/app-redeem.ts')), undefined);
  assert.equal(doorBreach(at('proxy/web-doors.ts'), at('proxy/mcp/mcp-door.ts')), undefined);
});
