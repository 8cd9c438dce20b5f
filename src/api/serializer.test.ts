import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Type } from '@sinclair/typebox';
import build from 'fast-json-stringify';
import { compileSerializer, nullableAsTypeArray } from './serializer.js';

const Schema = Type.Object(
  {
    at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'when' }),
    ttl: Type.Union([Type.Integer(), Type.Null()]),
    nested: Type.Object({ n: Type.Union([Type.Integer(), Type.Null()]) }),
    either: Type.Union([Type.String(), Type.Integer()]),
    maybeObject: Type.Union([Type.Object({ a: Type.String() }), Type.Null()]),
  },
  { additionalProperties: false },
);

test('nullable simple types become type arrays; other unions stay', () => {
  const out = nullableAsTypeArray(JSON.parse(JSON.stringify(Schema))) as { properties: Record<string, unknown> };
  assert.deepEqual(out.properties.at, { description: 'when', type: ['string', 'null'], format: 'date-time' });
  assert.deepEqual(out.properties.ttl, { type: ['integer', 'null'] });
  assert.deepEqual((out.properties.nested as { properties: { n: unknown } }).properties.n, {
    type: ['integer', 'null'],
  });
  assert.ok('anyOf' in (out.properties.either as object), 'string | integer keeps its anyOf');
  assert.ok('anyOf' in (out.properties.maybeObject as object), 'object | null keeps its anyOf');
});

test('the rewritten serializer writes what the schema as written does, values and nulls alike', () => {
  const plain = build(Schema as never);
  const rewritten = compileSerializer({ schema: Schema });
  for (const value of [
    { at: '2026-11-23T10:00:00.000Z', ttl: 60, nested: { n: 1 }, either: 'x', maybeObject: { a: 'b' } },
    { at: null, ttl: null, nested: { n: null }, either: 7, maybeObject: null },
    { at: null, ttl: 0, nested: { n: 0 }, either: '', maybeObject: null, extra: 'dropped' },
  ]) {
    assert.equal(rewritten(value), plain(value));
  }
  assert.equal(
    rewritten({ at: null, ttl: null, nested: { n: null }, either: 1, maybeObject: null, extra: 1 }).includes('extra'),
    false,
  );
});
