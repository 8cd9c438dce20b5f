import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { test } from 'node:test';
import { watchFilter } from './kube-filter.js';

const collect = async (chunks: string[], max: number) => {
  const out: string[] = [];
  const filter = watchFilter((o) => o.metadata?.name !== 'hidden', max);
  filter.on('data', (c: Buffer) => out.push(c.toString()));
  await pipeline(Readable.from(chunks.map((c) => Buffer.from(c))), filter);
  return out.join('');
};

test('a watch event with no end in sight is not held without bound: the stream fails past the bound', async () => {
  const endless = Array.from({ length: 20 }, () => 'x'.repeat(100));
  await assert.rejects(collect(endless, 1000), /watch event exceeded the proxy bound/);
});

test('events under the bound pass, one by one, filtered (the control)', async () => {
  const ev = (name: string) => `${JSON.stringify({ type: 'ADDED', object: { metadata: { name } } })}\n`;
  const out = await collect([ev('a'), ev('hidden'), ev('b')], 1000);
  assert.equal(out, ev('a') + ev('b'));
});
