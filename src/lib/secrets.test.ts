import assert from 'node:assert/strict';
import { test } from 'node:test';
import { generateToken, hashSecret, hasSecretShape, tokenId } from './secrets.js';

test('a token carries its issue time and is stored under it, then its hash', () => {
  const token = generateToken('accessToken', 0x19a_b0c0_ffee);
  assert.match(token, /^gha_019ab0c0ffee[A-Za-z0-9_-]{43}$/);
  assert.ok(hasSecretShape('accessToken', token));
  assert.equal(tokenId(token), `019ab0c0ffee-${hashSecret(token)}`);
});

test('ids of tokens issued later sort later', () => {
  const ids = [1, 255, 256, 0xffff_ffff, 1_800_000_000_000].map((t) => tokenId(generateToken('refreshToken', t)));
  assert.deepEqual([...ids].sort(), ids);
});

test('a token without an issue time (issued before) keeps its hash as its id', () => {
  const old = `gha_${'a'.repeat(43)}`;
  assert.ok(hasSecretShape('accessToken', old));
  assert.equal(tokenId(old), hashSecret(old));
});

test('a value of the new length whose time is not hex is looked up by hash only, never by a chosen key', () => {
  const odd = `gha_../../users${'a'.repeat(44)}`;
  assert.equal(odd.length, 4 + 55);
  assert.equal(hasSecretShape('accessToken', odd), false);
  assert.equal(tokenId(odd), hashSecret(odd));
});
