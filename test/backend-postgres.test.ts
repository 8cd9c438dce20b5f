// The Backend conformance suite against the machine's PostgreSQL (GATEHOUSE_TEST_POSTGRES_URL, default
// postgres://postgres@127.0.0.1:5432/test), each test in a fresh schema dropped afterwards; plus what
// only this backend has: several instances over one schema, a listener connection killed under a
// watcher, the change log pruned past a watcher, migrations, and URLs that never echo a password.
// Without a reachable server the tests skip with a loud message, or fail when CI=true.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { openBackend } from '../src/backend/open.js';
import { openPostgresBackend, type PostgresBackendOptions } from '../src/backend/postgres.js';
import { channelFor, STATE_POSTGRES_SCHEMA_VERSION } from '../src/backend/postgres-schema.js';
import type { Backend } from '../src/backend/types.js';
import { ConfigError } from '../src/config/load.js';
import { GatehouseError } from '../src/lib/errors.js';
import { runBackendConformance } from './conformance/backend-conformance.js';
import { describeEvent, eventKey, eventRevision, record, sleep } from './conformance/helpers.js';
import { adminSql, POSTGRES_URL, postgresUnreachable } from './helpers/postgres.js';
import { freePort } from './helpers/sshd.js';

const URL_ = POSTGRES_URL;

const unreachable = await postgresUnreachable();

const admin = adminSql;

const withSchema = (schema: string) => `${URL_}${URL_.includes('?') ? '&' : '?'}schema=${schema}`;

/** A fresh schema; every backend opened through it is closed and the schema dropped by cleanup. */
function scratch() {
  const schema = `gh_state_test_${randomBytes(6).toString('hex')}`;
  const opened: Backend[] = [];
  return {
    schema,
    async open(extra: Partial<PostgresBackendOptions> = {}): Promise<Backend> {
      const backend = openPostgresBackend({ url: withSchema(schema), ...extra });
      opened.push(backend);
      await backend.ready;
      return backend;
    },
    async cleanup() {
      for (const backend of opened) await backend.close();
      await admin(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    },
  };
}

/** The server pids of a schema's listener connections (there is one per Backend with a watcher). */
async function listeners(schema: string): Promise<number[]> {
  const { rows } = await admin<{ pid: number }>(
    "SELECT pid FROM pg_stat_activity WHERE application_name = 'gatehouse-state-listen' AND query = $1",
    [`LISTEN ${channelFor(schema)}`],
  );
  return rows.map((r) => r.pid);
}

/** Waits until n listener connections are up (a watch starts its listener in the background). */
async function listening(schema: string, n: number): Promise<number[]> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const pids = await listeners(schema);
    if (pids.length === n) return pids;
    if (Date.now() > deadline) assert.fail(`expected ${n} listener connections, found ${pids.length}`);
    await sleep(20);
  }
}

if (unreachable !== undefined) {
  const message = `PostgreSQL at ${URL_.replace(/\/\/[^@/]*@/, '//…@')} is unreachable (${unreachable}); the PostgreSQL state backend is NOT tested. Start PostgreSQL or set GATEHOUSE_TEST_POSTGRES_URL.`;
  if (process.env.CI === 'true') {
    test('postgres backend: PostgreSQL must be reachable in CI', () => assert.fail(message));
  } else {
    console.error(`\n${'!'.repeat(100)}\n!!! ${message}\n${'!'.repeat(100)}\n`);
    test('postgres backend conformance', { skip: message }, () => {});
  }
} else {
  runBackendConformance('postgres', async (opts = {}) => {
    const s = scratch();
    const extra = opts.sweepIntervalMs === undefined ? {} : { sweepIntervalMs: opts.sweepIntervalMs };
    return { backend: await s.open(extra), reopen: () => s.open(extra), cleanup: () => s.cleanup() };
  });

  describe('postgres backend specifics', () => {
    test('two instances over one schema see each other’s writes through watch, in one gapless order', async () => {
      const s = scratch();
      try {
        const [a, b] = [await s.open(), await s.open()] as [Backend, Backend];
        const recA = await record(a, ['m/']);
        const recB = await record(b, ['m/']);
        // Concurrent writers on both instances: their batches interleave on the revision counter.
        const items = (
          await Promise.all([
            ...Array.from({ length: 60 }, (_, i) => a.put(`m/${i % 7}`, `a${i}`)),
            ...Array.from({ length: 60 }, (_, i) => b.put(`m/${i % 5}`, `b${i}`)),
          ])
        ).map((i) => i.revision);
        await b.delete('m/0');
        const last = await a.put('m/end', 'x');
        for (const rec of [recA, recB]) {
          await rec.reach(last.revision);
          const revisions = rec.events.map(eventRevision);
          const expected = Array.from({ length: 122 }, (_, i) => rec.watcher.revision + 1 + i);
          assert.deepEqual(revisions, expected, 'every revision once, in order, none missing');
          assert.deepEqual(
            [...revisions.slice(0, 120)].sort((x, y) => x - y),
            [...items].sort((x, y) => x - y),
          );
          assert.deepEqual(rec.events.slice(-2).map(describeEvent), ['delete m/0', 'put m/end']);
        }
        assert.deepEqual(recA.events, recB.events, 'both instances saw the same history');
        assert.equal(await a.get('m/0'), undefined);
      } finally {
        await s.cleanup();
      }
    });

    test('big and small writes racing on two instances reach a third instance’s watcher gapless and in order', async () => {
      // With revisions from a sequence, a big write drawing its numbers first but committing after a
      // small one would let the watcher read past numbers not yet visible, and miss them for good.
      const s = scratch();
      try {
        const [big, small, reader] = [await s.open(), await s.open(), await s.open()] as [Backend, Backend, Backend];
        const rec = await record(reader, ['']);
        const bulk = (async () => {
          for (let round = 0; round < 8; round++) {
            const ops = Array.from({ length: 400 }, (_, i) => ({
              type: 'put' as const,
              key: `big/${i}`,
              value: 'x'.repeat(500),
            }));
            await big.atomicWrite([], ops);
          }
        })();
        const singles = (async () => {
          for (let i = 0; i < 150; i++) await small.put(`small/${i % 10}`, String(i));
        })();
        await Promise.all([bulk, singles]);
        const last = await small.put('end', '1');
        await rec.reach(last.revision, 10_000);
        const revisions = rec.events.map(eventRevision);
        assert.equal(revisions.length, 8 * 400 + 150 + 1);
        for (const [i, r] of revisions.entries()) assert.equal(r, rec.watcher.revision + 1 + i, `event ${i}`);
      } finally {
        await s.cleanup();
      }
    });

    test('a watcher survives its listener connection being terminated, losing no event', async () => {
      const s = scratch();
      try {
        // No periodic poll during the test: only the reconnect's catch-up can deliver what was missed.
        const a = await s.open({ pollIntervalMs: 600_000, reconnectDelayMs: 300 });
        const b = await s.open();
        const rec = await record(a, ['l/']);
        const before = await b.put('l/before', '1'); // positive control: NOTIFY reaches a
        await rec.reach(before.revision);
        const pids = await listening(s.schema, 1);
        assert.equal(pids.length, 1, 'a has one listener connection (b has no watcher)');
        await admin('SELECT pg_terminate_backend($1)', [pids[0]]);
        // Written while a has no listener: nothing can tell a about them but the catch-up.
        const during = [];
        for (let i = 0; i < 10; i++) during.push(await b.put(`l/${i}`, String(i)));
        await b.delete('l/before');
        const after = await b.put('l/after', 'x');
        await rec.reach(after.revision, 5000);
        assert.deepEqual(
          rec.events.map(eventRevision),
          Array.from({ length: 13 }, (_, i) => before.revision + i),
        );
        assert.deepEqual(rec.events.map(eventKey), ['l/before', ...during.map((i) => i.key), 'l/before', 'l/after']);
        const again = await listening(s.schema, 1); // a listens again
        assert.notEqual(again[0], pids[0]);
        const later = await b.put('l/later', 'y'); // and NOTIFY works on the new connection
        await rec.reach(later.revision);
      } finally {
        await s.cleanup();
      }
    });

    test('a watcher the pruned change log left behind resyncs: it is told what it missed', async () => {
      const s = scratch();
      try {
        const a = await s.open({ pollIntervalMs: 600_000, reconnectDelayMs: 1500 });
        const b = await s.open({ sweepIntervalMs: 20, changeRetentionMs: 0 });
        await b.put('r/kept', '1');
        const gone = await b.put('r/gone', '1');
        const rec = await record(a, ['r/']);
        await admin('SELECT pg_terminate_backend($1)', [(await listening(s.schema, 1))[0]]);
        await b.delete('r/gone');
        const added = await b.put('r/new', '2');
        const newest = await b.put('r/new2', '3');
        // b's sweeper prunes every change but the newest: a cannot read revision gone+1 any more.
        let pruned = false;
        const deadline = Date.now() + 5000;
        while (!pruned && Date.now() < deadline) {
          const { rows } = await admin<{ n: number }>(`SELECT count(*)::int AS n FROM "${s.schema}".state_changes`);
          pruned = rows[0]?.n === 1;
          if (!pruned) await sleep(20);
        }
        assert.ok(pruned, 'the log was pruned to its newest change');
        await rec.reach(added.revision, 8000);
        const seen = rec.events.map(describeEvent).sort();
        assert.deepEqual(seen, ['delete r/gone', 'put r/new', 'put r/new2']);
        assert.ok(!rec.events.some((e) => eventKey(e) === 'r/kept'), 'unchanged keys are not repeated');
        // Told by the resync (at the snapshot's revision), not by the change log (at its own).
        const deleted = rec.events.find((e) => e.type === 'delete');
        assert.equal(deleted && eventRevision(deleted), newest.revision);
        assert.notEqual(newest.revision, gone.revision + 1);
      } finally {
        await s.cleanup();
      }
    });

    test('a new schema records version 1; a newer one is refused with a clear message', async () => {
      const s = scratch();
      try {
        await (await s.open()).put('k', 'v');
        const { rows } = await admin<{ version: number }>(
          `SELECT version FROM "${s.schema}".state_schema_migrations ORDER BY version`,
        );
        assert.deepEqual(
          rows.map((r) => r.version),
          [1],
        );
        assert.equal(STATE_POSTGRES_SCHEMA_VERSION, 1);
        await admin(`INSERT INTO "${s.schema}".state_schema_migrations (version) VALUES (2)`);
        const newer = openPostgresBackend({ url: withSchema(s.schema) });
        await assert.rejects(newer.ready, /state database \(schema gh_state_test_\w+\) is at schema version 2/);
        await assert.rejects(newer.get('k'), /schema version 2/);
        await newer.close();
      } finally {
        await s.cleanup();
      }
    });

    test('openBackend opens postgres:// and postgresql:// URLs; bad ones never echo the password', async () => {
      const s = scratch();
      try {
        for (const url of [withSchema(s.schema), withSchema(s.schema).replace(/^postgres:/, 'postgresql:')]) {
          const backend = openBackend(url, { dataDir: '/nonexistent', synchronous: 'NORMAL' });
          await backend.put('via-url', url.slice(0, 10));
          assert.equal((await backend.get('via-url'))?.value, url.slice(0, 10));
          await backend.close();
        }
        assert.throws(
          () => openBackend('postgres://u:hunter2@127.0.0.1/x?schema=no-dash', { dataDir: '.', synchronous: 'NORMAL' }),
          (e: unknown) =>
            e instanceof ConfigError && /schema "no-dash"/.test(e.message) && !e.message.includes('hunter2'),
        );
      } finally {
        await s.cleanup();
      }
    });

    test('a PostgreSQL that cannot be reached is the retryable 503 state_unavailable, not an internal error', async () => {
      const port = await freePort();
      const backend = openBackend(`postgres://postgres@127.0.0.1:${port}/test?schema=gh_nowhere`, {
        dataDir: '.',
        synchronous: 'NORMAL',
      });
      try {
        for (const call of [() => backend.put('k', 'v'), () => backend.get('k'), () => backend.getRange('')]) {
          await assert.rejects(call(), (e: unknown) => {
            assert.ok(e instanceof GatehouseError, String(e));
            assert.equal(e.code, 'state_unavailable');
            assert.equal(e.headers?.['retry-after'], '1');
            return true;
          });
        }
        // Positive control: a reachable store answers through the same wrapper.
        const s = scratch();
        try {
          const ok = openBackend(withSchema(s.schema), { dataDir: '.', synchronous: 'NORMAL' });
          await ok.put('k', 'v');
          assert.equal((await ok.get('k'))?.value, 'v');
          await ok.close();
        } finally {
          await s.cleanup();
        }
      } finally {
        await backend.close().catch(() => undefined);
      }
    });

    test('a value PostgreSQL cannot store fails only its own write', async () => {
      const s = scratch();
      try {
        const backend = await s.open();
        const rec = await record(backend, ['']);
        const [bad, good] = await Promise.allSettled([backend.put('nul', 'a\u0000b'), backend.put('fine', 'ok')]);
        assert.equal(bad?.status, 'rejected');
        assert.equal(good?.status, 'fulfilled');
        assert.equal(await backend.get('nul'), undefined);
        const last = await backend.put('after', '1');
        await rec.reach(last.revision);
        assert.deepEqual(rec.events.map(eventKey), ['fine', 'after']);
      } finally {
        await s.cleanup();
      }
    });
  });
}
