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

test('nested claims: a dotted path reaches into objects, lists on the way are walked and flattened', () => {
  const keycloak = {
    sub: 's1',
    realm_access: { roles: ['offline_access', 'platform-eng'] },
    resource_access: { gatehouse: { roles: ['team-red'] }, other: { roles: ['team-other'] } },
    teams: [{ name: 'team-a' }, { name: ['team-b', ['team-c']] }, { id: 7 }],
  };
  assert.deepEqual(claimValues(keycloak, 'realm_access.roles'), ['offline_access', 'platform-eng']);
  assert.deepEqual(claimValues(keycloak, 'resource_access.gatehouse.roles'), ['team-red']);
  assert.deepEqual(claimValues(keycloak, 'teams.name'), ['team-a', 'team-b', 'team-c']);
  assert.deepEqual(claimValues(keycloak, 'realm_access'), [], 'an object is not a value');
  assert.deepEqual(claimValues(keycloak, 'realm_access.missing'), []);
  assert.deepEqual(claimValues(keycloak, 'realm_access..roles'), []);
  assert.deepEqual(
    rolesFromClaims(
      [
        { claim: 'realm_access.roles', value: 'platform-*', roles: ['dev'] },
        { claim: 'resource_access.gatehouse.roles', value: 'team-*', roles: ['{{value}}'] },
      ],
      keycloak,
    ),
    ['dev', 'team-red'],
  );
  // Control: the same mappings on a flat claim of another name give nothing.
  assert.deepEqual(
    rolesFromClaims([{ claim: 'realm_access.roles', value: 'platform-*', roles: ['dev'] }], {
      roles: ['platform-eng'],
    }),
    [],
  );
  assert.deepEqual(
    rolesFromClaims([{ claim: 'groups', value: 'eng', roles: ['{{claims.resource_access.gatehouse.roles}}'] }], {
      ...keycloak,
      groups: ['eng'],
    }),
    ['team-red'],
  );
});

test('nested claims: a name the claims hold as it is wins over the path; inherited properties are never read', () => {
  const claims = { 'https://example.com/groups': ['ops'], 'a.b': 'literal', a: { b: 'nested' } };
  assert.deepEqual(claimValues(claims, 'https://example.com/groups'), ['ops']);
  assert.deepEqual(claimValues(claims, 'a.b'), ['literal']);
  assert.deepEqual(claimValues({ a: {} }, 'a.constructor.name'), []);
  assert.deepEqual(claimValues({ a: 'text' }, 'a.length'), []);
  assert.deepEqual(claimValues(JSON.parse('{"a":{"__proto__":{"x":"y"}}}'), 'a.__proto__.x'), ['y']);
  assert.deepEqual(claimValues({ a: { b: 'x' } }, 'a.toString'), []);
});

test('nested claims: deep nesting and long lists are bounded', () => {
  let deep: unknown = 'bottom';
  for (let i = 0; i < 20; i++) deep = [deep];
  assert.deepEqual(claimValues({ g: deep }, 'g'), [], 'lists nested deeper than the bound give nothing');
  const many = Array.from({ length: 1000 }, (_, i) => `g${i}`);
  assert.equal(claimValues({ g: many }, 'g').length, 256);
  assert.deepEqual(
    claimValues({ a: { b: { c: { d: { e: { f: { g: { h: { i: 'x' } } } } } } } } }, 'a.b.c.d.e.f.g.h.i'),
    [],
  );
});
