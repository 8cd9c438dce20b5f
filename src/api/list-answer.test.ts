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
  const sent: Array<{ type: string; body: Buffer }> = [];
  return { sent, reply: { type: (type: string) => ({ send: (body: Buffer) => sent.push({ type, body }) }) } };
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
  assert.deepEqual(JSON.parse(String(sent[0]?.body)), {
    things: [
      { id: 'a', note: 'x "quoted"', used: null },
      { id: 'b', note: 'y', used: null },
    ],
    pagination: { total: 2, page: 1, per_page: 20 },
  });
  assert.ok(!String(sent[0]?.body).includes('s3cret'));
  assert.equal(calls, 2);

  // Same records, same versions: nothing serialized again, and the page's bytes are the same ones.
  send(reply, { items: [a, b], pagination: { total: 2, page: 1, per_page: 20 } });
  assert.equal(calls, 2);
  assert.equal(sent[1]?.body, sent[0]?.body);

  // A replaced record (a write) and a changed version (a use) are serialized anew.
  const a2: Rec = { ...a, note: 'changed' };
  used.set('b', '2026-11-23T10:00:00.000Z');
  send(reply, { items: [a2, b], pagination: { total: 2, page: 1, per_page: 20 } });
  assert.equal(calls, 4);
  assert.deepEqual(
    JSON.parse(String(sent[2]?.body)).things.map((t: { note: string; used: string | null }) => [t.note, t.used]),
    [
      ['changed', null],
      ['y', '2026-11-23T10:00:00.000Z'],
    ],
  );
});

test('an empty page', () => {
  const { sent, reply } = capture();
  listAnswer<Rec>('things', Item, (r) => r)(reply, { items: [], pagination: { total: 0, page: 3, per_page: 5 } });
  assert.deepEqual(JSON.parse(String(sent[0]?.body)), { things: [], pagination: { total: 0, page: 3, per_page: 5 } });
});

test('a kept page is answered only for the same records, versions and pagination', () => {
  const used = new Map<string, string>();
  const send = listAnswer<Rec>(
    'things',
    Item,
    (r) => ({ ...r, used: used.get(r.id) ?? null }),
    (r) => used.get(r.id),
  );
  const a: Rec = { id: 'a', note: 'x', secret: 's' };
  const b: Rec = { id: 'b', note: 'y', secret: 's' };
  const c: Rec = { id: 'c', note: 'z', secret: 's' };
  const { sent, reply } = capture();
  const page = (items: Rec[], total = items.length, n = 1) =>
    send(reply, { items, pagination: { total, page: n, per_page: 2 } });
  const things = (i: number) => JSON.parse(String(sent[i]?.body));

  page([a, b]);
  page([a, b]);
  assert.equal(sent[1]?.body, sent[0]?.body, 'the same page is the same bytes');

  page([a, c]); // same first record, another second one
  assert.deepEqual(
    things(2).things.map((t: { id: string }) => t.id),
    ['a', 'c'],
  );
  page([a, b], 3); // same records, another total
  assert.equal(things(3).pagination.total, 3);
  page([a, b], 2, 2); // same records, another page number
  assert.equal(things(4).pagination.page, 2);
  page([a]); // a shorter page
  assert.deepEqual(
    things(5).things.map((t: { id: string }) => t.id),
    ['a'],
  );
  used.set('b', '2026-11-24T00:00:00.000Z'); // a later record's version changes
  page([a, b]);
  assert.equal(things(6).things[1].used, '2026-11-24T00:00:00.000Z');
  assert.notEqual(sent[6]?.body, sent[0]?.body);
  page([a, b]);
  assert.equal(sent[7]?.body, sent[6]?.body);
});
