// The sign-in options of roles (require_mfa, mfa_passwordless) resolve to the most restrictive across
// a principal's roles, and across the parts an agent's rights are the intersection of.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { combineSignInOptions, compilePolicy, intersectPolicies } from '../src/rbac/policy.js';
import type { RoleOptions, RoleSpec } from '../src/rbac/types.js';

const role = (name: string, options?: RoleOptions): RoleSpec => ({ name, allow: {}, ...(options ? { options } : {}) });

test('require_mfa in any one role requires a second factor; none asking, none is required', () => {
  assert.equal(combineSignInOptions([undefined, {}]).requireMfa, false);
  assert.equal(combineSignInOptions([{ require_mfa: false }]).requireMfa, false);
  assert.equal(combineSignInOptions([{}, { require_mfa: true }, { require_mfa: false }]).requireMfa, true);
  assert.equal(compilePolicy([role('dev'), role('prod', { require_mfa: true })]).signIn().requireMfa, true);
  assert.equal(compilePolicy([role('dev'), role('ops')]).signIn().requireMfa, false);
});

test('a passkey alone is allowed when some role allows it and none forbids it', () => {
  assert.equal(combineSignInOptions([{ mfa_passwordless: true }, {}]).mfaPasswordless, true);
  assert.equal(combineSignInOptions([{}, undefined]).mfaPasswordless, false);
  assert.equal(combineSignInOptions([{ mfa_passwordless: true }, { mfa_passwordless: false }]).mfaPasswordless, false);
});

test('an intersection requires a second factor if either part does, and the passkey alone only if both allow it', () => {
  const strict = compilePolicy([role('a', { require_mfa: true, mfa_passwordless: true })]);
  const loose = compilePolicy([role('b', { mfa_passwordless: true })]);
  const none = compilePolicy([role('c')]);
  assert.deepEqual(intersectPolicies(loose, strict).signIn(), { requireMfa: true, mfaPasswordless: true });
  assert.deepEqual(intersectPolicies(loose, none).signIn(), { requireMfa: false, mfaPasswordless: false });
  assert.deepEqual(intersectPolicies(loose, loose).signIn(), { requireMfa: false, mfaPasswordless: true });
});
