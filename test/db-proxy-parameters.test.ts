// Role option db_record_parameters: db.query events of a session carry the statement's bind
// parameters (node-postgres sends every parameterized query through the extended protocol); without
// the option, the same statement's event has none.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { createDbRole, registerPostgres } from './helpers/db-resource.js';
import { api, startTestServer, type TestServer, userWithRoles } from './helpers/gatehouse.js';
import { requirePostgres } from './helpers/psql.js';
import { until } from './helpers/until.js';

interface Event {
  actor: { name: string };
  data: { text: string; parameters?: Array<string | null>; parameters_truncated?: boolean };
}

if (requirePostgres('PostgreSQL proxy bind parameters')) {
  describe('PostgreSQL proxy: bind parameters in db.query events', () => {
    let gh: TestServer;
    const admin = (method: string, path: string, body?: unknown) =>
      api(gh.url, method, path, { token: gh.adminToken, ...(body ? { body } : {}) });

    before(async () => {
      gh = await startTestServer();
      await registerPostgres(gh);
      await createDbRole(gh, 'db-params', { options: { db_record_parameters: true } });
      await createDbRole(gh, 'db-plain', { options: {} });
    });
    after(async () => {
      await gh?.stop();
    });

    async function queryAs(roles: string[], user: string, marker: string): Promise<Event> {
      const who = await userWithRoles(gh, user, roles);
      const client = new pg.Client({
        host: '127.0.0.1',
        port: gh.gatehouse.dbAddr?.port as number,
        user: 'postgres@pg',
        database: 'test',
        password: who.token,
      });
      await client.connect();
      try {
        const r = await client.query(`select $1::int + $2::int as sum, $3::text as marker, $4::text as nothing`, [
          40,
          2,
          marker,
          null,
        ]);
        assert.equal(r.rows[0].sum, 42);
      } finally {
        await client.end();
      }
      return until(`the db.query event of ${user}`, async () => {
        const events = (await admin('GET', '/v1/events?type=db.query&per_page=100')).json.events as Event[];
        return events.find((e) => e.actor.name === user && e.data.text.includes('$3::text as marker'));
      });
    }

    test('with the option the event carries the values (NULL as null); without it, none', async () => {
      const recorded = await queryAs(['db-params'], 'params-user', 'marker-one');
      assert.deepEqual(recorded.data.parameters, ['40', '2', 'marker-one', null]);
      assert.equal(recorded.data.parameters_truncated, undefined);
      const plain = await queryAs(['db-plain'], 'plain-user', 'marker-two');
      assert.equal(plain.data.parameters, undefined, 'bind parameters carry data: not recorded unless a role asks');
    });

    test('a role with the option cannot be handed out by someone whose own sessions are not recorded so', async () => {
      // Coverage: a caller holding db_record_parameters cannot grant a role without it (looser), the
      // same rule as db_read_only; the positive control is granting a role that keeps it.
      const manager = await admin('POST', '/v1/roles', {
        name: 'db-manager',
        allow: {
          resources: [{ kinds: ['database'] }],
          db_users: ['postgres'],
          db_names: ['test'],
          rules: [{ resources: ['users'], verbs: ['create', 'read'] }],
        },
        options: { db_record_parameters: true },
      });
      assert.equal(manager.status, 201, manager.text);
      const m = await userWithRoles(gh, 'db-manager-user', ['db-manager']);
      const looser = await api(gh.url, 'POST', '/v1/users', {
        token: m.token,
        body: { name: 'u-loose', roles: ['db-plain'] },
      });
      assert.equal(looser.status, 403, looser.text);
      assert.match(looser.json.detail, /db_record_parameters/);
      const kept = await api(gh.url, 'POST', '/v1/users', {
        token: m.token,
        body: { name: 'u-kept', roles: ['db-params'] },
      });
      assert.equal(kept.status, 201, kept.text);
    });
  });
}
