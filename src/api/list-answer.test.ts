import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Type } from '@sinclair/typebox';
import { listAnswer } from './list-answer.js';

const Item = Type.Object(
  { id: Type.String(), note: Type.String(), used: Type.Union([Type.String(), Type.Null()]) },
  { additionalProperties: false },
);
type Rec = { id: string; note: string; secret: string };

function capture() {
  const sent: Array<{ type: string; body: string }> = [];
  return { sent, reply: { type: (type: string) => ({ send: (body: string) => sent.push({ type, body }) }) } };
}

test('a page is the items through their schema, then pagination; unlisted fields never leave', () => {
  const used = new Map<string, string>();
  let calls = 0;
  const send = listAnswer<Rec>(
    'things',
    Item,
    (r) => {
      calls++;
      return { ...r, used: used.get(r.id) ?? null };
    },
    (r) => used.get(r.id),
  );
  const a: Rec = { id: 'a', note: 'x "quoted"', secret: 's3cret' };
  const b: Rec = { id: 'b', note: 'y', secret: 's3cret' };
  const { sent, reply } = capture();
  send(reply, { items: [a, b], pagination: { total: 2, page: 1, per_page: 20 } });
  assert.equal(sent[0]?.type, 'application/json; charset=utf-8');
  assert.deepEqual(JSON.parse(sent[0]?.body ?? ''), {
    things: [
      { id: 'a', note: 'x "quoted"', used: null },
      { id: 'b', note: 'y', used: null },
    ],
    pagination: { total: 2, page: 1, per_page: 20 },
  });
  assert.ok(!sent[0]?.body.includes('s3cret'));
  assert.equal(calls, 2);

  // Same records, same versions: nothing serialized again.
  send(reply, { items: [a, b], pagination: { total: 2, page: 1, per_page: 20 } });
  assert.equal(calls, 2);
  assert.equal(sent[1]?.body, sent[0]?.body);

  // A replaced record (a write) and a changed version (a use) are serialized anew.
  const a2: Rec = { ...a, note: 'changed' };
  used.set('b', '2026-11-23T10:00:00.000Z');
  send(reply, { items: [a2, b], pagination: { total: 2, page: 1, per_page: 20 } });
  assert.equal(calls, 4);
  assert.deepEqual(
    JSON.parse(sent[2]?.body ?? '').things.map((t: { note: string; used: string | null }) => [t.note, t.used]),
    [
      ['changed', null],
      ['y', '2026-11-23T10:00:00.000Z'],
    ],
  );
});

test('an empty page', () => {
  const { sent, reply } = capture();
  listAnswer<Rec>('things', Item, (r) => r)(reply, { items: [], pagination: { total: 0, page: 3, per_page: 5 } });
  assert.deepEqual(JSON.parse(sent[0]?.body ?? ''), { things: [], pagination: { total: 0, page: 3, per_page: 5 } });
});
