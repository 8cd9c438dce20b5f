import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BUILTIN_ROLES } from './builtin-roles.js';
import { coverageGaps, globContains, selectorContains, wideningOf } from './coverage.js';
import type { RoleSpec } from './types.js';

const role = (name: string, spec: Omit<RoleSpec, 'name'>): RoleSpec => ({ name, ...spec });
const builtin = (name: string) => BUILTIN_ROLES.find((r) => r.name === name) as RoleSpec;
const dev = role('dev', {
  allow: {
    rules: [{ resources: ['resources'], verbs: ['list', 'read'] }],
    resources: [{ kinds: ['server'], labels: { env: 'dev' } }],
    logins: ['ubuntu'],
  },
});

describe('globContains', () => {
  test('literal, star, prefix and suffix globs', () => {
    assert.equal(globContains('*', 'anything*'), true);
    assert.equal(globContains('prod*', 'prod-eu'), true);
    assert.equal(globContains('prod*', 'prod-eu*'), true);
    assert.equal(globContains('prod-eu*', 'prod*'), false, 'a narrower glob does not contain a wider one');
    assert.equal(globContains('a*z', 'ab*yz'), true);
    assert.equal(globContains('dev', 'dev*'), false);
    assert.equal(globContains('dev', 'dev'), true);
  });
});

describe('selectorContains', () => {
  test('kinds and labels, {"*":"*"} matching anything', () => {
    const any = { kinds: ['*' as const], labels: { '*': '*' } };
    assert.equal(selectorContains(any, { kinds: ['server'], labels: { env: 'prod' } }), true);
    assert.equal(selectorContains({ kinds: ['server'], labels: { env: 'dev' } }, { kinds: ['server'] }), false);
    assert.equal(selectorContains({ kinds: ['server'] }, { kinds: ['*'] }), false);
    assert.equal(
      selectorContains(
        { kinds: ['server', 'database'], labels: { env: 'dev*' } },
        { kinds: ['server'], labels: { env: 'dev-1', team: 'x' } },
      ),
      true,
    );
  });
});

describe('coverageGaps', () => {
  test('admin covers everything; editor covers neither admin nor access', () => {
    assert.deepEqual(coverageGaps([{ roles: [builtin('admin')] }], { roles: [builtin('admin')] }), []);
    const editorGaps = coverageGaps([{ roles: [builtin('editor')] }], { roles: [builtin('admin')] });
    assert.ok(editorGaps.includes('events:delete') && editorGaps.includes('login root'), editorGaps.join());
    assert.ok(
      coverageGaps([{ roles: [builtin('editor')] }], { roles: [builtin('access')] }).includes('sessions:create'),
    );
    assert.deepEqual(coverageGaps([{ roles: [builtin('editor')] }], { roles: [builtin('auditor')] }), []);
  });

  test('a trait template is covered only by someone who holds any value; expanded, by the values', () => {
    // (On the resources the role selects: a login in a role that selects nothing reaches nothing.)
    const templated = role('t', { allow: { resources: dev.allow.resources ?? [], logins: ['{{traits.logins}}'] } });
    assert.deepEqual(coverageGaps([{ roles: [dev], traits: {} }], { roles: [templated] }), ['login {{traits.logins}}']);
    assert.deepEqual(
      coverageGaps([{ roles: [dev], traits: {} }], { roles: [templated], traits: { logins: ['ubuntu'] } }),
      [],
    );
    assert.deepEqual(
      coverageGaps([{ roles: [dev], traits: {} }], { roles: [templated], traits: { logins: ['root'] } }),
      ['login root'],
    );
  });

  test('a caller’s deny bounds it; the target must deny as much', () => {
    const all = role('all', { allow: { resources: [{ kinds: ['*'], labels: { '*': '*' } }] } });
    const noProd = role('no-prod', { allow: {}, deny: { resources: [{ kinds: ['*'], labels: { env: 'prod' } }] } });
    const caller = [{ roles: [all, noProd] }];
    assert.equal(coverageGaps(caller, { roles: [all] }).length, 1);
    assert.deepEqual(coverageGaps(caller, { roles: [all, noProd] }), []);
  });

  test('options: the target is no looser than the caller, when it can connect at all', () => {
    const strict = role('s', { allow: dev.allow, options: { record_session: 'strict', max_session_ttl: '1h' } });
    assert.deepEqual(coverageGaps([{ roles: [strict] }], { roles: [dev] }).sort(), [
      'option max_session_ttl no longer than yours (3600s)',
      'option record_session: strict',
    ]);
    const apiOnly = role('api', { allow: { rules: [{ resources: ['resources'], verbs: ['read'] }] } });
    assert.deepEqual(coverageGaps([{ roles: [strict] }], { roles: [apiOnly] }), []);
    assert.deepEqual(
      coverageGaps([{ roles: [strict] }], {
        roles: [{ ...dev, options: { record_session: 'strict', max_session_ttl: '30m' } }],
      }),
      [],
    );
  });

  test('role by role: a login held on dev does not cover the same login on prod', () => {
    const devRoot = role('dev-root', {
      allow: { resources: [{ kinds: ['server'], labels: { env: 'dev' } }], logins: ['root'] },
    });
    const prodUbuntu = role('prod-ubuntu', {
      allow: { resources: [{ kinds: ['server'], labels: { env: 'prod' } }], logins: ['ubuntu'] },
    });
    const prodRoot = role('prod-root', {
      allow: { resources: [{ kinds: ['server'], labels: { env: 'prod' } }], logins: ['root'] },
    });
    const caller = [{ roles: [devRoot, prodUbuntu] }];
    assert.deepEqual(coverageGaps(caller, { roles: [prodRoot] }), ['login root on server env=prod']);
    assert.deepEqual(coverageGaps(caller, { roles: [devRoot] }), [], 'positive control');
    assert.deepEqual(coverageGaps(caller, { roles: [prodUbuntu] }), [], 'positive control');
  });

  test('a login of a role that selects nothing is still held somewhere by whoever grants it', () => {
    const bare = role('bare', { allow: { logins: ['root'] } });
    assert.deepEqual(coverageGaps([{ roles: [dev] }], { roles: [bare] }), ['login root']);
    const devRoot = role('dev-root', { allow: { resources: dev.allow.resources ?? [], logins: ['root'] } });
    assert.deepEqual(coverageGaps([{ roles: [devRoot] }], { roles: [bare] }), [], 'positive control');
  });

  test('a * login covers nothing but the literal name *', () => {
    const star = role('star', { allow: { resources: dev.allow.resources ?? [], logins: ['*'] } });
    const root = role('root', { allow: { resources: dev.allow.resources ?? [], logins: ['root'] } });
    assert.deepEqual(coverageGaps([{ roles: [star] }], { roles: [root] }), ['login root']);
  });

  test('an intersection of rights: the target fits every part', () => {
    assert.ok(
      coverageGaps([{ roles: [builtin('admin')] }, { roles: [dev] }], { roles: [builtin('auditor')] }).length > 0,
    );
    assert.deepEqual(
      coverageGaps([{ roles: [builtin('admin')] }, { roles: [builtin('editor')] }], { roles: [builtin('auditor')] }),
      [],
    );
  });
});

describe('wideningOf', () => {
  test('dropping a deny widens as surely as adding an allow', () => {
    const noRoot = role('no-root', {
      allow: {},
      deny: { logins: ['root'], rules: [{ resources: ['events'], verbs: ['*'] }], resources: [{ kinds: ['server'] }] },
    });
    const widened = wideningOf([noRoot], [{ ...noRoot, deny: {} }]);
    const undenied = widened.find((r) => r.name === '(removed denies)');
    assert.deepEqual(undenied?.allow.logins, ['root']);
    assert.deepEqual(undenied?.allow.resources, [{ kinds: ['server'] }]);
    assert.equal(undenied?.allow.rules?.length, 5);
    assert.deepEqual(wideningOf([noRoot], [{ ...noRoot, description: 'only words' }]), [], 'no change in rights');
    assert.deepEqual(wideningOf([dev, noRoot], [noRoot]), [], 'dropping an allow-only role narrows');
  });
});
