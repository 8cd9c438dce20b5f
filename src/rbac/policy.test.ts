import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BUILTIN_ROLES } from './builtin-roles.js';
import { globMatch } from './glob.js';
import { compilePolicy, intersectPolicies } from './policy.js';
import type { RoleSpec } from './types.js';

const role = (spec: Partial<RoleSpec> & { name: string }): RoleSpec => ({ allow: {}, ...spec });
const builtin = (name: string) => BUILTIN_ROLES.find((r) => r.name === name) as RoleSpec;

test('deny by default', () => {
  const p = compilePolicy([]);
  assert.equal(p.can('users', 'list').allowed, false);
  assert.equal(p.canSee({ kind: 'server', labels: {} }), false);
  assert.deepEqual(p.allowedOn({ kind: 'server', labels: {} }, 'logins'), []);
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

const anyServer = { kind: 'server' as const, labels: {} };

test('logins expand traits and drop denied ones', () => {
  const p = compilePolicy([builtin('access'), role({ name: 'no-root', allow: {}, deny: { logins: ['root'] } })], {
    logins: ['ubuntu', 'root'],
  });
  assert.deepEqual(p.allowedOn(anyServer, 'logins'), ['ubuntu']);
  assert.equal(p.allowsOn(anyServer, [{ field: 'logins', value: 'root' }]), false, 'denied in every role');
  assert.deepEqual(compilePolicy([builtin('admin')]).allowedOn(anyServer, 'logins'), ['root']);
});

test('each role is an allow unit: a login of one role never reaches what only another selects', () => {
  const devSsh = role({
    name: 'dev-ssh',
    allow: { resources: [{ kinds: ['server'], labels: { env: 'dev' } }], logins: ['ubuntu'] },
  });
  const labRoot = role({
    name: 'lab-root',
    allow: { resources: [{ kinds: ['server'], labels: { env: 'lab' } }], logins: ['root'] },
  });
  const p = compilePolicy([devSsh, labRoot]);
  const devServer = { kind: 'server' as const, labels: { env: 'dev' } };
  const labServer = { kind: 'server' as const, labels: { env: 'lab' } };
  assert.equal(p.allowsOn(devServer, [{ field: 'logins', value: 'root' }]), false, 'root is lab-root’s, on lab only');
  assert.equal(p.allowsOn(devServer, [{ field: 'logins', value: 'ubuntu' }]), true, 'positive control');
  assert.equal(p.allowsOn(labServer, [{ field: 'logins', value: 'root' }]), true, 'positive control');
  assert.equal(p.allowsOn(labServer, [{ field: 'logins', value: 'ubuntu' }]), false);
  assert.deepEqual(p.allowedOn(devServer, 'logins'), ['ubuntu']);
  assert.deepEqual(p.allowedOn(labServer, 'logins'), ['root']);
});

test('a database user and name must come from the same role', () => {
  const reports = role({
    name: 'reports',
    allow: { resources: [{ kinds: ['database'] }], db_users: ['reader'], db_names: ['reports'] },
  });
  const orders = role({
    name: 'orders',
    allow: { resources: [{ kinds: ['database'] }], db_users: ['writer'], db_names: ['orders'] },
  });
  const p = compilePolicy([reports, orders]);
  const db = { kind: 'database' as const, labels: {} };
  const as = (user: string, name: string) => [
    { field: 'db_users' as const, value: user },
    { field: 'db_names' as const, value: name },
  ];
  assert.equal(p.allowsOn(db, as('writer', 'reports')), false, 'writer is for orders only');
  assert.equal(p.allowsOn(db, as('writer', 'orders')), true, 'positive control');
  assert.equal(p.allowsOn(db, as('reader', 'reports')), true, 'positive control');
});

test('a login is a literal name: * in logins is not a wildcard', () => {
  const star = role({ name: 'star', allow: { resources: [{ kinds: ['server'] }], logins: ['*'], db_users: ['*'] } });
  const p = compilePolicy([star]);
  assert.equal(p.allowsOn(anyServer, [{ field: 'logins', value: 'root' }]), false);
  const db = { kind: 'database' as const, labels: {} };
  assert.equal(p.allowsOn(db, [{ field: 'db_users', value: 'x' }]), false, 'the role does not select databases');
});

test('kube_resources apply on the clusters their own role selects', () => {
  const devPods = role({
    name: 'dev-pods',
    allow: {
      resources: [{ kinds: ['kube_cluster'], labels: { env: 'dev' } }],
      kube_groups: ['viewers'],
      kube_resources: [{ kind: 'pods', namespace: 'dev', verbs: ['get'] }],
    },
  });
  const prodAll = role({
    name: 'prod-all',
    allow: { resources: [{ kinds: ['kube_cluster'], labels: { env: 'prod' } }], kube_groups: ['admins'] },
  });
  const p = compilePolicy([devPods, prodAll]);
  const dev = { kind: 'kube_cluster' as const, labels: { env: 'dev' } };
  const [set] = p.kubeRules(dev);
  assert.deepEqual(set?.allow, [{ kind: 'pods', namespace: 'dev', verbs: ['get'] }], 'not prod-all’s every object');
  assert.deepEqual(p.allowedOn(dev, 'kube_groups'), ['viewers']);
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
    allow: {
      resources: [{ kinds: ['*'] }],
      db_users: ['app_*', '{{traits.db_users}}'],
      db_names: ['orders'],
      kube_groups: ['viewers'],
    },
    deny: { db_users: ['app_admin'] },
  };
  const p = compilePolicy([db], { db_users: ['alice'] });
  const on = { kind: 'database' as const, labels: {} };
  const allows = (pol: typeof p, field: 'db_users' | 'db_names', value: string) => pol.allowsOn(on, [{ field, value }]);
  assert.equal(allows(p, 'db_users', 'app_reader'), true);
  assert.equal(allows(p, 'db_users', 'alice'), true, 'from the trait');
  assert.equal(allows(p, 'db_users', 'app_admin'), false, 'deny wins');
  assert.equal(allows(p, 'db_users', 'postgres'), false);
  assert.equal(allows(p, 'db_names', 'orders'), true);
  assert.equal(allows(p, 'db_names', 'billing'), false);
  assert.deepEqual(p.allowedOn({ kind: 'kube_cluster', labels: {} }, 'kube_groups'), ['viewers']);
  const narrow = compilePolicy([{ name: 'n', allow: { resources: [{ kinds: ['*'] }], db_users: ['app_reader'] } }]);
  const both = intersectPolicies(p, narrow);
  assert.equal(allows(both, 'db_users', 'app_reader'), true);
  assert.equal(allows(both, 'db_users', 'app_writer'), false, 'the other side lacks it');
  assert.equal(allows(compilePolicy([builtin('admin')]), 'db_users', 'anyone'), true);
});
