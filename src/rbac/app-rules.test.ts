import assert from 'node:assert/strict';
import { test } from 'node:test';
import { appRequestVerdict, canonicalAppPath } from './app-rules.js';
import { coverageGaps, wideningOf } from './coverage.js';
import { compilePolicy, intersectPolicies } from './policy.js';
import type { RoleSpec } from './types.js';

const app = { kind: 'app' as const, labels: { team: 'ops' } };
const see = { resources: [{ kinds: ['app' as const], labels: { team: 'ops' } }] };
const readOnly: RoleSpec = { name: 'ro', allow: { ...see, app_rules: [{ methods: ['GET'], paths: ['*'] }] } };
const all: RoleSpec = { name: 'all', allow: see };
const noAdmin: RoleSpec = {
  name: 'no-admin',
  allow: {},
  deny: { app_rules: [{ methods: ['*'], paths: ['/admin*'] }] },
};
const verdict = (roles: RoleSpec[], method: string, target: string) =>
  appRequestVerdict(compilePolicy(roles).appRules(app), method, target).allowed;

test('one canonical reading of a path, or none', () => {
  assert.equal(canonicalAppPath('/a/./b/../c?x=1'), '/a/c');
  assert.equal(canonicalAppPath('//a///b/'), '/a/b/');
  assert.equal(canonicalAppPath('/%61dmin'), '/admin');
  assert.equal(canonicalAppPath('/../../etc'), '/etc');
  for (const bad of ['/a%2fb', '/a%5Cb', '/a\\b', '/a%252f', '/a%00', '/%E0%A4%A', 'http://x/a', '*'])
    assert.equal(canonicalAppPath(bad), undefined, bad);
});

test('allows add up across the roles that select the app; a deny from any role wins', () => {
  assert.equal(verdict([readOnly], 'GET', '/x'), true);
  assert.equal(verdict([readOnly], 'POST', '/x'), false);
  assert.equal(verdict([readOnly, all], 'POST', '/x'), true, 'all adds every request');
  assert.equal(verdict([all, noAdmin], 'GET', '/Admin/'), false);
  assert.equal(verdict([all, noAdmin], 'GET', '/x%2fy'), false, 'no single reading, and a rule applies');
  assert.equal(verdict([all], 'GET', '/x%2fy'), true, 'no rule: forwarded as it came');
  const other: RoleSpec = { name: 'other', allow: { resources: [{ kinds: ['app'], labels: { team: 'x' } }] } };
  assert.equal(verdict([readOnly, other], 'POST', '/x'), false, 'a role selecting another app adds nothing here');
});

test("an agent's app rules are its own roles' and its owner's, both", () => {
  const both = intersectPolicies(compilePolicy([all]), compilePolicy([readOnly]));
  assert.equal(appRequestVerdict(both.appRules(app), 'GET', '/x').allowed, true);
  assert.equal(appRequestVerdict(both.appRules(app), 'POST', '/x').allowed, false);
});

test('covering: app rules are held role by role; removing a deny widens', () => {
  assert.deepEqual(coverageGaps([{ roles: [all] }], { roles: [readOnly] }), []);
  assert.deepEqual(coverageGaps([{ roles: [readOnly] }], { roles: [all] }), ['app_rule * *']);
  const elsewhere: RoleSpec = { name: 'e', allow: { resources: [{ kinds: ['app'], labels: { team: 'x' } }] } };
  assert.deepEqual(coverageGaps([{ roles: [readOnly, elsewhere] }], { roles: [all] }), [
    'app_rule * * on app team=ops',
  ]);
  const widened = wideningOf([all, noAdmin], [all]);
  assert.deepEqual(widened.at(-1)?.allow.app_rules, [{ methods: ['*'], paths: ['/admin*'] }]);
  assert.deepEqual(coverageGaps([{ roles: [all, noAdmin] }], { roles: widened }), ['app_rule * /admin*']);
});
