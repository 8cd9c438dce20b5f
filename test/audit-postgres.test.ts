// The AuditStore conformance suite against a real PostgreSQL (GATEHOUSE_TEST_POSTGRES_URL, default
// postgres://postgres@127.0.0.1:5432/test), each test in a fresh random schema dropped afterwards;
// plus what only PostgreSQL has: concurrent starts, several writers sharing one table, group commit.
// Without a reachable server the tests skip with a loud message, or fail when CI=true.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { openAuditStore } from '../src/audit/open.js';
import { partitionStart } from '../src/audit/pg-partitions.js';
import {
  AUDIT_POSTGRES_SCHEMA_VERSION,
  openPostgresAuditStore,
  type PostgresAuditOptions,
} from '../src/audit/postgres.js';
import type { AuditEvent, AuditStore } from '../src/audit/types.js';
import { generateEvents, runAuditConformance } from './conformance/audit-conformance.js';
import { adminSql, POSTGRES_URL, postgresUnreachable } from './helpers/postgres.js';

const URL_ = POSTGRES_URL;

const unreachable = await postgresUnreachable();

const admin = adminSql;

const freshSchema = () => `gh_audit_test_${randomBytes(6).toString('hex')}`;
const withSchema = (schema: string) => `${URL_}${URL_.includes('?') ? '&' : '?'}schema=${schema}`;

/** A fresh schema for one test; every store opened through it is closed and the schema dropped after. */
function scratch() {
  const schema = freshSchema();
  const opened: AuditStore[] = [];
  return {
    schema,
    async open(extra: Partial<PostgresAuditOptions> = {}): Promise<AuditStore> {
      const store = await openPostgresAuditStore({ url: withSchema(schema), ...extra });
      opened.push(store);
      return store;
    },
    async cleanup() {
      for (const store of opened) await store.close();
      await admin(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    },
  };
}

if (unreachable !== undefined) {
  const message = `PostgreSQL at ${URL_.replace(/\/\/[^@/]*@/, '//…@')} is unreachable (${unreachable}); the PostgreSQL audit store is NOT tested. Start PostgreSQL or set GATEHOUSE_TEST_POSTGRES_URL.`;
  if (process.env.CI === 'true') {
    test('postgres audit store: PostgreSQL must be reachable in CI', () => assert.fail(message));
  } else {
    console.error(`\n${'!'.repeat(100)}\n!!! ${message}\n${'!'.repeat(100)}\n`);
    test('postgres audit store conformance', { skip: message }, () => {});
  }
} else {
  runAuditConformance('postgres', async () => {
    const s = scratch();
    return { store: await s.open(), reopen: () => s.open(), cleanup: () => s.cleanup() };
  });

  describe('postgres audit store specifics', () => {
    test('the schema comes from ?schema= (created if missing), migrations are recorded there', async () => {
      const s = scratch();
      try {
        const week = partitionStart(Date.now());
        const store = await s.open();
        await store.append(generateEvents(3));
        const tables = await admin<{ table_name: string }>(
          'SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name',
          [s.schema],
        );
        // The events table, its week partitions (this one and the next) and its default partition.
        const name = (start: number) => `events_${new Date(start).toISOString().slice(0, 10).replaceAll('-', '')}`;
        assert.deepEqual(
          tables.rows.map((r) => r.table_name),
          ['events', name(week), name(week + 7 * 86_400_000), 'events_default', 'schema_migrations'],
        );
        const versions = await admin<{ version: number }>(
          `SELECT version FROM "${s.schema}".schema_migrations ORDER BY version`,
        );
        assert.deepEqual(
          versions.rows.map((r) => r.version),
          Array.from({ length: AUDIT_POSTGRES_SCHEMA_VERSION }, (_, i) => i + 1),
        );
        const stored = await admin<{ n: number; body: AuditEvent }>(
          `SELECT count(*) OVER ()::int AS n, body FROM "${s.schema}".events ORDER BY seq LIMIT 1`,
        );
        assert.equal(stored.rows[0]?.n, 3);
        assert.equal(stored.rows[0]?.body.id, 'ev-0000', 'the body is jsonb, queryable by PostgreSQL');
      } finally {
        await s.cleanup();
      }
    });

    test('several instances starting at once on a new schema migrate it once (advisory lock)', async () => {
      const s = scratch();
      try {
        const stores = await Promise.all(Array.from({ length: 6 }, () => s.open()));
        await Promise.all(stores.map((store, i) => store.append(generateEvents(2, i, `i${i}`))));
        const versions = await admin<{ version: number }>(`SELECT version FROM "${s.schema}".schema_migrations`);
        assert.equal(versions.rowCount, AUDIT_POSTGRES_SCHEMA_VERSION);
        assert.equal((await (stores[0] as AuditStore).query({ limit: 0, countUpTo: 100 })).total, 12);
      } finally {
        await s.cleanup();
      }
    });

    test('a schema newer than this Gatehouse is refused', async () => {
      const s = scratch();
      try {
        await (await s.open()).close();
        await admin(`INSERT INTO "${s.schema}".schema_migrations (version) VALUES ($1)`, [
          AUDIT_POSTGRES_SCHEMA_VERSION + 1,
        ]);
        await assert.rejects(
          s.open(),
          new RegExp(
            `schema ${s.schema}\\) is at schema version ${AUDIT_POSTGRES_SCHEMA_VERSION + 1}, newer than this Gatehouse \\(${AUDIT_POSTGRES_SCHEMA_VERSION}\\)`,
          ),
        );
      } finally {
        await s.cleanup();
      }
    });

    test('appends arriving during a flush go together in one group commit', async () => {
      const s = scratch();
      const batches: Array<{ appends: number; events: number; fallback: boolean }> = [];
      try {
        const store = await s.open({ onBatch: (b) => batches.push(b) });
        const events = generateEvents(500, 71);
        await Promise.all(events.map((e) => store.append([e])));
        assert.equal(
          batches.reduce((n, b) => n + b.events, 0),
          500,
        );
        assert.ok(batches.length <= 5, `500 concurrent appends took ${batches.length} commits`);
        // 50 producers, each appending one event at a time: commits carry many appends each.
        batches.length = 0;
        const more = generateEvents(1000, 72, 'p');
        await Promise.all(
          Array.from({ length: 50 }, async (_, p) => {
            for (let i = p; i < more.length; i += 50) await store.append([more[i] as AuditEvent]);
          }),
        );
        assert.equal(
          batches.reduce((n, b) => n + b.appends, 0),
          1000,
        );
        assert.ok(batches.length <= 100, `1000 appends from 50 producers took ${batches.length} commits`);
        assert.ok(batches.every((b) => !b.fallback));
        assert.equal((await store.query({ limit: 0, countUpTo: 10_000 })).total, 1500);
      } finally {
        await s.cleanup();
      }
    });

    test('a failed group commit retries each append alone; only the bad one fails', async () => {
      const s = scratch();
      const batches: Array<{ appends: number; events: number; fallback: boolean }> = [];
      try {
        const store = await s.open({ onBatch: (b) => batches.push(b) });
        const [a, b, c, d] = generateEvents(4, 73);
        await store.append([a as AuditEvent]);
        batches.length = 0;
        const results = await Promise.allSettled([
          store.append([b as AuditEvent]),
          store.append([c as AuditEvent, a as AuditEvent]), // duplicate id
          store.append([d as AuditEvent]),
        ]);
        assert.deepEqual(
          results.map((r) => r.status),
          ['fulfilled', 'rejected', 'fulfilled'],
        );
        assert.deepEqual(batches, [{ appends: 3, events: 4, fallback: true }], 'one batch, then the fallback');
      } finally {
        await s.cleanup();
      }
    });

    test('a large queue goes as two commits that alternate, in order', async () => {
      const s = scratch();
      const batches: Array<{ appends: number; events: number; fallback: boolean }> = [];
      try {
        const store = await s.open({ onBatch: (b) => batches.push(b) });
        const events = generateEvents(2000, 74, 'half');
        const appends = Array.from({ length: 10 }, (_, i) => events.slice(i * 200, i * 200 + 200));
        await Promise.all(appends.map((a) => store.append(a)));
        // 2,000 queued: half goes first. The 1,000 left are halved again, at an append's edge (200
        // events each): 400. Under 1,000 queued, a flush takes them all.
        assert.deepEqual(
          batches.map((b) => b.events),
          [1000, 400, 600],
        );
        const page = await store.query({ limit: 2000 });
        assert.deepEqual(
          page.events.map((e) => e.id).reverse(),
          events.map((e) => e.id),
          'seq order is append order',
        );
      } finally {
        await s.cleanup();
      }
    });

    test('a commit whose lock call fails sends no stray data: the connection serves the next commit', async () => {
      // The COPY data goes out with the query, before the server has started the COPY (pg-copy.ts);
      // when the CALL fails, PostgreSQL must drop that data rather than read it as new messages.
      const s = scratch();
      try {
        const store = await s.open();
        const [a, b, c] = generateEvents(3, 75, 'lock');
        // The writer connection: the backend whose last query was a commit's.
        const writer = async () =>
          (
            await admin<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE query LIKE $1', [
              `CALL "${s.schema}".lock_events_for_append()%`,
            ])
          ).rows.map((r) => r.pid);
        await store.append([a as AuditEvent]);
        const before = await writer();
        assert.equal(before.length, 1);
        await admin(`ALTER PROCEDURE "${s.schema}".lock_events_for_append() RENAME TO lock_renamed`);
        await assert.rejects(store.append([b as AuditEvent]), /lock_events_for_append/);
        await admin(`ALTER PROCEDURE "${s.schema}".lock_renamed() RENAME TO lock_events_for_append`);
        await store.append([c as AuditEvent]);
        assert.deepEqual(await writer(), before, 'the same connection, not a new one');
        const page = await store.query({ limit: 10 });
        assert.deepEqual(
          page.events.map((e) => e.id),
          [c, a].map((e) => (e as AuditEvent).id),
        );
      } finally {
        await s.cleanup();
      }
    });

    for (const size of ['one event', '1,000 events'] as const) {
      test(`filter columns holding what COPY text treats specially round-trip and match their filters (${size})`, async () => {
        const s = scratch();
        const batches: number[] = [];
        try {
          const store = await s.open({ onBatch: (b) => batches.push(b.events) });
          // Tab and newline separate fields and rows, a backslash starts an escape, \N is NULL and \.
          // ends the data: each in every filter column, and one column holding exactly \N or \. alone.
          const odd = ['tab\there', 'line\nbreak', 'cr\rhere', 'back\\slash', '\\N', '\\.', 'end\\', '\\\n\\.\n'];
          const make = (v: string, i: number, type: string): AuditEvent => ({
            id: `${type}-${i}-${v}`,
            type: `${type}.${v}`,
            code: 'GH0000I',
            time: new Date(Date.UTC(2026, 0, 5, 0, 0, 0, i)).toISOString(),
            actor: { kind: 'user', id: v, name: v },
            target: { kind: 'x', id: v },
            session_id: v,
            success: true,
          });
          const events = odd.map((v, i) => make(v, 1000 + i, 'odd'));
          // Each event alone, or all in one large COPY.
          const padding = size === 'one event' ? [] : Array.from({ length: 1000 }, (_, i) => make(`p${i}`, i, 'pad'));
          if (size === 'one event') for (const e of events) await store.append([e]);
          else await store.append([...padding, ...events]);
          assert.deepEqual(batches, size === 'one event' ? events.map(() => 1) : [padding.length + events.length]);
          const page = await store.query({ types: ['odd.*'], limit: 100, countUpTo: 100 });
          assert.equal(page.total, odd.length);
          assert.deepEqual([...page.events].reverse(), events, 'bodies and write order as appended');
          for (const [i, v] of odd.entries()) {
            const one = [events[i]];
            const name = JSON.stringify(v);
            assert.deepEqual((await store.query({ actor: v, limit: 10 })).events, one, `actor ${name}`);
            assert.deepEqual((await store.query({ target: v, limit: 10 })).events, one, `target ${name}`);
            assert.deepEqual((await store.query({ session_id: v, limit: 10 })).events, one, `session ${name}`);
            assert.deepEqual((await store.query({ types: [`odd.${v}`], limit: 10 })).events, one, `type ${name}`);
          }
          // No column became NULL: \N was stored as the two characters.
          const nulls = await admin(
            `SELECT 1 FROM "${s.schema}".events WHERE actor_id IS NULL OR target_id IS NULL OR session_id IS NULL`,
          );
          assert.equal(nulls.rowCount, 0);
        } finally {
          await s.cleanup();
        }
      });
    }

    test('two instances writing one table: a tailing reader sees every event exactly once', async () => {
      // Without the append lock, a big transaction drawing seqs first but committing after a small one
      // would let the reader move past seqs that are not yet visible, and miss them for good.
      const s = scratch();
      try {
        const [big, small, reader] = (await Promise.all([s.open(), s.open(), s.open()])) as AuditStore[];
        const bulk = generateEvents(6000, 79, 'big');
        const singles = generateEvents(600, 80, 'small');
        let writing = true;
        const writers = (async () => {
          await Promise.all([
            (async () => {
              for (let i = 0; i < bulk.length; i += 500) await big?.append(bulk.slice(i, i + 500));
            })(),
            (async () => {
              for (const e of singles) await small?.append([e]);
            })(),
          ]);
          writing = false;
        })();
        const total = bulk.length + singles.length;
        const seen: string[] = [];
        let position: string | undefined;
        const pull = async () => {
          const got = await (reader as AuditStore).tail(position, 1000);
          seen.push(...got.events.map((e) => e.id));
          assert.ok(seen.length <= total, 'tail never returns more events than were written');
          position = got.position;
          return got.events.length;
        };
        while (writing) await pull();
        await writers;
        while ((await pull()) > 0);
        assert.equal(seen.length, total, 'no event missed or repeated');
        assert.deepEqual([...seen].sort(), [...bulk, ...singles].map((e) => e.id).sort());
      } finally {
        await s.cleanup();
      }
    });

    test('close waits for queued appends, then ends the pool', async () => {
      const s = scratch();
      try {
        const store = await s.open();
        const pending = Promise.all(generateEvents(300, 83).map((e) => store.append([e])));
        await store.close();
        await pending;
        await assert.rejects(store.ping());
        await assert.rejects(store.append(generateEvents(1, 84, 'late')));
        const count = await admin<{ n: number }>(`SELECT count(*)::int AS n FROM "${s.schema}".events`);
        assert.equal(count.rows[0]?.n, 300);
      } finally {
        await s.cleanup();
      }
    });

    test('an unreachable server fails the open, and appends fail rather than hang', async () => {
      await assert.rejects(
        openPostgresAuditStore({ url: 'postgres://postgres@127.0.0.1:1/test?schema=nowhere' }),
        /ECONNREFUSED|connect/,
      );
    });

    test('openAuditStore opens PostgreSQL for postgres:// and postgresql:// URLs', async () => {
      for (const scheme of ['postgres', 'postgresql']) {
        const schema = freshSchema();
        const url = withSchema(schema).replace(/^postgres(ql)?:/, `${scheme}:`);
        const store = await openAuditStore(url, { sqlitePath: '/nonexistent/never.db', synchronous: 'FULL' });
        try {
          await store.append(generateEvents(2, 89));
          assert.equal((await store.query({ limit: 5, countUpTo: 5 })).total, 2);
          const exists = await admin(`SELECT 1 FROM "${schema}".events`);
          assert.equal(exists.rowCount, 2);
        } finally {
          await store.close();
          await admin(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        }
      }
    });

    test('newest first with one selective filter, and a cursor page, are index scans without a sort', async () => {
      const s = scratch();
      try {
        const store = await s.open();
        // Each filter below selects 1% of the rows: reading the primary key backwards would be the
        // wrong plan.
        const events = generateEvents(5000, 97).map((e, i): AuditEvent => {
          if (i % 100 === 0) {
            const rare = { kind: 'system', id: 'rare' } as const;
            return { ...e, actor: rare, target: { kind: 'x', id: 'rare' }, session_id: 'rare', success: false };
          }
          const common = { ...e, success: true };
          return e.actor.kind === 'system' ? { ...common, actor: { kind: 'user', id: 'u-9' } } : common;
        });
        for (let i = 0; i < events.length; i += 1000) await store.append(events.slice(i, i + 1000));
        await admin(`ANALYZE "${s.schema}".events`);
        const plan = async (where: string, params: unknown[]) => {
          const r = await admin<{ 'QUERY PLAN': string }>(
            `EXPLAIN SELECT seq, body FROM "${s.schema}".events ${where} ORDER BY seq DESC LIMIT 21`,
            params,
          );
          return r.rows.map((row) => row['QUERY PLAN']).join('\n');
        };
        for (const [where, params, index] of [
          ['WHERE actor_id = $1 AND seq < $2', ['rare', 4000], 'events_actor'],
          ['WHERE actor_kind = $1', ['system'], 'events_actor_kind'],
          ['WHERE session_id = $1 AND seq < $2', ['rare', 4000], 'events_session'],
          ['WHERE target_id = $1', ['rare'], 'events_target'],
          ['WHERE seq < $1', [4000], 'events_pkey'],
          ['WHERE NOT success', [], 'events_failed'],
        ] as const) {
          const p = await plan(where, [...params]);
          assert.match(p, new RegExp(index), `${where}:\n${p}`);
          // No Sort node (a Merge Append of the partitions' index scans prints a "Sort Key" line but
          // sorts nothing: it merges scans already in seq order).
          assert.doesNotMatch(p, /Seq Scan|Sort {2}\(/, `${where}:\n${p}`);
        }
        // Positive control: an order no index gives is a Sort node, and the pattern above sees it.
        const sorted = await admin<{ 'QUERY PLAN': string }>(
          `EXPLAIN SELECT seq, body FROM "${s.schema}".events ORDER BY body->>'id' LIMIT 21`,
        );
        assert.match(sorted.rows.map((row) => row['QUERY PLAN']).join('\n'), /Sort {2}\(/);
      } finally {
        await s.cleanup();
      }
    });
  });
}
