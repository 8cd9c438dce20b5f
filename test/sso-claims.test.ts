// Claims → roles, traits and user name (src/sso/claims.ts): globs, {{…}} templates, no match, and
// claim values that must not become role names.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { claimValues, rolesFromClaims, traitsFromClaims, usernameFromClaims } from '../src/sso/claims.js';

const groups = (...g: string[]) => ({ sub: 's1', groups: g });

test('a glob over a list claim maps each matching value; order follows the mappings, no duplicates', () => {
  const mappings = [
    { claim: 'groups', value: 'platform-*', roles: ['dev'] },
    { claim: 'groups', value: 'admins', roles: ['admin', 'dev'] },
  ];
  assert.deepEqual(rolesFromClaims(mappings, groups('platform-eng', 'platform-sre', 'admins')), ['dev', 'admin']);
  assert.deepEqual(rolesFromClaims(mappings, groups('platform-eng')), ['dev']);
});

test('no matching value maps to no role', () => {
  const mappings = [{ claim: 'groups', value: 'platform-*', roles: ['dev'] }];
  assert.deepEqual(rolesFromClaims(mappings, groups('sales', 'xplatform-eng')), []);
  assert.deepEqual(rolesFromClaims(mappings, { sub: 's1' }), []);
  assert.deepEqual(rolesFromClaims(mappings, { sub: 's1', groups: { nested: 'platform-x' } }), []);
});

test('templates: {{value}} is the matched value, {{claims.x}} each value of claim x', () => {
  assert.deepEqual(
    rolesFromClaims([{ claim: 'groups', value: 'team-*', roles: ['{{value}}'] }], groups('team-a', 'ops')),
    ['team-a'],
  );
  const claims = { sub: 's1', department: 'payments', groups: ['eng'] };
  assert.deepEqual(
    rolesFromClaims([{ claim: 'groups', value: 'eng', roles: ['dept-{{claims.department}}'] }], claims),
    ['dept-payments'],
  );
});

test('a template never yields a role name a claim value smuggled in (spaces, slashes, braces)', () => {
  const mappings = [{ claim: 'groups', value: '*', roles: ['{{value}}'] }];
  assert.deepEqual(rolesFromClaims(mappings, groups('ok-role', 'has space', '../admin', '{{x}}', '')), ['ok-role']);
});

test('exact values and a scalar claim', () => {
  assert.deepEqual(
    rolesFromClaims([{ claim: 'email_verified', value: 'true', roles: ['access'] }], { email_verified: true }),
    ['access'],
  );
  assert.deepEqual(claimValues({ n: 5 }, 'n'), ['5']);
});

test('traits from claims and the user name', () => {
  assert.deepEqual(
    traitsFromClaims({ logins: 'unix_username', db_users: 'missing' }, { unix_username: ['a', 'a', 'b'] }),
    {
      logins: ['a', 'b'],
    },
  );
  const pattern = /^[A-Za-z0-9][A-Za-z0-9._@-]*$/;
  assert.equal(usernameFromClaims({ email: 'ann@example.com' }, 'email', pattern), 'ann@example.com');
  assert.equal(usernameFromClaims({ email: 'not a name' }, 'email', pattern), undefined);
  assert.equal(usernameFromClaims({}, 'email', pattern), undefined);
});
