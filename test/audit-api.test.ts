// The audit API over real HTTP: filters, page and cursor paging checked against a reference,
// NDJSON export, access decisions and session rows.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { api, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';

let server: TestServer;
// biome-ignore lint/suspicious/noExplicitAny: events are compared field by field
let all: any[];
before(async () => {
  server = await startTestServer();
  for (let i = 0; i < 30; i++) {
    assert.equal(
      (await api(server.url, 'POST', '/v1/users', { token: server.adminToken, body: { name: `aud-${i}` } })).status,
      201,
    );
  }
  await api(server.url, 'POST', '/v1/auth/token', { body: { api_key: 'wrong-key-for-the-audit-test' } });
  all = [];
  for (let page = 1; ; page++) {
    const res = await api(server.url, 'GET', `/v1/audit/events?per_page=100&page=${page}`, {
      token: server.adminToken,
    });
    all.push(...res.json.events);
    if (res.json.events.length < 100) break;
  }
});
after(() => server.stop());

const get = (path: string, token = server.adminToken) => api(server.url, 'GET', path, { token });

describe('/v1/audit/events and /v1/events', () => {
  test('newest first, both paths agree, total counts every event', async () => {
    assert.ok(all.length >= 33);
    for (let i = 1; i < all.length; i++) assert.ok(all[i - 1].time >= all[i].time, 'newest first');
    const seed = await get('/v1/events?per_page=5');
    assert.deepEqual(seed.json.events, all.slice(0, 5));
    assert.equal(seed.json.pagination.total, all.length);
    assert.equal(seed.json.pagination.total_limit, 10000);
  });

  test('filters match a reference computed here', async () => {
    const cases: Array<[string, (e: (typeof all)[number]) => boolean]> = [
      ['type=user.created', (e) => e.type === 'user.created'],
      ['type=auth.*', (e) => e.type.startsWith('auth.')],
      ['type=user.*&type=auth.login.failed', (e) => e.type.startsWith('user.') || e.type === 'auth.login.failed'],
      ['success=false', (e) => e.success === false],
      ['actor_kind=anonymous', (e) => e.actor.kind === 'anonymous'],
      [
        `actor=${all.find((e) => e.type === 'user.created' && e.actor.kind === 'user').actor.id}&type=user.created`,
        (e) => e.type === 'user.created' && e.actor.kind === 'user',
      ],
      ['actor_kind=system', (e) => e.actor.kind === 'system'],
      [
        `target=${all.find((e) => e.type === 'user.created').target.id}`,
        (e) => e.target?.id === all.find((x) => x.type === 'user.created').target.id,
      ],
    ];
    for (const [query, keep] of cases) {
      const res = await get(`/v1/audit/events?per_page=100&${query}`);
      assert.equal(res.status, 200, query);
      assert.deepEqual(
        res.json.events.map((e: { id: string }) => e.id),
        all.filter(keep).map((e) => e.id),
        query,
      );
      assert.equal(res.json.pagination.total, all.filter(keep).length, query);
    }
    const mid = all[Math.floor(all.length / 2)].time;
    const bounded = await get(`/v1/audit/events?per_page=100&to=${mid}`);
    assert.deepEqual(
      bounded.json.events.map((e: { id: string }) => e.id),
      all.filter((e) => e.time <= mid).map((e) => e.id),
    );
  });

  test('cursor pages walk every event once, in order', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res: Awaited<ReturnType<typeof get>> = await get(
        `/v1/audit/events?per_page=7${cursor ? `&cursor=${cursor}` : ''}`,
      );
      assert.equal(res.status, 200);
      seen.push(...res.json.events.map((e: { id: string }) => e.id));
      cursor = res.json.next_cursor;
    } while (cursor && seen.length < all.length + 50);
    // Reading the audit trail writes no events, so the walk sees exactly the snapshot.
    assert.deepEqual(
      seen.slice(0, all.length),
      all.map((e) => e.id),
    );
  });

  test('bad paging input is a 400 naming the parameter', async () => {
    const bad = await get('/v1/audit/events?cursor=not-a-cursor');
    assert.equal(bad.status, 400);
    assert.equal(bad.json.errors[0].path, '/query/cursor');
    const both = await get(
      `/v1/audit/events?page=2&cursor=${(await get('/v1/audit/events?per_page=1')).json.next_cursor}`,
    );
    assert.equal(both.status, 400);
    assert.equal(both.json.errors[0].path, '/query/page');
    const inverted = await get('/v1/audit/events?from=2030-01-01T00:00:00Z&to=2020-01-01T00:00:00Z');
    assert.equal(inverted.status, 400);
    assert.equal((await get('/v1/audit/events?from=yesterday')).status, 400);
  });

  test('format=ndjson streams every matching event and records the export', async () => {
    const res = await get('/v1/audit/events?format=ndjson&type=user.created');
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/x-ndjson/);
    const lines = res.text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.deepEqual(
      lines.map((e) => e.id),
      all.filter((e) => e.type === 'user.created').map((e) => e.id),
    );
    const exported = await get('/v1/audit/events?type=audit.exported');
    assert.equal(exported.json.events.length, 1);
    assert.equal(exported.json.events[0].actor.name, 'admin');
  });

  test('an export with a cursor no server issued is a 400 at the cursor and records no export; a real one resumes', async () => {
    const before = (await get('/v1/audit/events?type=audit.exported')).json.events.length;
    for (const cursor of ['a', 'AAAA', 'zz_-9']) {
      const bad = await get(`/v1/audit/events?format=ndjson&cursor=${cursor}`);
      assert.equal(bad.status, 400, `cursor ${cursor}: ${bad.text}`);
      assert.equal(bad.json.errors[0].path, '/query/cursor');
    }
    assert.equal((await get('/v1/audit/events?type=audit.exported')).json.events.length, before);
    // Positive control: a cursor from a page resumes the export after that page's last event.
    const first = await get('/v1/audit/events?type=user.created&per_page=1');
    const resumed = await get(`/v1/audit/events?format=ndjson&type=user.created&cursor=${first.json.next_cursor}`);
    assert.equal(resumed.status, 200);
    const ids = resumed.text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).id);
    assert.deepEqual(
      ids,
      all
        .filter((e) => e.type === 'user.created')
        .map((e) => e.id)
        .slice(1),
    );
  });

  test('an auditor may read, a user without events:list may not', async () => {
    const auditor = await userWithRoles(server, 'the-auditor', ['auditor']);
    assert.equal((await get('/v1/audit/events', auditor.token)).status, 200);
    const accessOnly = await userWithRoles(server, 'access-only', ['access']);
    assert.equal((await get('/v1/audit/events', accessOnly.token)).status, 403);
    assert.equal((await get('/v1/events', accessOnly.token)).status, 403);
  });
});

describe('/v1/audit/access and /v1/audit/sessions', () => {
  test('denials appear as access decisions with the permission and the outcome', async () => {
    const accessOnly = await userWithRoles(server, 'denied-one', ['access']);
    assert.equal((await get('/v1/users', accessOnly.token)).status, 403);
    const res = await get(`/v1/audit/access?actor=${accessOnly.id}`);
    assert.equal(res.status, 200);
    assert.equal(res.json.decisions.length, 1);
    const d = res.json.decisions[0];
    assert.equal(d.action, 'users:list');
    assert.equal(d.allowed, false);
    assert.equal(d.actor.id, accessOnly.id);
    assert.equal((await get(`/v1/audit/access?actor=${accessOnly.id}&allowed=true`)).json.decisions.length, 0);
  });

  test('sessions are one row each, with duration and status, from session events', async () => {
    const audit = server.gatehouse.services.audit;
    const actor = { kind: 'user' as const, id: 'user_x', name: 'x' };
    const target = { kind: 'server', id: 'srv_y', name: 'web' };
    await audit.record({
      type: 'session.start',
      actor,
      target,
      session_id: 'sess_a',
      data: { kind: 'ssh', login: 'ubuntu' },
    });
    await audit.record({
      type: 'session.start',
      actor,
      target,
      session_id: 'sess_b',
      data: { kind: 'ssh', login: 'root' },
    });
    await new Promise((r) => setTimeout(r, 20));
    await audit.record({ type: 'session.end', actor, target, session_id: 'sess_a' });
    await audit.record({ type: 'recording.uploaded', actor: { kind: 'system' }, session_id: 'sess_a' });
    const res = await get('/v1/audit/sessions');
    assert.equal(res.status, 200);
    const byId = Object.fromEntries(res.json.sessions.map((s: { session_id: string }) => [s.session_id, s]));
    assert.equal(byId.sess_a.status, 'ended');
    assert.equal(byId.sess_a.recording, 'uploaded');
    assert.equal(byId.sess_a.login, 'ubuntu');
    assert.ok(byId.sess_a.duration_seconds >= 0.01);
    assert.equal(byId.sess_b.status, 'active');
    assert.equal(byId.sess_b.ended_at, null);
    assert.equal(res.json.pagination.total, 2);
  });

  test("reading a recording leaves the session's upload state as it was (uploaded, failed, then retried)", async () => {
    const audit = server.gatehouse.services.audit;
    const actor = { kind: 'user' as const, id: 'user_r', name: 'r' };
    const target = { kind: 'server', id: 'srv_r', name: 'web' };
    const system = { kind: 'system' as const };
    for (const id of ['sess_read', 'sess_failed', 'sess_retried']) {
      await audit.record({ type: 'session.start', actor, target, session_id: id, data: { kind: 'ssh', login: 'u' } });
      await audit.record({ type: 'session.end', actor, target, session_id: id });
    }
    await audit.record({ type: 'recording.uploaded', actor: system, session_id: 'sess_read' });
    await audit.record({ type: 'recording.upload_failed', actor: system, session_id: 'sess_failed', success: false });
    await audit.record({ type: 'recording.upload_failed', actor: system, session_id: 'sess_retried', success: false });
    await audit.record({ type: 'recording.uploaded', actor: system, session_id: 'sess_retried' });
    // More reads than the row's lookup once fetched in all: the upload state must still be found.
    for (let i = 0; i < 25; i++) {
      await audit.record({ type: 'recording.read', actor, session_id: 'sess_read' });
      await audit.record({ type: 'recording.read', actor, session_id: 'sess_failed' });
    }
    const res = await get('/v1/audit/sessions?per_page=100');
    const byId = Object.fromEntries(res.json.sessions.map((s: { session_id: string }) => [s.session_id, s]));
    assert.equal(byId.sess_read.recording, 'uploaded');
    assert.equal(byId.sess_failed.recording, 'upload_failed');
    assert.equal(byId.sess_retried.recording, 'uploaded');
    assert.equal(byId.sess_read.status, 'ended');
  });
});
