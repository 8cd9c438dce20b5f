// The AuditStore conformance suite against the embedded SQLite store, plus its schema bookkeeping,
// its query plans, and openAuditStore's choice of store by URL.
import assert from 'node:assert/strict';
import { join, relative } from 'node:path';
import { after, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { openAuditStore } from '../src/audit/open.js';
import { AUDIT_SQLITE_MIGRATIONS, openSqliteAuditStore } from '../src/audit/sqlite.js';
import type { AuditQuery, AuditStore } from '../src/audit/types.js';
import { ConfigError } from '../src/config/load.js';
import { generateEvents, runAuditConformance } from './conformance/audit-conformance.js';
import { tempDir } from './conformance/helpers.js';

runAuditConformance('sqlite', async () => {
  const tmp = tempDir('audit');
  const path = join(tmp.dir, 'audit.db');
  const opened: AuditStore[] = [];
  const open = (): AuditStore => {
    const store = openSqliteAuditStore({ path, synchronous: 'NORMAL' });
    opened.push(store);
    return store;
  };
  return {
    store: open(),
    reopen: async () => open(),
    async cleanup() {
      for (const store of opened) await store.close();
      tmp.remove();
    },
  };
});

describe('sqlite audit store specifics', () => {
  const tmp = tempDir('audit-specific');
  after(() => tmp.remove());
  const latest = AUDIT_SQLITE_MIGRATIONS.length;

  test('schema_migrations records every version, and a newer schema is refused', async () => {
    const path = join(tmp.dir, 'audit.db');
    const store = openSqliteAuditStore({ path });
    await store.append(generateEvents(3));
    await store.close();
    const db = new Database(path);
    const versions = db.prepare('SELECT version FROM schema_migrations ORDER BY version').all() as Array<{
      version: number;
    }>;
    assert.deepEqual(
      versions.map((v) => v.version),
      Array.from({ length: latest }, (_, i) => i + 1),
    );
    assert.ok(latest >= 2);
    assert.equal((db.prepare('SELECT COUNT(*) AS n FROM events').get() as { n: number }).n, 3);
    db.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)').run(
      latest + 1,
      new Date().toISOString(),
    );
    db.close();
    assert.throws(
      () => openSqliteAuditStore({ path }),
      new RegExp(
        `the audit database is at schema version ${latest + 1}, newer than this Gatehouse \\(${latest}\\); upgrade Gatehouse`,
      ),
    );
  });

  test('a version 1 database upgrades in place: old events gain actor_kind and stay readable', async () => {
    const path = join(tmp.dir, 'v1.db');
    const db = new Database(path);
    db.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)');
    db.exec(AUDIT_SQLITE_MIGRATIONS[0] as string);
    db.prepare('INSERT INTO schema_migrations VALUES (1, ?)').run(new Date().toISOString());
    const old = generateEvents(40, 61, 'old');
    const insert = db.prepare(
      'INSERT INTO events (id, time_ms, type, actor_id, target_id, session_id, success, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    );
    for (const e of old) {
      insert.run(
        e.id,
        Date.parse(e.time),
        e.type,
        e.actor.id ?? null,
        e.target?.id ?? null,
        e.session_id ?? null,
        e.success ? 1 : 0,
        JSON.stringify(e),
      );
    }
    db.close();
    const store = openSqliteAuditStore({ path });
    try {
      const fresh = generateEvents(10, 62, 'new', Date.parse(old[39]?.time as string));
      await store.append(fresh);
      const agents = [...old, ...fresh].filter((e) => e.actor.kind === 'agent').reverse();
      assert.ok(agents.some((e) => e.id.startsWith('old')));
      const got = await store.query({ actor_kind: 'agent', limit: 1000, countUpTo: 1000 });
      assert.deepEqual(got.events, agents);
      assert.equal(got.total, agents.length);
    } finally {
      await store.close();
    }
  });

  test('every query reads an index range newest first: no table scan or sort unless planned', async () => {
    const path = join(tmp.dir, 'plans.db');
    const executed: string[] = [];
    const store = openSqliteAuditStore({ path, synchronous: 'NORMAL', trace: (sql) => executed.push(sql) });
    const events = generateEvents(20_000, 5);
    for (let i = 0; i < events.length; i += 5000) await store.append(events.slice(i, i + 5000));
    const at = (fraction: number) => Date.parse(events[Math.floor(fraction * (events.length - 1))]?.time as string);
    const db = new Database(path, { readonly: true });
    try {
      const backwards = /^SCAN events$|^SEARCH events USING INTEGER PRIMARY KEY \(rowid<\?\)$/;
      const cases: Array<{ q: Partial<AuditQuery>; page: RegExp; scan?: boolean; sort?: boolean }> = [
        { q: {}, page: backwards, scan: true },
        { q: { success: true }, page: backwards, scan: true },
        { q: { success: false }, page: /(SCAN|SEARCH) events USING INDEX events_failed/ },
        { q: { types: ['auth.*'] }, page: /MERGE \(UNION ALL\).*SEARCH events USING INDEX events_type \(type=\?/ },
        { q: { types: ['user.created'], from: at(0.2) }, page: /SEARCH events USING INDEX events_type \(type=\?/ },
        { q: { types: ['auth.*', 'role.*'], success: false }, page: /MERGE \(UNION ALL\)/ },
        { q: { actor: 'u-1' }, page: /SEARCH events USING INDEX events_actor \(actor_id=\?/ },
        { q: { actor: 'u-1', types: ['auth.*'], to: at(0.9) }, page: /SEARCH events USING INDEX events_actor \(/ },
        { q: { actor_kind: 'agent', types: ['auth.*'] }, page: /MERGE \(UNION ALL\)/ },
        { q: { actor_kind: 'agent' }, page: /SEARCH events USING INDEX events_actor_kind \(actor_kind=\?/ },
        { q: { target: 'r-1', actor: 'u-2' }, page: /SEARCH events USING INDEX events_target \(target_id=\?/ },
        { q: { session_id: 's-1', types: ['user.*'] }, page: /SEARCH events USING INDEX events_session \(/ },
        // A large range reaching the newest rows: backwards by seq.
        { q: { from: at(0.5) }, page: backwards, scan: true },
        { q: { from: at(0.1), to: at(0.95) }, page: backwards, scan: true },
        // A large range far from the newest rows, and a small one: seqs sorted from the index alone.
        { q: { from: at(0.1), to: at(0.4) }, page: /COVERING INDEX events_time/, sort: true },
        { q: { from: at(0.5), to: at(0.51) }, page: /COVERING INDEX events_time/, sort: true },
      ];
      for (const { q, page, scan, sort } of cases) {
        for (const paging of [{}, { cursor: (await store.query({ ...q, limit: 3 })).nextCursor as string }]) {
          executed.length = 0;
          const got = await store.query({ ...q, ...paging, limit: 20, countUpTo: 1000 });
          assert.equal(got.events.length, 20, `${JSON.stringify(q)} finds a full page`);
          const plans = executed
            .filter((sql) => sql.startsWith('SELECT'))
            .map((sql) =>
              (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as Array<{ detail: string }>)
                .map((r) => r.detail)
                .join('; '),
            );
          const what = `${JSON.stringify({ ...q, ...paging })}:\n${plans.join('\n')}`;
          assert.ok(
            plans.some((p) => page.test(p)),
            `page plan for ${what}`,
          );
          for (const p of plans) {
            if (!scan) assert.doesNotMatch(p, /(^|; )SCAN events($|;)/, `no table scan for ${what}`);
            if (!sort) assert.doesNotMatch(p, /TEMP B-TREE/, `no sort for ${what}`);
            else assert.doesNotMatch(p, /TEMP B-TREE.*TEMP B-TREE.*TEMP B-TREE/, `one sort of seqs for ${what}`);
          }
        }
      }
      const del = (
        db
          .prepare(
            'EXPLAIN QUERY PLAN DELETE FROM events WHERE seq IN (SELECT seq FROM events WHERE time_ms < ? ORDER BY time_ms, seq LIMIT ?)',
          )
          .all(1, 10) as Array<{ detail: string }>
      )
        .map((r) => r.detail)
        .join('; ');
      assert.match(del, /events_time/);
      assert.doesNotMatch(del, /TEMP B-TREE/, del);
    } finally {
      db.close();
      await store.close();
    }
  });
});

describe('openAuditStore', () => {
  const tmp = tempDir('audit-open');
  after(() => tmp.remove());
  const defaults = { sqlitePath: join(tmp.dir, 'default.db'), synchronous: 'NORMAL' as const };

  test('no URL opens the default SQLite file; sqlite:// opens the named one (relative to the working directory)', async () => {
    const byDefault = await openAuditStore(undefined, defaults);
    await byDefault.append(generateEvents(2, 1, 'default'));
    await byDefault.close();
    const reopened = openSqliteAuditStore({ path: defaults.sqlitePath });
    assert.equal((await reopened.query({ limit: 10, countUpTo: 10 })).total, 2);
    await reopened.close();

    const named = await openAuditStore(`sqlite://${relative(process.cwd(), join(tmp.dir, 'named.db'))}`, defaults);
    await named.append(generateEvents(3, 1, 'named'));
    await named.close();
    const check = openSqliteAuditStore({ path: join(tmp.dir, 'named.db') });
    assert.equal((await check.query({ limit: 10, countUpTo: 10 })).total, 3);
    await check.close();

    const absolute = await openAuditStore(`sqlite://${join(tmp.dir, 'absolute.db')}`, defaults);
    await absolute.ping();
    await absolute.close();
  });

  test('any other URL is a ConfigError naming audit_url, without echoing secrets', async () => {
    for (const url of [
      'mysql://user:s3cret@db/audit',
      'sqlite://',
      'file:///tmp/audit.db',
      'etcd://a:2379',
      'not a url',
      'postgres://user:s3cret@host/db?schema=bad-name',
      'postgres://user:s3cret@host/db?schema=1abc',
    ]) {
      await assert.rejects(
        openAuditStore(url, defaults),
        (e: unknown) => {
          assert.ok(e instanceof ConfigError, `${url}: ${String(e)}`);
          assert.match(e.message, /audit_url/);
          assert.doesNotMatch(e.message, /s3cret/);
          return true;
        },
        url,
      );
    }
  });
});
