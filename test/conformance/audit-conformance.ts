// The AuditStore contract (src/audit/types.ts) as a reusable node:test suite. Filter results are
// compared with a reference computed here from the events written, over a few hundred generated
// events with varied types, actors, targets, sessions, outcomes and times (including ties).
//
//   runAuditConformance('sqlite', async () => ({ store, reopen, cleanup }));
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type AuditEvent, type AuditQuery, type AuditStore, InvalidCursorError } from '../../src/audit/types.js';

export interface AuditFixture {
  /** A freshly opened store over empty storage that no other test shares. */
  store: AuditStore;
  /** Opens a new store over the same storage after the suite has closed the previous one. */
  reopen?: () => Promise<AuditStore>;
  /** Closes every store this fixture opened (close is idempotent) and removes the storage. */
  cleanup(): Promise<void>;
}

export type AuditOpener = () => Promise<AuditFixture>;

const TYPES = [
  'auth.token.issued',
  'auth.token.revoked',
  'auth.login.failed',
  'authz.decision', // shares "auth" but not "auth."
  'user.created',
  'user.api_key.created',
  'user.apiXkey.created', // "_" must not act as a wildcard
  'role.updated',
  'access.denied',
  '100%.done', // "%" must not act as a wildcard
];
const ACTORS = ['u-1', 'u-2', 'u-3', 'agent-1', 'gatehouse', undefined];
const TARGETS = ['r-1', 'r-2', 'u-1', undefined];
const BASE = Date.parse('2025-03-01T00:00:00.000Z');

/** Deterministic pseudo-random numbers (mulberry32), so a failure reproduces. */
export function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function actorFor(id: string | undefined): AuditEvent['actor'] {
  if (id === undefined) return { kind: 'anonymous' };
  const kind = id.startsWith('agent') ? 'agent' : id === 'gatehouse' ? 'system' : 'user';
  return { kind, id, name: `name of ${id}` };
}

/** count events in ascending time order (some share a millisecond), each with a unique id. */
export function generateEvents(count: number, seed = 42, idPrefix = 'ev', start = BASE): AuditEvent[] {
  const rand = rng(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)] as T;
  let time = start;
  return Array.from({ length: count }, (_, i) => {
    time += rand() < 0.2 ? 0 : Math.floor(rand() * 5000) + 1;
    const targetId = pick(TARGETS);
    const event: AuditEvent = {
      id: `${idPrefix}-${String(i).padStart(4, '0')}`,
      type: pick(TYPES),
      code: `GH${1000 + (i % 7)}I`,
      time: new Date(time).toISOString(),
      actor: actorFor(pick(ACTORS)),
      success: rand() < 0.7,
    };
    if (targetId !== undefined) event.target = { kind: targetId.startsWith('r') ? 'resource' : 'user', id: targetId };
    if (rand() < 0.5) event.session_id = `s-${Math.floor(rand() * 5)}`;
    if (rand() < 0.5) event.remote_addr = '192.0.2.7';
    if (rand() < 0.5) event.request_id = `req-${i}`;
    if (rand() < 0.5) event.data = { n: i, nested: { list: [1, 'two', null], flag: rand() < 0.5 } };
    return event;
  });
}

/** The events matching q's filters, newest (last appended) first; paging fields are ignored. */
function matching(events: AuditEvent[], q: Partial<AuditQuery>): AuditEvent[] {
  return events
    .filter((e) => {
      const time = Date.parse(e.time);
      if (q.types && q.types.length > 0) {
        const ok = q.types.some((t) => (t.endsWith('*') ? e.type.startsWith(t.slice(0, -1)) : e.type === t));
        if (!ok) return false;
      }
      if (q.actor !== undefined && e.actor.id !== q.actor) return false;
      if (q.actor_kind !== undefined && e.actor.kind !== q.actor_kind) return false;
      if (q.target !== undefined && e.target?.id !== q.target) return false;
      if (q.session_id !== undefined && e.session_id !== q.session_id) return false;
      if (q.success !== undefined && e.success !== q.success) return false;
      if (q.from !== undefined && time < q.from) return false;
      if (q.to !== undefined && time > q.to) return false;
      return true;
    })
    .reverse();
}

/** What query(q) must return for events appended in this order (no cursor). */
export function reference(events: AuditEvent[], q: AuditQuery): { ids: string[]; total: number } {
  const newestFirst = matching(events, q);
  const offset = q.offset ?? 0;
  return { ids: newestFirst.slice(offset, offset + q.limit).map((e) => e.id), total: newestFirst.length };
}

const ids = (events: AuditEvent[]): string[] => events.map((e) => e.id);
const all = { limit: 10_000, offset: 0, countUpTo: 1_000_000 };

async function appendInChunks(store: AuditStore, events: AuditEvent[]): Promise<void> {
  for (let i = 0; i < events.length; ) {
    const size = 1 + (i % 13);
    await store.append(events.slice(i, i + size));
    i += size;
  }
}

/** Follows nextCursor from the first page to the last; checks each page's shape on the way. */
async function readByCursor(
  store: AuditStore,
  filter: Partial<AuditQuery>,
  limit: number,
  between?: () => Promise<void>,
): Promise<{ ids: string[]; pages: number }> {
  const seen: string[] = [];
  let cursor: string | undefined;
  for (let pages = 1; ; pages++) {
    const page = await store.query({ ...filter, limit, ...(cursor === undefined ? {} : { cursor }) });
    assert.ok(page.events.length <= limit, 'a page holds at most limit events');
    seen.push(...ids(page.events));
    if (page.nextCursor === undefined) return { ids: seen, pages };
    assert.equal(typeof page.nextCursor, 'string');
    assert.equal(page.events.length, limit, 'only a full page can have a next page');
    cursor = page.nextCursor;
    if (pages > 10_000) assert.fail('cursor paging does not end');
    await between?.();
  }
}

export function runAuditConformance(name: string, open: AuditOpener): void {
  const it = (title: string, body: (f: AuditFixture) => Promise<void>) =>
    test(title, async () => {
      const fixture = await open();
      try {
        await body(fixture);
      } finally {
        await fixture.cleanup();
      }
    });

  describe(`${name} audit store conformance`, () => {
    it('append resolves once the events are readable, and they round-trip exactly', async ({ store }) => {
      const events = generateEvents(20, 7);
      for (const event of events) {
        await store.append([event]);
        const { events: newest } = await store.query({ limit: 1 });
        assert.deepEqual(newest, [event]);
      }
      await store.append([]);
      const { events: read, total } = await store.query(all);
      assert.equal(total, 20);
      assert.deepEqual(read, [...events].reverse());
      await store.ping();
    });

    it('strings any JavaScript string can hold round-trip exactly, filters included', async ({ store }) => {
      const [plain, odd] = generateEvents(2, 17);
      const strange = {
        ...(odd as AuditEvent),
        actor: { kind: 'user', id: 'u-1', name: 'nul\u0000 tab\t quote" backslash\\ ü 😀 lone\ud800 \udc00' },
        data: { nul: 'a\u0000b', lone: ['\ud83d', 'x\udfff'], text: 'literal \\u0000 and \\ud800', emoji: '😀' },
      } satisfies AuditEvent;
      const other = { ...(plain as AuditEvent), actor: { kind: 'user', id: 'u-2' } } satisfies AuditEvent;
      await store.append([other, strange]);
      assert.deepEqual((await store.query(all)).events, [strange, other]);
      assert.deepEqual(ids((await store.query({ ...all, actor: 'u-1' })).events), [strange.id]);
      // A filter value no event has: with U+0000 inside, or a prefix ending in it.
      assert.deepEqual((await store.query({ ...all, actor: 'u-1\u0000' })).total, 0);
      assert.deepEqual((await store.query({ ...all, types: ['auth\u0000*', '\u0000'] })).total, 0);
      assert.deepEqual((await store.query({ ...all, session_id: '\ud800' })).total, 0);
    });

    it('filters match a reference computed from the written events', async ({ store }) => {
      const events = generateEvents(400);
      await appendInChunks(store, events);
      const times = events.map((e) => Date.parse(e.time));
      const mid = times[200] as number;
      const tie = times.find((t, i) => i > 0 && times[i - 1] === t) as number;
      assert.ok(tie, 'the generator produced events sharing a millisecond');
      const queries: Array<Partial<AuditQuery>> = [
        {},
        { types: ['auth.token.issued'] },
        { types: ['auth.*'] },
        { types: ['auth*'] },
        { types: ['user.api_*'] },
        { types: ['100%*'] },
        { types: ['*'] },
        { types: ['user.created', 'role.*', 'access.denied'] },
        { types: ['no.such.type'] },
        { types: [] },
        { actor: 'u-1' },
        { actor: 'agent-1', success: false },
        { actor: 'no-such-actor' },
        { actor_kind: 'user' },
        { actor_kind: 'agent' },
        { actor_kind: 'system' },
        { actor_kind: 'anonymous' },
        { actor_kind: 'user', types: ['auth.*'], success: true },
        { actor_kind: 'system', actor: 'u-1' },
        { target: 'r-2' },
        { target: 'u-1', types: ['user.*'] },
        { session_id: 's-1' },
        { session_id: 's-3', actor: 'u-2' },
        { session_id: 's-0', actor_kind: 'agent', types: ['auth.*', 'role.*'] },
        { session_id: 'no-such-session' },
        { success: true },
        { success: false },
        { from: mid },
        { to: mid },
        { from: mid, to: mid },
        { from: tie, to: tie },
        { from: times[100], to: times[300], actor: 'u-2' },
        { from: times[100], to: times[300], session_id: 's-2' },
        { from: (times[399] as number) + 1 },
        { to: BASE - 1 },
        { types: ['auth.*'], actor: 'u-3', target: 'r-1', success: true, from: times[50], to: times[350] },
      ];
      let nonEmpty = 0;
      for (const q of queries) {
        const full = { ...q, ...all } as AuditQuery;
        const expected = reference(events, full);
        const got = await store.query(full);
        assert.deepEqual(ids(got.events), expected.ids, `query ${JSON.stringify(q)}`);
        assert.equal(got.total, expected.total, `total for ${JSON.stringify(q)}`);
        assert.equal(got.nextCursor, undefined, `everything fit: no next page for ${JSON.stringify(q)}`);
        if (expected.total > 0 && expected.total < events.length) nonEmpty++;
      }
      assert.equal(nonEmpty, queries.length - 9, 'all but the 9 deliberate all/none filters select a proper subset');
      assert.ok(((await store.query({ from: tie, to: tie, ...all })).total ?? 0) >= 2, 'from/to are inclusive');
    });

    it('limit and offset page newest first with a stable total', async ({ store }) => {
      const events = generateEvents(250, 3);
      await appendInChunks(store, events);
      for (const filter of [{}, { types: ['auth.*', 'user.*'] }, { success: false, actor: 'u-2' }]) {
        const expected = reference(events, { ...filter, ...all });
        const seen: string[] = [];
        for (let offset = 0; offset < expected.total + 30; offset += 30) {
          const page = await store.query({ ...filter, limit: 30, offset, countUpTo: 1000 });
          assert.equal(page.total, expected.total);
          assert.deepEqual(ids(page.events), expected.ids.slice(offset, offset + 30));
          assert.equal(page.nextCursor !== undefined, offset + 30 < expected.total, 'nextCursor iff more follow');
          seen.push(...ids(page.events));
        }
        assert.deepEqual(seen, expected.ids, `pages for ${JSON.stringify(filter)}`);
        const beyond = await store.query({ ...filter, limit: 10, offset: expected.total, countUpTo: 1000 });
        assert.deepEqual(beyond, { events: [], total: expected.total });
      }
    });

    it('total is present only when asked for, and countUpTo caps it', async ({ store }) => {
      const events = generateEvents(300, 21);
      await appendInChunks(store, events);
      const noCount = await store.query({ limit: 5 });
      assert.equal('total' in noCount, false, 'no countUpTo, no total');
      for (const filter of [{}, { types: ['auth.*'] }, { actor_kind: 'agent' as const, success: true }]) {
        const expected = reference(events, { ...filter, ...all });
        assert.ok(expected.total > 3);
        for (const cap of [0, 1, 3, expected.total - 1, expected.total, expected.total + 1, 100_000]) {
          const page = await store.query({ ...filter, limit: 3, countUpTo: cap });
          assert.equal(page.total, Math.min(expected.total, cap), `countUpTo ${cap} for ${JSON.stringify(filter)}`);
          assert.deepEqual(ids(page.events), expected.ids.slice(0, 3), 'countUpTo does not change the page');
        }
        // The total counts the whole filter, whichever page is read.
        const first = await store.query({ ...filter, limit: 2 });
        const second = await store.query({ ...filter, limit: 2, cursor: first.nextCursor as string, countUpTo: 1000 });
        assert.equal(second.total, expected.total);
        assert.deepEqual(ids(second.events), expected.ids.slice(2, 4));
      }
      const none = await store.query({ limit: 0, countUpTo: 1000 });
      assert.deepEqual(none.events, []);
      assert.equal(none.total, 300);
    });

    it('cursor pages concatenate to exactly the offset-free result, for any page size', async ({ store }) => {
      const events = generateEvents(230, 31);
      await appendInChunks(store, events);
      const filters: Array<Partial<AuditQuery>> = [
        {},
        { types: ['auth.*'] },
        { actor: 'u-2' },
        { actor_kind: 'user', success: false },
        { session_id: 's-4' },
        { target: 'r-1', from: Date.parse(events[40]?.time as string), to: Date.parse(events[190]?.time as string) },
        { types: ['no.such.type'] },
      ];
      for (const filter of filters) {
        const expected = reference(events, { ...filter, ...all }).ids;
        for (const limit of [1, 7, 64, expected.length, expected.length + 1]) {
          if (limit === 0) continue;
          const read = await readByCursor(store, filter, limit);
          const what = `${JSON.stringify(filter)} limit ${limit}`;
          assert.deepEqual(read.ids, expected, `cursor pages for ${what}`);
          assert.equal(new Set(read.ids).size, read.ids.length, `no duplicates for ${what}`);
          assert.equal(read.pages, Math.max(1, Math.ceil(expected.length / limit)), `page count for ${what}`);
        }
      }
    });

    it('cursor pages neither skip nor repeat events while new events are appended between pages', async ({ store }) => {
      const events = generateEvents(180, 37);
      await appendInChunks(store, events);
      const later = generateEvents(120, 38, 'later', Date.parse(events[179]?.time as string));
      let next = 0;
      const appendSome = async () => {
        const chunk = later.slice(next, next + 4);
        next += 4;
        // Concurrent appends, landing in one or more group commits.
        await Promise.all(chunk.map((e) => store.append([e])));
      };
      for (const filter of [{}, { types: ['auth.*', 'user.*'] }, { actor_kind: 'user' as const }]) {
        const before = [...events, ...later.slice(0, next)];
        const expected = reference(before, { ...filter, ...all }).ids;
        const read = await readByCursor(store, filter, 9, appendSome);
        assert.deepEqual(read.ids, expected, `pages for ${JSON.stringify(filter)} while appending`);
      }
      assert.ok(next > 20, 'events were appended between pages');
      // And the newest of them come first in a fresh read.
      const fresh = await store.query({ limit: 3 });
      assert.deepEqual(ids(fresh.events), ids(later.slice(0, next).reverse().slice(0, 3)));
    });

    it('a cursor combines with an offset: skip matching rows after the cursor', async ({ store }) => {
      const events = generateEvents(100, 41);
      await appendInChunks(store, events);
      const expected = reference(events, { types: ['auth.*'], ...all }).ids;
      const first = await store.query({ types: ['auth.*'], limit: 5 });
      const page = await store.query({ types: ['auth.*'], limit: 4, offset: 3, cursor: first.nextCursor as string });
      assert.deepEqual(ids(page.events), expected.slice(8, 12));
    });

    it('a malformed or tampered cursor is refused with InvalidCursorError', async ({ store }) => {
      await appendInChunks(store, generateEvents(30, 43));
      const valid = (await store.query({ limit: 10 })).nextCursor as string;
      assert.equal(typeof valid, 'string');
      const b64 = (s: string) => Buffer.from(s, 'latin1').toString('base64url');
      const garbage = [
        '',
        ' ',
        'not a cursor',
        '!!!!',
        '%4D%54%41',
        `${valid}=`,
        `${valid}.`,
        `${valid} `,
        `${valid}\u0000`,
        'MTB', // "10" with stray bits: not the canonical encoding
        b64('-1'),
        b64('1e3'),
        b64('01'),
        b64('1.5'),
        b64(' 12'),
        b64('12 '),
        b64('0x10'),
        b64('abc'),
        b64('99999999999999999999'),
        b64('9223372036854775808'),
        b64(`${'1'.repeat(40)}`),
        'A'.repeat(5000),
        '😀',
      ];
      for (const cursor of garbage) {
        await assert.rejects(
          store.query({ limit: 10, cursor }),
          InvalidCursorError,
          `cursor ${JSON.stringify(cursor.slice(0, 40))}`,
        );
        await assert.rejects(store.tail(cursor, 10), InvalidCursorError, `position ${JSON.stringify(cursor)}`);
      }
      // The valid one still works, also with other filters and after the store saw more writes.
      await store.append(generateEvents(3, 44, 'more'));
      assert.equal((await store.query({ limit: 100, cursor: valid })).events.length, 20);
      assert.equal((await store.query({ limit: 100, cursor: b64('0') })).events.length, 0, '0 is before everything');
    });

    it('tail sees every event exactly once, in write order, across calls and concurrent appends', async ({ store }) => {
      assert.deepEqual(await store.tail(undefined, 10), { events: [], position: undefined });
      const events = generateEvents(400, 47);
      const seen: AuditEvent[] = [];
      let position: string | undefined;
      let calls = 0;
      const pull = async () => {
        const limit = 1 + (calls++ % 17);
        const got = await store.tail(position, limit);
        assert.ok(got.events.length <= limit, 'tail respects limit');
        assert.ok(seen.length + got.events.length <= events.length, 'tail never returns more events than were written');
        if (got.events.length === 0) assert.equal(got.position, position, 'no events, same position');
        seen.push(...got.events);
        position = got.position;
        return got.events.length;
      };
      // Producers append in small concurrent batches while the consumer keeps pulling.
      let writing = true;
      const producers = (async () => {
        const batches: AuditEvent[][] = [];
        for (let i = 0; i < events.length; i += 1 + (i % 5)) batches.push(events.slice(i, i + 1 + (i % 5)));
        for (let i = 0; i < batches.length; i += 6)
          await Promise.all(batches.slice(i, i + 6).map((b) => store.append(b)));
        writing = false;
      })();
      while (writing) {
        await pull();
        await new Promise((r) => setImmediate(r));
      }
      await producers;
      while ((await pull()) > 0);
      const writeOrder = ids((await store.query(all)).events).reverse();
      assert.equal(writeOrder.length, events.length);
      assert.deepEqual(ids(seen), writeOrder, 'tail order is write order, each event once');
      assert.deepEqual(
        seen.find((e) => e.id === 'ev-0200'),
        events[200],
      );
      // Each append's events stay together and in order.
      const index = new Map(ids(seen).map((id, i) => [id, i]));
      for (let i = 0; i < events.length; i += 1 + (i % 5)) {
        const batch = events.slice(i, i + 1 + (i % 5)).map((e) => index.get(e.id) as number);
        const first = batch[0] as number;
        assert.deepEqual(
          batch,
          Array.from(batch, (_, k) => first + k),
          `the append at ${i} stays contiguous`,
        );
      }
      // A saved position resumes exactly after it; from the beginning again reads the same order.
      const early = await store.tail(undefined, 150);
      assert.deepEqual(ids(early.events), writeOrder.slice(0, 150));
      const rest = await store.tail(early.position, 10_000);
      assert.deepEqual(ids(rest.events), writeOrder.slice(150));
      const tailEnd = await store.tail(rest.position, 10);
      assert.deepEqual(tailEnd, { events: [], position: rest.position });
      await store.append(generateEvents(2, 48, 'new'));
      assert.deepEqual(ids((await store.tail(rest.position, 10)).events), ['new-0000', 'new-0001']);
    });

    it('head names the position tail reaches after the last committed event, without reading events', async ({
      store,
    }) => {
      assert.ok(store.head, 'every store names its head (the webhook dispatcher skips to it)');
      assert.equal(await store.head(), undefined, 'none yet');
      await store.append(generateEvents(30, 49, 'hd'));
      const all = await store.tail(undefined, 100);
      assert.equal(all.events.length, 30);
      assert.equal(await store.head(), all.position);
      await store.append(generateEvents(2, 50, 'hd2'));
      const head = (await store.head()) as string;
      assert.deepEqual(ids((await store.tail(all.position, 10)).events), ['hd2-0000', 'hd2-0001']);
      assert.deepEqual(await store.tail(head, 10), { events: [], position: head }, 'nothing after the head');
    });

    it('deleteBefore deletes only older events, in batches, oldest first', async ({ store }) => {
      // Written out of time order, so "oldest" (by time, then write order) differs from write order.
      const events = generateEvents(160, 53);
      const rand = rng(54);
      const shuffled = [...events];
      for (let i = shuffled.length - 1; i > 0; i--) {
        const j = Math.floor(rand() * (i + 1));
        [shuffled[i], shuffled[j]] = [shuffled[j] as AuditEvent, shuffled[i] as AuditEvent];
      }
      await appendInChunks(store, shuffled);
      assert.equal(await store.deleteBefore(BASE, 10), 0, 'nothing is older than the first event');
      const times = events.map((e) => Date.parse(e.time));
      const cutoff = times.find((t, i) => i >= 60 && times[i - 1] === t) as number; // a tie at the cutoff
      assert.ok(cutoff);
      const writeIndex = new Map(shuffled.map((e, i) => [e.id, i]));
      const older = events
        .filter((e) => Date.parse(e.time) < cutoff)
        .sort(
          (a, b) =>
            Date.parse(a.time) - Date.parse(b.time) || (writeIndex.get(a.id) ?? 0) - (writeIndex.get(b.id) ?? 0),
        );
      assert.ok(older.length >= 50);
      let deleted = 0;
      for (;;) {
        const n = await store.deleteBefore(cutoff, 7);
        assert.equal(n, Math.min(7, older.length - deleted), 'a full batch while older events remain');
        if (n === 0) break;
        deleted += n;
        const gone = new Set(ids(older.slice(0, deleted)));
        const expected = shuffled.filter((e) => !gone.has(e.id)).reverse();
        const left = await store.query(all);
        assert.deepEqual(ids(left.events), ids(expected), `after deleting ${deleted}, the oldest are gone`);
      }
      assert.equal(deleted, older.length);
      const left = await store.query(all);
      assert.ok(
        left.events.every((e) => Date.parse(e.time) >= cutoff),
        'nothing older than the cutoff is left',
      );
      assert.ok(
        left.events.some((e) => Date.parse(e.time) === cutoff),
        'events at exactly the cutoff stay',
      );
      assert.equal(left.total, events.length - older.length);
      assert.equal(await store.deleteBefore(cutoff, 1000), 0);
      // A big batch takes everything older in one call; what is left still reads and tails.
      const end = (times[159] as number) + 1;
      assert.equal(await store.deleteBefore(end, 100_000), events.length - older.length);
      assert.deepEqual(await store.query({ limit: 10, countUpTo: 10 }), { events: [], total: 0 });
      await store.append(generateEvents(1, 55, 'after'));
      assert.deepEqual(ids((await store.tail(undefined, 10)).events), ['after-0000']);
    });

    it('at 15,000 events, every kind of filter pages and counts like the reference', async ({ store }) => {
      // Enough rows that size-dependent plans (large time ranges, many types under one prefix) are taken.
      const events = generateEvents(15_000, 59).map((e, i) => (i % 5 === 0 ? { ...e, type: `bulk.t${i % 70}` } : e));
      for (let i = 0; i < events.length; i += 1000) await store.append(events.slice(i, i + 1000));
      const at = (fraction: number) => Date.parse(events[Math.floor(fraction * (events.length - 1))]?.time as string);
      const queries: Array<Partial<AuditQuery>> = [
        {},
        { success: false },
        { types: ['bulk.*'] }, // 70 types under one prefix
        { types: ['bulk.t1*'] },
        { types: ['bulk.*', 'auth.*'], success: true },
        { types: ['auth.*'], actor: 'u-2' },
        { types: ['user.*'], actor_kind: 'agent' },
        { from: at(0.6) },
        { from: at(0.05), to: at(0.97) },
        { from: at(0.1), to: at(0.5) },
        { from: at(0.5), to: at(0.52) },
        { from: at(0.1), to: at(0.5), success: false },
        { from: at(0.2), to: at(0.3), types: ['bulk.*'] },
        { session_id: 's-2', from: at(0.4) },
        { target: 'r-1', types: ['auth.*', 'bulk.t2*'] },
      ];
      for (const q of queries) {
        const expected = reference(events, { ...q, ...all });
        const what = JSON.stringify(q);
        assert.ok(expected.total > 75, `${what} matches enough to page`);
        let cursor: string | undefined;
        const seen: string[] = [];
        for (let p = 0; p < 3; p++) {
          const page = await store.query({ ...q, limit: 25, ...(cursor ? { cursor } : {}), countUpTo: 100_000 });
          assert.equal(page.total, expected.total, `total for ${what}`);
          seen.push(...ids(page.events));
          cursor = page.nextCursor;
        }
        assert.deepEqual(seen, expected.ids.slice(0, 75), `three cursor pages for ${what}`);
        const byOffset = await store.query({ ...q, limit: 25, offset: 50 });
        assert.deepEqual(ids(byOffset.events), expected.ids.slice(50, 75), `offset page for ${what}`);
        assert.equal((await store.query({ ...q, limit: 1, countUpTo: 60 })).total, 60, `capped count for ${what}`);
      }
    });

    it('prefix filters are case-sensitive, like exact ones', async ({ store }) => {
      const [lower, upper] = generateEvents(2, 11);
      await store.append([
        { ...(lower as AuditEvent), type: 'session.start' },
        { ...(upper as AuditEvent), type: 'Session.Start' },
      ]);
      assert.deepEqual(ids((await store.query({ types: ['session.start'], ...all })).events), [lower?.id]);
      assert.deepEqual(ids((await store.query({ types: ['session.*'], ...all })).events), [lower?.id]);
    });

    it('concurrent appends from many callers all land (group commit)', async ({ store }) => {
      const events = generateEvents(600, 5);
      const batches: AuditEvent[][] = [];
      for (let i = 0; i < events.length; i += 1 + (i % 4)) batches.push(events.slice(i, i + 1 + (i % 4)));
      await Promise.all(batches.map((batch) => store.append(batch)));
      const { events: read, total } = await store.query(all);
      assert.equal(total, events.length);
      assert.deepEqual([...ids(read)].sort(), ids(events));
      assert.deepEqual(
        read.find((e) => e.id === 'ev-0123'),
        events[123],
      );
    });

    it("one caller's rejected append does not fail other callers' appends", async ({ store }) => {
      const [first, second, third, fourth] = generateEvents(4, 13);
      await store.append([first as AuditEvent]);
      const [innocent, duplicate, alsoInnocent] = await Promise.allSettled([
        store.append([second as AuditEvent]),
        store.append([third as AuditEvent, first as AuditEvent]),
        store.append([fourth as AuditEvent]),
      ]);
      assert.equal(innocent?.status, 'fulfilled', "the innocent caller's append succeeds");
      assert.equal(alsoInnocent?.status, 'fulfilled', 'so does the one after the bad one');
      assert.equal(duplicate?.status, 'rejected', 'an id is stored once: the duplicate is refused');
      const read = ids((await store.query(all)).events);
      assert.deepEqual(read.sort(), [first?.id, second?.id, fourth?.id].sort());
      assert.ok(!read.includes(third?.id as string), 'a rejected append writes nothing');
    });

    it('events survive close and reopen; close lets pending appends commit', async (f) => {
      const events = generateEvents(120, 9);
      await appendInChunks(f.store, events.slice(0, 100));
      const pending = f.store.append(events.slice(100));
      await f.store.close();
      await pending;
      await f.store.close();
      await assert.rejects(f.store.append(generateEvents(1, 1, 'late')));
      if (!f.reopen) return;
      const store = await f.reopen();
      const { events: read, total } = await store.query(all);
      assert.equal(total, 120);
      assert.deepEqual(read, [...events].reverse());
      await store.append(generateEvents(1, 1, 'after'));
      assert.equal((await store.query({ limit: 1 })).events[0]?.id, 'after-0000');
      const { position } = await store.tail(undefined, events.length);
      assert.deepEqual(ids((await store.tail(position, 5)).events), ['after-0000'], 'tail continues after reopen');
    });
  });
}
