// What a joined proxy identity may do on auth's internal API (issue 29): an auth instance and a real
// proxy-only instance in front of it, then a hostile proxy — an identity joined with a join token of
// its own, as a compromised proxy host holds — with plain HTTP. Audit
// appends take only the event types proxies record, stamped with auth's time and the announced
// instance, about sessions that exist and under their principal; a proxy cannot mint tickets, rewrite
// an ended session or what a live one says, write another instance's lease, or set last use at will.
// Each attack is beside its positive control: what a proxy really writes and records still goes in.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import pino from 'pino';
import { loadConfig } from '../src/config/load.js';
import { newId } from '../src/lib/ids.js';
import { type Gatehouse, startGatehouse } from '../src/server.js';
import { type JoinedIdentity, joinIdentity, joinToken } from './helpers/cluster-join.js';
import { createDbRole, registerPostgres } from './helpers/db-resource.js';
import { api, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';
import { requirePostgres } from './helpers/psql.js';
import { until } from './helpers/until.js';

/** The hostile proxy: an identity of its own; it announces that identity as its instance. */
let hostile: JoinedIdentity;
let HOSTILE: string;
const tmp = mkdtempSync(join(tmpdir(), 'gatehouse-least-privilege-'));
const sealKey = join(tmp, 'seal.key');
writeFileSync(sealKey, randomBytes(32), { mode: 0o600 });

interface Item {
  key: string;
  value: string;
  revision: number;
}
interface Event {
  type: string;
  time: string;
  actor: { kind: string; id?: string; name?: string };
  target?: { kind: string; id: string; name?: string };
  session_id?: string;
  remote_addr?: string;
  data?: Record<string, unknown>;
}

let auth: TestServer;
let proxy: Gatehouse;
let dbId: string;
let alice: Awaited<ReturnType<typeof userWithRoles>>;
let bob: Awaited<ReturnType<typeof userWithRoles>>;

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const now = () => new Date().toISOString();

async function internal(path: string, body: unknown, instance: string | null = HOSTILE) {
  const res = await fetch(`${auth.url}/internal/v1/${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...hostile.headers(instance),
    },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, type: res.headers.get('content-type') ?? '', text, json: text ? JSON.parse(text) : {} };
}
const backend = (op: string, ...args: unknown[]) => internal(`backend/${op}`, { args });
const stateOf = async (key: string): Promise<Item | null> => (await backend('get', key)).json.result;
const append = (events: unknown[], instance: string | null = HOSTILE) => internal('audit/events', { events }, instance);
const eventsOf = async (query: string): Promise<Event[]> =>
  (await api(auth.url, 'GET', `/v1/events?per_page=100&${query}`, { token: auth.adminToken })).json.events;

/** An event as a proxy's audit log builds it (audit/audit-log.ts), before the auth tier stamps it. */
const event = (fields: Record<string, unknown>) => ({
  id: `evt_${randomBytes(8).toString('hex')}`,
  code: 'GH0000I',
  time: now(),
  success: true,
  ...fields,
});

/** A session record as the registry writes it at start (sessions/session-registry.ts), held by HOSTILE. */
function sessionRecord(fields: Record<string, unknown> = {}) {
  return {
    kind: 'db',
    type: 'sql',
    principal: { kind: 'user', id: alice.id, name: 'alice' },
    resource: { kind: 'database', id: dbId, name: 'pg-lp' },
    login: 'postgres',
    db_name: 'test',
    remote_addr: '127.0.0.1',
    recorded: false,
    id: newId('session'),
    status: 'active',
    started_at: now(),
    ended_at: null,
    bytes_in: 0,
    bytes_out: 0,
    instance: HOSTILE,
    ...fields,
  };
}
const insert = (record: { id: string }, instance: string | null = HOSTILE) =>
  internal(
    'backend/atomicWrite',
    {
      args: [
        [{ key: `sessions/${record.id}`, is: 'absent' }],
        [{ type: 'put', key: `sessions/${record.id}`, value: JSON.stringify(record) }],
      ],
    },
    instance,
  );
const replace = (item: Item, record: unknown) =>
  backend(
    'atomicWrite',
    [{ key: item.key, revision: item.revision }],
    [{ type: 'put', key: item.key, value: JSON.stringify(record) }],
  );
async function startedSession(fields: Record<string, unknown> = {}) {
  const record = sessionRecord(fields);
  const res = await insert(record);
  assert.equal(res.status, 200, `positive control: a session record as the registry starts it: ${res.text}`);
  return { record, item: (await stateOf(`sessions/${record.id}`)) as Item };
}
const refused = (res: { status: number; type: string; text: string }, what: string) => {
  assert.equal(res.status, 403, `${what}: ${res.text}`);
  assert.match(res.type, /application\/problem\+json/, what);
};

if (requirePostgres('the internal API’s least privilege')) {
  before(async () => {
    auth = await startTestServer({
      roles: ['auth'],
      seal_key_file: sealKey,
      db_public_addr: '127.0.0.1:3036',
    });
    const dataDir = mkdtempSync(join(tmp, 'proxy-'));
    proxy = await startGatehouse(
      loadConfig({
        env: {},
        overrides: {
          data_dir: dataDir,
          roles: ['proxy'],
          web_addr: '127.0.0.1:0',
          ssh_addr: '127.0.0.1:0',
          kube_addr: '127.0.0.1:0',
          db_addr: '127.0.0.1:0',
          metrics_enabled: false,
          log_level: 'silent',
          'webhooks.deliver': false,
          auth_servers: [new URL(auth.url).host],
          'cluster.join_token': await joinToken(auth),
          seal_key_file: sealKey,
        },
      }),
      { logger: pino({ level: 'silent' }) },
    );
    hostile = await joinIdentity(auth);
    HOSTILE = hostile.instance;
    dbId = await registerPostgres(auth, { name: 'pg-lp' });
    await createDbRole(auth, 'db-lp', { rules: [{ resources: ['sessions'], verbs: ['list', 'read', 'create'] }] });
    alice = await userWithRoles(auth, 'alice', ['db-lp']);
    bob = await userWithRoles(auth, 'bob', ['db-lp']);
  });

  after(async () => {
    await Promise.allSettled([proxy?.close(), auth?.stop()]);
    rmSync(tmp, { recursive: true, force: true });
  });

  const proxyInstance = () => proxy.services.shared.bus.instanceId;
  const ticketFor = async (user: { token: string }) => {
    const t = await api(auth.url, 'POST', '/v1/sessions', {
      token: user.token,
      body: { database: 'pg-lp', db_user: 'postgres', db_name: 'test' },
    });
    assert.equal(t.status, 201, t.text);
    return t.json.ticket as string;
  };
  const loginWith = async (secret: string) => {
    const client = new pg.Client({
      host: '127.0.0.1',
      port: proxy.dbAddr?.port as number,
      user: 'postgres@pg-lp',
      database: 'test',
      password: secret,
    });
    try {
      await client.connect();
      return (await client.query('select current_user as who')).rows[0].who as string;
    } finally {
      await client.end().catch(() => undefined);
    }
  };

  describe('audit appends from a proxy', () => {
    test('an event of a type proxies never record (user.deleted by admin, backdated, from 10.9.9.9) is 403 naming the type, and /v1/events never shows it', async () => {
      const admin = (await eventsOf('type=user.created')).find((e) => e.target?.name === 'alice')?.actor;
      assert.ok(admin?.id, 'the admin who created alice');
      const forged = event({
        type: 'user.deleted',
        time: '2020-01-01T00:00:00.000Z',
        actor: admin,
        target: { kind: 'user', id: bob.id, name: 'bob' },
        remote_addr: '10.9.9.9',
      });
      const res = await append([forged]);
      refused(res, 'user.deleted');
      assert.match(res.json.detail, /user\.deleted/);
      // Beside an event a proxy may record, the batch is refused whole.
      const { record } = await startedSession();
      const mixed = await append([
        event({ type: 'db.query', actor: { kind: 'user', id: alice.id, name: 'alice' }, session_id: record.id }),
        forged,
      ]);
      refused(mixed, 'a batch with user.deleted');
      for (const type of ['auth.token.issued', 'role.created', 'agent.created', 'system.admin_reset']) {
        refused(await append([event({ type, actor: admin })]), type);
      }
      const shown = await eventsOf('type=user.deleted');
      assert.deepEqual(shown, [], 'no user.deleted in the trail');
      assert.deepEqual(await eventsOf(`session_id=${record.id}`), [], 'nothing of the refused batch');
      assert.equal(
        (await eventsOf('from=2019-12-31T00:00:00Z&to=2020-01-02T00:00:00Z')).length,
        0,
        'nothing backdated to 2020',
      );
    });

    test('an event a proxy does record is stamped by auth: its time (the proxy’s kept as data.proxy_time) and the announcing instance (data.emitted_by)', async () => {
      const { record } = await startedSession();
      const before = Date.now();
      const res = await append([
        event({
          type: 'db.query',
          time: '2020-01-01T00:00:00.000Z',
          actor: { kind: 'user', id: alice.id, name: 'alice' },
          target: { kind: 'database', id: dbId, name: 'pg-lp' },
          session_id: record.id,
          data: { query: 'select 1', emitted_by: 'someone-else' },
        }),
      ]);
      assert.equal(res.status, 204, `positive control: a query event of a session: ${res.text}`);
      const [stored] = await eventsOf(`session_id=${record.id}&type=db.query`);
      assert.ok(stored, 'the query event is in the trail');
      const at = Date.parse(stored.time);
      assert.ok(at >= before - 1000 && at <= Date.now() + 1000, `stamped now, not 2020: ${stored.time}`);
      assert.equal(stored.data?.proxy_time, '2020-01-01T00:00:00.000Z');
      assert.equal(stored.data?.emitted_by, HOSTILE);
      assert.equal(stored.data?.query, 'select 1');
      refused(
        await append([event({ type: 'db.query', actor: { kind: 'user', id: alice.id }, session_id: record.id })], null),
        'an append that announces no instance',
      );
    });

    test('an event about a session names that session’s principal: another actor, a missing session, an agent id as a user, a system actor no proxy is are 403', async () => {
      const { record } = await startedSession();
      const as = (actor: unknown, fields: Record<string, unknown> = {}) =>
        append([event({ type: 'session.end', actor, session_id: record.id, ...fields })]);
      refused(await as({ kind: 'user', id: bob.id, name: 'bob' }), 'bob is not the session’s principal');
      refused(await as({ kind: 'user', id: alice.id, name: 'admin' }), 'alice named admin');
      refused(await as({ kind: 'user', id: alice.id }, { session_id: newId('session') }), 'no such session');
      refused(await as({ kind: 'user', id: alice.id }, { session_id: undefined }), 'no session named');
      refused(await as({ kind: 'user', id: 'agent_0123456789', name: 'alice' }), 'a user actor with an agent id');
      refused(
        await as({ kind: 'user', id: alice.id }, { target: { kind: 'database', id: 'db_other' } }),
        'another target',
      );
      refused(
        await append([
          event({ type: 'session.terminated', actor: { kind: 'system', name: 'retention' }, session_id: record.id }),
        ]),
        'a system actor that is no proxy’s',
      );
      refused(
        await append([event({ type: 'kube.request', actor: { kind: 'system', name: 'proxy' } })]),
        'kube.request as system',
      );
      assert.deepEqual(await eventsOf(`session_id=${record.id}`), [], 'nothing of these in the trail');
      const ok = await as({ kind: 'user', id: alice.id, name: 'alice' }, { target: record.resource });
      assert.equal(ok.status, 204, `positive control: the session’s own principal: ${ok.text}`);
      const terminated = await append([
        event({ type: 'session.terminated', actor: { kind: 'system', name: 'proxy' }, session_id: record.id }),
      ]);
      assert.equal(terminated.status, 204, `positive control: the proxy ends it itself: ${terminated.text}`);
      assert.equal((await eventsOf(`session_id=${record.id}`)).length, 2);
    });
  });

  describe('a real session through the proxy', () => {
    test('the ticket is redeemed, the record started and ended, and its events are in the trail stamped with the proxy’s instance', async () => {
      const ticket = await ticketFor(alice);
      assert.ok(await stateOf(`tickets/${sha256(ticket)}`), 'the ticket is stored (as its hash)');
      assert.equal(await loginWith(ticket), 'postgres', 'positive control: the ticket logs in through the proxy');
      assert.equal(await stateOf(`tickets/${sha256(ticket)}`), null, 'redeemed: the proxy deleted it');
      const start = await until(
        'db.session.start',
        async () => (await eventsOf(`type=db.session.start&actor=${alice.id}`))[0],
      );
      const id = start.session_id as string;
      const ended = await until('the session record ended', async () => {
        const item = await stateOf(`sessions/${id}`);
        const record = item && JSON.parse(item.value);
        return record?.status === 'ended' ? record : undefined;
      });
      assert.equal(ended.instance, proxyInstance());
      assert.ok(ended.bytes_in > 0 && ended.bytes_out > 0, 'the end wrote its counters');
      const events = await until('start, query, end and the recording', async () => {
        const e = await eventsOf(`session_id=${id}`);
        return e.some((x) => x.type === 'recording.uploaded') ? e : undefined;
      });
      // The credential the session logged in with was issued by auth for this very session (issue 29).
      assert.deepEqual(events.map((e) => e.type).sort(), [
        'cluster.credential.issued',
        'db.query',
        'db.session.end',
        'db.session.start',
        'recording.uploaded',
      ]);
      for (const e of events) {
        if (e.type === 'cluster.credential.issued') {
          assert.equal(e.data?.instance, proxyInstance(), 'issued to the proxy that asked');
          assert.equal(e.data?.emitted_by, undefined, 'recorded by auth, not sent by the proxy');
          continue;
        }
        assert.equal(e.data?.emitted_by, proxyInstance(), `${e.type} names the proxy`);
        assert.ok(Math.abs(Date.parse(e.time) - Date.now()) < 60_000, `${e.type} at ${e.time}`);
      }
    });

    test('the proxy’s own lease renews through the rules; an agent’s last use and refusal at the proxy go in', async () => {
      const agent = await api(auth.url, 'POST', '/v1/agents', {
        token: auth.adminToken,
        body: { name: 'lp-bot', roles: [] },
      });
      assert.equal(agent.status, 201, agent.text);
      const credential = await api(auth.url, 'POST', `/v1/agents/${agent.json.id}/credentials`, {
        token: auth.adminToken,
        body: {},
      });
      assert.equal(credential.status, 201, credential.text);
      // Answered from the proxy's cache: the proxy marks the agent's use and records the refusal.
      const read = await api(proxy.webUrl as string, 'GET', '/v1/users', { token: credential.json.access_token });
      assert.equal(read.status, 403, read.text);
      const denied = await until('access.denied from the proxy', async () =>
        (await eventsOf(`type=access.denied&actor=${agent.json.id}`)).find(
          (e) => e.data?.emitted_by === proxyInstance(),
        ),
      );
      assert.equal(denied.actor.name, 'lp-bot');
      await until(
        'the agent’s last use, written by the proxy',
        async () => stateOf(`usage/agent/${agent.json.id}`) ?? undefined,
      );

      const leaseOf = async () =>
        ((await backend('getRange', 'locks/instances/', {})).json.result as Item[]).find(
          (i) => JSON.parse(i.value).instance === proxyInstance(),
        );
      const first = await leaseOf();
      assert.ok(first, 'the proxy holds a lease naming its instance');
      await until(
        'a renewal of the proxy’s lease',
        async () => {
          const now = await leaseOf();
          return now && now.revision > first.revision ? now : undefined;
        },
        20_000,
      );
    });
  });

  describe('state writes from a proxy', () => {
    test('a proxy cannot mint a ticket (put, create, atomicWrite are 403; nothing stored; its secret logs nobody in); redeeming a real one works', async () => {
      const real = await ticketFor(alice);
      const item = (await stateOf(`tickets/${sha256(real)}`)) as Item;
      const { ticket_token: _token, ...grant } = JSON.parse(item.value);
      const minted = `ghs_${randomBytes(32).toString('base64url')}`;
      const key = `tickets/${sha256(minted)}`;
      const value = JSON.stringify({ ...grant, principal: { ...grant.principal, id: bob.id } });
      refused(await backend('put', key, value, { expiresAt: Date.now() + 60_000 }), 'put');
      refused(await backend('create', key, value, { expiresAt: Date.now() + 60_000 }), 'create');
      refused(
        await backend(
          'atomicWrite',
          [{ key, is: 'absent' }],
          [{ type: 'put', key, value, expiresAt: Date.now() + 60_000 }],
        ),
        'atomicWrite',
      );
      refused(await backend('put', item.key, value), 'overwriting alice’s ticket');
      refused(await backend('deleteRange', 'tickets/'), 'every ticket at once');
      assert.equal(await stateOf(key), null, 'the minted ticket is not stored');
      await assert.rejects(loginWith(minted), /password authentication failed|authentication|ticket|token/i);
      assert.equal(JSON.parse(((await stateOf(item.key)) as Item).value).principal.id, alice.id);
      // Positive control: the redemption a proxy makes (tickets.ts: a delete at the revision read).
      const redeemed = await backend(
        'atomicWrite',
        [{ key: item.key, revision: item.revision }],
        [{ type: 'delete', key: item.key }],
      );
      assert.equal(redeemed.status, 200, redeemed.text);
      assert.equal(await stateOf(item.key), null);
    });

    test('a live session’s principal, resource, login and command never change, and no session record is removed', async () => {
      const { record, item } = await startedSession();
      for (const [what, change] of [
        ['principal', { principal: { kind: 'user', id: bob.id, name: 'bob' } }],
        ['resource', { resource: { kind: 'database', id: dbId, name: 'pg-other' } }],
        ['login', { login: 'root' }],
        ['command', { command: 'rm -rf /' }],
        ['started_at', { started_at: '2020-01-01T00:00:00.000Z' }],
        ['instance', { instance: proxyInstance() }],
      ] as const) {
        refused(await replace(item, { ...record, ...change }), what);
      }
      refused(await backend('delete', item.key), 'delete');
      refused(
        await backend('atomicWrite', [{ key: item.key, revision: item.revision }], [{ type: 'delete', key: item.key }]),
        'a conditional delete',
      );
      refused(await backend('deleteRange', 'sessions/'), 'every session record');
      refused(await backend('put', item.key, JSON.stringify({ ...record, bytes_in: 5 })), 'an unconditional put');
      const stale = await backend(
        'atomicWrite',
        [{ key: item.key, revision: item.revision - 1 }],
        [{ type: 'put', key: item.key, value: JSON.stringify({ ...record, status: 'ended', ended_at: now() }) }],
      );
      assert.equal(stale.status, 409, `a stale revision is the store’s compare_failed: ${stale.text}`);
      assert.deepEqual(await stateOf(item.key), item, 'the record is as it was written');
    });

    test('an ended session’s record is final; a terminated one takes only its holder’s counters and exit code', async () => {
      const { record, item } = await startedSession();
      const end = { ...record, status: 'ended', ended_at: now(), bytes_in: 10, bytes_out: 20, exit_code: 0 };
      const ended = await replace(item, end);
      assert.equal(ended.status, 200, `positive control: the end the registry writes: ${ended.text}`);
      const final = (await stateOf(item.key)) as Item;
      for (const [what, change] of [
        ['principal', { principal: { kind: 'user', id: bob.id, name: 'bob' } }],
        ['command', { command: 'cat /etc/shadow' }],
        ['counters', { bytes_in: 11 }],
        ['status', { status: 'active', ended_at: null }],
        ['end_reason', { end_reason: 'proxy_lost' }],
      ] as const) {
        refused(await replace(final, { ...end, ...change }), `the ended session’s ${what}`);
      }
      // Nor can it be written anew as a session starting: the store refuses a creation over it.
      const anew = await insert(sessionRecord({ id: record.id }));
      assert.equal(anew.status, 409, `a creation over the ended record: ${anew.text}`);
      const bogus = await backend(
        'atomicWrite',
        [{ key: item.key, is: 'anything' }],
        [{ type: 'put', key: item.key, value: JSON.stringify(sessionRecord({ id: record.id })) }],
      );
      assert.equal(bogus.status, 400, `a condition that is no condition: ${bogus.text}`);
      refused(await backend('compareAndSwap', item.key, 'x', JSON.stringify(end)), 'a revision that is no number');
      assert.deepEqual(await stateOf(item.key), final, 'the ended record is unchanged');

      // Terminated through the API: the holder then writes what it counted as the session closes.
      const live = await startedSession();
      const del = await api(auth.url, 'DELETE', `/v1/sessions/${live.record.id}`, { token: auth.adminToken });
      assert.equal(del.status, 200, del.text);
      const marked = (await stateOf(live.item.key)) as Item;
      const terminated = JSON.parse(marked.value);
      assert.equal(terminated.status, 'terminated');
      refused(await replace(marked, { ...terminated, status: 'ended' }), 'un-terminating it');
      refused(await replace(marked, { ...terminated, end_reason: 'user_exit' }), 'another reason');
      refused(await replace(marked, { ...terminated, login: 'root' }), 'its login');
      const closing = await replace(marked, { ...terminated, bytes_in: 3, bytes_out: 4, exit_code: 130 });
      assert.equal(closing.status, 200, `positive control: the holder’s closing write: ${closing.text}`);
    });

    test('a session record starts active, held by the announcing instance, for a principal and a resource that exist', async () => {
      for (const [what, fields] of [
        ['held by another instance', { instance: proxyInstance() }],
        ['an unknown user', { principal: { kind: 'user', id: 'user_0000000000nosuchuser', name: 'ghost' } }],
        ['alice named admin', { principal: { kind: 'user', id: alice.id, name: 'admin' } }],
        ['an unknown database', { resource: { kind: 'database', id: 'db_0000000000nosuchdb', name: 'pg-lp' } }],
        ['a server as a database session', { resource: { kind: 'server', id: dbId, name: 'pg-lp' } }],
        ['already ended', { status: 'ended', ended_at: now() }],
        ['backdated', { started_at: '2020-01-01T00:00:00.000Z' }],
        ['with counters', { bytes_in: 1000 }],
      ] as const) {
        const record = sessionRecord(fields);
        refused(await insert(record), what);
        assert.equal(await stateOf(`sessions/${record.id}`), null, `${what}: nothing stored`);
      }
      refused(await insert(sessionRecord(), null), 'announcing no instance');
      await startedSession();
    });

    test('an instance writes only its own lease: another’s cannot be renewed, rewritten or removed, nor one made naming another', async () => {
      const theirs = ((await backend('getRange', 'locks/instances/', {})).json.result as Item[]).find(
        (i) => JSON.parse(i.value).instance === proxyInstance(),
      ) as Item;
      assert.ok(theirs, 'the proxy’s lease');
      const expiresAt = Date.now() + 15_000;
      refused(await backend('compareAndSwap', theirs.key, theirs.revision, theirs.value, { expiresAt }), 'renewing it');
      const mine = { ...JSON.parse(theirs.value), instance: HOSTILE };
      refused(
        await backend('compareAndSwap', theirs.key, theirs.revision, JSON.stringify(mine), { expiresAt }),
        'taking it over',
      );
      refused(
        await backend(
          'atomicWrite',
          [{ key: theirs.key, revision: theirs.revision }],
          [{ type: 'delete', key: theirs.key }],
        ),
        'removing it',
      );
      refused(await backend('delete', theirs.key), 'an unconditional delete');
      const key = `locks/instances/${randomBytes(8).toString('hex')}`;
      const lease = (fields: Record<string, unknown>) =>
        JSON.stringify({ roles: ['proxy'], home: 'h', instance: HOSTILE, holder: 'x', acquired_at: now(), ...fields });
      refused(await backend('create', key, lease({ instance: proxyInstance() }), { expiresAt }), 'naming another');
      refused(await backend('create', key, lease({}), { expiresAt: Date.now() + 3_600_000 }), 'for an hour');
      refused(await backend('create', key, lease({}), {}), 'forever');
      refused(await backend('create', key, lease({ roles: ['auth'] }), { expiresAt }), 'as an auth instance');
      refused(await backend('put', key, lease({}), { expiresAt }), 'an unconditional put');
      const after = ((await backend('getRange', 'locks/instances/', {})).json.result as Item[]).find(
        (i) => i.key === theirs.key,
      );
      assert.equal(after?.value, theirs.value, 'the proxy’s lease is as it wrote it');
      // Positive control: its own lease, as lease.ts takes, renews and releases it.
      const created = await backend('create', key, lease({}), { expiresAt });
      assert.equal(created.status, 200, created.text);
      const renewed = await backend('compareAndSwap', key, created.json.result.revision, created.json.result.value, {
        expiresAt: Date.now() + 15_000,
      });
      assert.equal(renewed.status, 200, renewed.text);
      const released = await backend(
        'atomicWrite',
        [{ key, revision: renewed.json.result.revision }],
        [{ type: 'delete', key }],
      );
      assert.equal(released.status, 200, released.text);
    });

    test('usage marks are {last_used_at} of now: a time far back or ahead, another shape or a delete is 403', async () => {
      const key = 'usage/agent/agent_0000000000leastprivilege';
      const mark = (value: unknown) => backend('atomicWrite', [], [{ type: 'put', key, value: JSON.stringify(value) }]);
      refused(await mark({ last_used_at: '2020-01-01T00:00:00.000Z' }), 'a mark in 2020');
      refused(await mark({ last_used_at: new Date(Date.now() + 3_600_000).toISOString() }), 'a mark an hour ahead');
      refused(await mark({ last_used_at: now(), note: 'x' }), 'another shape');
      refused(
        await backend('put', 'usage/agent/../users/x', JSON.stringify({ last_used_at: now() })),
        'not a usage key',
      );
      const marked = await mark({ last_used_at: now() });
      assert.equal(marked.status, 200, `positive control: a mark of now: ${marked.text}`);
      refused(await backend('delete', key), 'removing a mark');
      refused(await backend('deleteRange', 'usage/'), 'every mark');
    });
  });
}
