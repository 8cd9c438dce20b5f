// The machine's PostgreSQL (127.0.0.1:5432, trust, database `test`) registered through the API as a
// database resource, roles that may reach databases, and the read-only login db_read_only sessions
// run as: the setup the PostgreSQL proxy tests share.
import assert from 'node:assert/strict';
import { api } from './gatehouse.js';
import { adminSql } from './postgres.js';

/** Where the API answers and an admin's token: a TestServer, or a Gatehouse run as a process. */
export interface AdminApi {
  url: string;
  adminToken: string;
}

/** POST /v1/resources for the machine's PostgreSQL (name `pg` unless told); the new resource's id. */
export async function registerPostgres(
  gh: AdminApi,
  opts: { name?: string; labels?: Record<string, string>; readOnlyLogin?: string } = {},
): Promise<string> {
  const db = await api(gh.url, 'POST', '/v1/resources', {
    token: gh.adminToken,
    body: {
      kind: 'database',
      name: opts.name ?? 'pg',
      address: '127.0.0.1:5432',
      protocol: 'postgres',
      ...(opts.labels ? { labels: opts.labels } : {}),
      ...(opts.readOnlyLogin ? { db: { read_only_login: { name: opts.readOnlyLogin } } } : {}),
    },
  });
  assert.equal(db.status, 201, db.text);
  return db.json.id as string;
}

export interface DbRoleOptions {
  /** Labels the role's databases carry; without them the role reaches every database. */
  labels?: Record<string, string>;
  /** allow.db_users; ['postgres'] unless told. */
  dbUsers?: string[];
  /** allow.db_names; ['test'] unless told. */
  dbNames?: string[];
  /** allow.rules, e.g. sessions the user may list or ask tickets for. */
  rules?: Array<{ resources: string[]; verbs: string[] }>;
  deny?: Record<string, unknown>;
  /** Role options (db_read_only, db_record_parameters, record_session, …), sent as given. */
  options?: Record<string, unknown>;
}

/** POST /v1/roles: a role that may reach databases as the given users and names. */
export async function createDbRole(gh: AdminApi, name: string, opts: DbRoleOptions = {}): Promise<void> {
  const role = await api(gh.url, 'POST', '/v1/roles', {
    token: gh.adminToken,
    body: {
      name,
      allow: {
        resources: [{ kinds: ['database'], ...(opts.labels ? { labels: opts.labels } : {}) }],
        db_users: opts.dbUsers ?? ['postgres'],
        db_names: opts.dbNames ?? ['test'],
        ...(opts.rules ? { rules: opts.rules } : {}),
      },
      ...(opts.deny ? { deny: opts.deny } : {}),
      ...(opts.options ? { options: opts.options } : {}),
    },
  });
  assert.equal(role.status, 201, role.text);
}

/** The login db_read_only sessions run as in these tests: no privilege but pg_read_all_data. */
export const READ_ONLY_LOGIN = 'gatehouse_test_reader';

/** Creates READ_ONLY_LOGIN on the machine's PostgreSQL unless it exists (test files may race to it). */
export async function ensureReadOnlyLogin(): Promise<string> {
  await adminSql(`DO $$ BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '${READ_ONLY_LOGIN}') THEN
      CREATE ROLE ${READ_ONLY_LOGIN} LOGIN IN ROLE pg_read_all_data;
    END IF;
  EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
  END $$`);
  return READ_ONLY_LOGIN;
}
