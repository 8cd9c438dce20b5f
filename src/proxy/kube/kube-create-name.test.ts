import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import { nameInBody, readCreateBody } from './kube-create-name.js';

const request = (body: string, headers: Record<string, string>): IncomingMessage =>
  Object.assign(Readable.from([Buffer.from(body)]), { headers }) as unknown as IncomingMessage;
const json = { 'content-type': 'application/json' };

test('the name of a JSON create; none for generateName, other types, or broken JSON', () => {
  assert.equal(nameInBody(Buffer.from('{"metadata":{"name":"web-9"}}'), 'application/json'), 'web-9');
  assert.equal(nameInBody(Buffer.from('{"metadata":{"generateName":"web-"}}'), 'application/json'), undefined);
  assert.equal(nameInBody(Buffer.from('{"metadata":{"name":"web-9"}}'), 'application/yaml'), undefined);
  assert.equal(nameInBody(Buffer.from('{"metadata":'), 'application/json'), undefined);
  assert.equal(nameInBody(Buffer.from('null'), 'application/json'), undefined);
  assert.equal(nameInBody(Buffer.from('{"metadata":{"name":7}}'), 'application/json'), undefined);
});

test('the body is kept byte for byte with its name', async () => {
  const body = '{"apiVersion":"v1","metadata":{"name":"web-9"}}';
  const read = await readCreateBody(request(body, json));
  assert.ok(read.ok);
  assert.equal(read.body.toString(), body);
  assert.equal(read.name, 'web-9');
});

test('over the limit: 413, whether declared or streamed (positive control at the limit)', async () => {
  const atLimit = await readCreateBody(request('x'.repeat(100), json), 100);
  assert.equal(atLimit.ok, true);
  const streamed = await readCreateBody(request('x'.repeat(101), json), 100);
  assert.deepEqual(streamed.ok ? 'ok' : streamed.code, 413);
  const declared = await readCreateBody(request('x', { ...json, 'content-length': '101' }), 100);
  assert.deepEqual(declared.ok ? 'ok' : declared.code, 413);
});
