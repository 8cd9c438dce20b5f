// The AuditStore contract (src/audit/types.ts) as a reusable node:test suite. Filter results are
// compared with a reference computed here from the events written, over a few hundred generated
// events with varied types, actors, targets, outcomes and times (including ties).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { AuditEvent, AuditQuery, AuditStore } from '../../src/audit/types.js';

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
const ACTORS = ['u-1', 'u-2', 'u-3', 'agent-1', undefined];
const TARGETS = ['r-1', 'r-2', 'u-1', undefined];
const BASE = Date.parse('2025-03-01T00:00:00.000Z');

/** Deterministic pseudo-random numbers (mulberry32), so a failure reproduces. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** count events in ascending time order (some share a millisecond), each with a unique id. */
export function generateEvents(count: number, seed = 42, idPrefix = 'ev'): AuditEvent[] {
  const rand = rng(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)] as T;
  let time = BASE;
  return Array.from({ length: count }, (_, i) => {
    time += rand() < 0.2 ? 0 : Math.floor(rand() * 5000) + 1;
    const actorId = pick(ACTORS);
    const targetId = pick(TARGETS);
    const event: AuditEvent = {
      id: `${idPrefix}-${String(i).padStart(4, '0')}`,
      type: pick(TYPES),
      code: `GH${1000 + (i % 7)}I`,
      time: new Date(time).toISOString(),
      actor:
        actorId === undefined
          ? { kind: 'anonymous' }
          : { kind: actorId.startsWith('agent') ? 'agent' : 'user', id: actorId, name: `name of ${actorId}` },
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

/** What query(q) must return for events appended in this order (newest appended first). */
export function reference(events: AuditEvent[], q: AuditQuery): { ids: string[]; total: number } {
  const matches = events.filter((e) => {
    const time = Date.parse(e.time);
    if (q.types && q.types.length > 0) {
      const ok = q.types.some((t) => (t.endsWith('*') ? e.type.startsWith(t.slice(0, -1)) : e.type === t));
      if (!ok) return false;
    }
    if (q.actor !== undefined && e.actor.id !== q.actor) return false;
    if (q.target !== undefined && e.target?.id !== q.target) return false;
    if (q.success !== undefined && e.success !== q.success) return false;
    if (q.from !== undefined && time < q.from) return false;
    if (q.to !== undefined && time > q.to) return false;
    return true;
  });
  const newestFirst = matches.reverse();
  return { ids: newestFirst.slice(q.offset, q.offset + q.limit).map((e) => e.id), total: matches.length };
}

const ids = (events: AuditEvent[]): string[] => events.map((e) => e.id);
const all = { limit: 10_000, offset: 0 };

async function appendInChunks(store: AuditStore, events: AuditEvent[]): Promise<void> {
  for (let i = 0; i < events.length; ) {
    const size = 1 + (i % 13);
    await store.append(events.slice(i, i + size));
    i += size;
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
        const { events: newest } = await store.query({ limit: 1, offset: 0 });
        assert.deepEqual(newest, [event]);
      }
      await store.append([]);
      const { events: read, total } = await store.query(all);
      assert.equal(total, 20);
      assert.deepEqual(read, [...events].reverse());
      await store.ping();
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
        { types: ['user.created', 'role.*', 'access.denied'] },
        { types: ['no.such.type'] },
        { types: [] },
        { actor: 'u-1' },
        { actor: 'agent-1', success: false },
        { target: 'r-2' },
        { target: 'u-1', types: ['user.*'] },
        { success: true },
        { success: false },
        { from: mid },
        { to: mid },
        { from: mid, to: mid },
        { from: tie, to: tie },
        { from: times[100], to: times[300], actor: 'u-2' },
        { from: (times[399] as number) + 1 },
        { to: BASE - 1 },
        { types: ['auth.*'], actor: 'u-3', target: 'r-1', success: true, from: times[50], to: times[350] },
      ];
      for (const q of queries) {
        const full = { ...q, ...all } as AuditQuery;
        const expected = reference(events, full);
        const got = await store.query(full);
        assert.deepEqual(ids(got.events), expected.ids, `query ${JSON.stringify(q)}`);
        assert.equal(got.total, expected.total, `total for ${JSON.stringify(q)}`);
      }
      assert.equal((await store.query({ from: tie, to: tie, ...all })).total >= 2, true, 'from/to are inclusive');
    });

    it('limit and offset page newest first with a stable total', async ({ store }) => {
      const events = generateEvents(250, 3);
      await appendInChunks(store, events);
      for (const filter of [{}, { types: ['auth.*', 'user.*'] }, { success: false, actor: 'u-2' }]) {
        const expected = reference(events, { ...filter, ...all });
        const seen: string[] = [];
        for (let offset = 0; offset < expected.total + 30; offset += 30) {
          const page = await store.query({ ...filter, limit: 30, offset });
          assert.equal(page.total, expected.total);
          assert.deepEqual(ids(page.events), expected.ids.slice(offset, offset + 30));
          seen.push(...ids(page.events));
        }
        assert.deepEqual(seen, expected.ids, `pages for ${JSON.stringify(filter)}`);
        const beyond = await store.query({ ...filter, limit: 10, offset: expected.total });
        assert.deepEqual(beyond, { events: [], total: expected.total });
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
      const [first, second, third] = generateEvents(3, 13);
      await store.append([first as AuditEvent]);
      const [innocent, duplicate] = await Promise.allSettled([
        store.append([second as AuditEvent]),
        store.append([third as AuditEvent, first as AuditEvent]),
      ]);
      assert.equal(innocent?.status, 'fulfilled', "the innocent caller's append succeeds");
      const read = ids((await store.query(all)).events);
      assert.ok(read.includes(second?.id as string));
      assert.equal(read.filter((id) => id === first?.id).length, 1, 'an id is stored once');
      if (duplicate?.status === 'rejected')
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
      assert.equal((await store.query({ limit: 1, offset: 0 })).events[0]?.id, 'after-0000');
    });
  });
}
