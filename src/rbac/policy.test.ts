import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BUILTIN_ROLES } from './builtin-roles.js';
import { compilePolicy, globMatch, intersectPolicies } from './policy.js';
import type { RoleSpec } from './types.js';

const role = (spec: Partial<RoleSpec> & { name: string }): RoleSpec => ({ allow: {}, ...spec });
const builtin = (name: string) => BUILTIN_ROLES.find((r) => r.name === name) as RoleSpec;

test('deny by default', () => {
  const p = compilePolicy([]);
  assert.equal(p.can('users', 'list').allowed, false);
  assert.equal(p.canSee({ kind: 'server', labels: {} }), false);
  assert.deepEqual(p.logins(), []);
});

test('allows add up across roles; a matching deny wins and names its role', () => {
  const a = role({ name: 'a', allow: { rules: [{ resources: ['users'], verbs: ['list'] }] } });
  const b = role({ name: 'b', allow: { rules: [{ resources: ['roles'], verbs: ['*'] }] } });
  const d = role({ name: 'd', allow: {}, deny: { rules: [{ resources: ['*'], verbs: ['delete'] }] } });
  const p = compilePolicy([a, b, d]);
  assert.deepEqual(p.can('users', 'list'), { allowed: true, role: 'a' });
  assert.deepEqual(p.can('roles', 'create'), { allowed: true, role: 'b' });
  assert.deepEqual(p.can('roles', 'delete'), { allowed: false, role: 'd' });
  assert.equal(p.can('users', 'create').allowed, false);
});

test('label selectors: every label must match, globs, kinds, and deny selectors', () => {
  const r = role({
    name: 'dev',
    allow: { resources: [{ kinds: ['server', 'database'], labels: { env: 'dev*', team: 'infra' } }] },
    deny: { resources: [{ kinds: ['*'], labels: { tier: 'prod*' } }] },
  });
  const p = compilePolicy([r]);
  assert.equal(p.canSee({ kind: 'server', labels: { env: 'dev-eu', team: 'infra' } }), true);
  assert.equal(p.canSee({ kind: 'server', labels: { env: 'dev-eu' } }), false, 'missing label');
  assert.equal(p.canSee({ kind: 'app', labels: { env: 'dev', team: 'infra' } }), false, 'kind not allowed');
  assert.equal(
    p.canSee({ kind: 'server', labels: { env: 'dev', team: 'infra', tier: 'production' } }),
    false,
    'denied',
  );
});

test('globs match whole values and treat regex characters literally', () => {
  assert.equal(globMatch('prod*', 'production'), true);
  assert.equal(globMatch('prod*', 'preprod'), false);
  assert.equal(globMatch('a.b', 'axb'), false);
  assert.equal(globMatch('*', ''), true);
  assert.equal(globMatch('x', 'x'), true);
});

test('logins expand traits and drop denied ones', () => {
  const p = compilePolicy([builtin('access'), role({ name: 'no-root', allow: {}, deny: { logins: ['root'] } })], {
    logins: ['ubuntu', 'root'],
  });
  assert.deepEqual(p.logins(), ['ubuntu']);
  assert.deepEqual(compilePolicy([builtin('admin')]).logins(), ['root']);
});

test('built-in roles: auditor reads the audit trail only; editor cannot touch it', () => {
  const auditor = compilePolicy([builtin('auditor')]);
  assert.equal(auditor.can('events', 'list').allowed, true);
  assert.equal(auditor.can('users', 'list').allowed, false);
  const editor = compilePolicy([builtin('editor')]);
  assert.equal(editor.can('agents', 'create').allowed, true);
  assert.equal(editor.can('events', 'delete').allowed, false);
});

test('an intersection allows only what both allow', () => {
  const both = intersectPolicies(compilePolicy([builtin('admin')]), compilePolicy([builtin('auditor')]));
  assert.equal(both.can('events', 'list').allowed, true);
  assert.equal(both.can('users', 'list').allowed, false);
  assert.equal(both.canSee({ kind: 'server', labels: {} }), false);
});

test('db users, db names and kube groups: globs, traits, deny wins, intersections narrow', () => {
  const db: RoleSpec = {
    name: 'db',
    allow: { db_users: ['app_*', '{{traits.db_users}}'], db_names: ['orders'], kube_groups: ['viewers'] },
    deny: { db_users: ['app_admin'] },
  };
  const p = compilePolicy([db], { db_users: ['alice'] });
  assert.equal(p.allows('db_users', 'app_reader'), true);
  assert.equal(p.allows('db_users', 'alice'), true, 'from the trait');
  assert.equal(p.allows('db_users', 'app_admin'), false, 'deny wins');
  assert.equal(p.allows('db_users', 'postgres'), false);
  assert.equal(p.allows('db_names', 'orders'), true);
  assert.equal(p.allows('db_names', 'billing'), false);
  assert.deepEqual(p.allowed('kube_groups'), ['viewers']);
  const narrow = compilePolicy([{ name: 'n', allow: { db_users: ['app_reader'] } }]);
  const both = intersectPolicies(p, narrow);
  assert.equal(both.allows('db_users', 'app_reader'), true);
  assert.equal(both.allows('db_users', 'app_writer'), false, 'the other side lacks it');
  assert.equal(compilePolicy([builtin('admin')]).allows('db_users', 'anyone'), true);
});
