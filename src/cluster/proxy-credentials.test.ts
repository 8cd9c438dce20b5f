// A joined proxy's credential (proxy-credentials.ts) on the auth tier's clock: good for ten minutes and
// not a second more, only for the internal API's audience and only under the cluster's signing key; a
// renewal's fresh credential is good while the old one lives out its own expiry and no longer; the
// proof a proxy renews with holds only when signed by its registered key, for itself, just now.
import assert from 'node:assert/strict';
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { describe, test } from 'node:test';
import { type JWK, SignJWT } from 'jose';
import {
  CREDENTIAL_TTL_S,
  createProxyCredentials,
  INTERNAL_AUDIENCE,
  proofHolds,
  proofSubject,
  publicEd25519Jwk,
  RENEW_AUDIENCE,
} from './proxy-credentials.js';

const T0 = Date.parse('2026-03-01T12:00:00Z');
const ID = 'prx_0123456789abcdef';
const ed25519 = () => generateKeyPairSync('ed25519').privateKey;

/** Credentials on a clock the test moves. */
function onClock(signingKey = ed25519()) {
  const clock = { now: T0 };
  return { clock, signingKey, credentials: createProxyCredentials(signingKey, () => clock.now) };
}

/** A JWT shaped like a credential, with whatever the test changes. */
const forged = (key: KeyObject, over: { aud?: string; iss?: string; sub?: string; iat?: number; exp?: number } = {}) =>
  new SignJWT({})
    .setProtectedHeader({ alg: 'EdDSA', typ: 'JWT' })
    .setIssuer(over.iss ?? 'gatehouse-auth')
    .setAudience(over.aud ?? INTERNAL_AUDIENCE)
    .setSubject(over.sub ?? ID)
    .setIssuedAt(over.iat ?? T0 / 1000)
    .setExpirationTime(over.exp ?? T0 / 1000 + CREDENTIAL_TTL_S)
    .sign(key);

describe('a proxy credential', () => {
  test('names its identity for ten minutes, then is refused (also once remembered as verified)', async () => {
    const { clock, credentials } = onClock();
    const { credential, expires_at } = await credentials.issue(ID);
    assert.equal(Date.parse(expires_at), T0 + CREDENTIAL_TTL_S * 1000);
    assert.equal(await credentials.verify(credential), ID, 'positive control: fresh');
    clock.now = T0 + CREDENTIAL_TTL_S * 1000 - 1000;
    assert.equal(await credentials.verify(credential), ID, 'a second before its exp');
    clock.now = T0 + CREDENTIAL_TTL_S * 1000;
    assert.equal(await credentials.verify(credential), undefined, 'at its exp (remembered: the cache says no too)');
    clock.now = T0 + 3600_000;
    assert.equal(await credentials.verify(credential), undefined, 'an hour later');
  });

  test('an expired one is refused without ever having been verified before', async () => {
    const { clock, signingKey, credentials } = onClock();
    const { credential } = await credentials.issue(ID);
    clock.now = T0 + CREDENTIAL_TTL_S * 1000 + 1;
    const other = createProxyCredentials(signingKey, () => clock.now); // another auth instance, same key
    assert.equal(await other.verify(credential), undefined);
    clock.now = T0 + 1000;
    assert.equal(await other.verify(credential), ID, 'positive control: the other instance verifies it in time');
  });

  test('another audience, another issuer or another signing key is refused (positive control: ours)', async () => {
    const { signingKey, credentials } = onClock();
    assert.equal(await credentials.verify(await forged(signingKey)), ID, 'positive control: our key, our claims');
    // A proxy's own renewal proof is a JWT too: it is no credential.
    assert.equal(await credentials.verify(await forged(signingKey, { aud: RENEW_AUDIENCE })), undefined, 'aud renew');
    assert.equal(await credentials.verify(await forged(signingKey, { aud: 'gatehouse-apps' })), undefined, 'aud other');
    assert.equal(await credentials.verify(await forged(signingKey, { iss: 'someone' })), undefined, 'iss');
    assert.equal(await credentials.verify(await forged(ed25519())), undefined, 'another Ed25519 key');
    // Another cluster's auth tier: its own signing key, the same claims.
    const elsewhere = await onClock().credentials.issue(ID);
    assert.equal(await credentials.verify(elsewhere.credential), undefined, 'issued by another cluster');
    const { privateKey: rsa } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const rs256 = await new SignJWT({})
      .setProtectedHeader({ alg: 'RS256' })
      .setIssuer('gatehouse-auth')
      .setAudience(INTERNAL_AUDIENCE)
      .setSubject(ID)
      .setIssuedAt(T0 / 1000)
      .setExpirationTime(T0 / 1000 + 60)
      .sign(rsa);
    assert.equal(await credentials.verify(rs256), undefined, 'another algorithm');
    const [h, p] = (await forged(signingKey)).split('.');
    const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${p}.`;
    assert.equal(await credentials.verify(none), undefined, 'unsigned');
    assert.equal(await credentials.verify(`${h}.${p}.${'A'.repeat(86)}`), undefined, 'a signature that is not one');
    assert.equal(await credentials.verify('not a jwt'), undefined);
  });

  test('renewed at half-life: the fresh one is good, the old one only until its own exp', async () => {
    const { clock, credentials } = onClock();
    const old = await credentials.issue(ID);
    clock.now = T0 + (CREDENTIAL_TTL_S * 1000) / 2; // when proxy-identity-client.ts renews
    const renewed = await credentials.issue(ID);
    assert.notEqual(renewed.credential, old.credential, 'a new credential');
    assert.equal(Date.parse(renewed.expires_at), clock.now + CREDENTIAL_TTL_S * 1000, 'ten minutes from the renewal');
    assert.equal(await credentials.verify(renewed.credential), ID);
    assert.equal(await credentials.verify(old.credential), ID, 'the old one is still good: calls in flight carry it');
    clock.now = Date.parse(old.expires_at);
    assert.equal(await credentials.verify(old.credential), undefined, 'the old one ends at its exp');
    assert.equal(await credentials.verify(renewed.credential), ID, 'the fresh one outlives it');
    clock.now = Date.parse(renewed.expires_at);
    assert.equal(await credentials.verify(renewed.credential), undefined, 'and ends at its own');
  });
});

describe('a renewal proof', () => {
  const holder = generateKeyPairSync('ed25519');
  const registered = publicEd25519Jwk(holder.publicKey.export({ format: 'jwk' })) as JWK;
  const proof = (over: { key?: KeyObject; sub?: string; aud?: string; iat?: number; ttl?: number } = {}) => {
    const iat = over.iat ?? T0 / 1000;
    return new SignJWT({})
      .setProtectedHeader({ alg: 'EdDSA', typ: 'JWT' })
      .setSubject(over.sub ?? ID)
      .setAudience(over.aud ?? RENEW_AUDIENCE)
      .setIssuedAt(iat)
      .setExpirationTime(iat + (over.ttl ?? 60))
      .sign(over.key ?? holder.privateKey);
  };
  const at = (ms: number) => () => ms;

  test('holds when signed by the registered key, for itself, within a minute (positive control)', async () => {
    const p = await proof();
    assert.equal(proofSubject(p), ID);
    assert.equal(await proofHolds(p, registered, ID, at(T0 + 1000)), true);
  });

  test('holds from a host whose clock is a little ahead of auth’s (whole-second iat, milliseconds of skew)', async () => {
    // Signed at 12:00:01.002 on the proxy, checked at 12:00:00.998 on auth: iat is a second ahead.
    assert.equal(await proofHolds(await proof({ iat: T0 / 1000 + 1 }), registered, ID, at(T0 + 998)), true);
    assert.equal(await proofHolds(await proof({ iat: T0 / 1000 + 4 }), registered, ID, at(T0)), true, '4 s ahead');
  });

  test('is refused signed by another key, for another identity, another audience, too old or too long', async () => {
    assert.equal(await proofHolds(await proof({ key: ed25519() }), registered, ID, at(T0)), false, 'another key');
    assert.equal(
      await proofHolds(await proof({ sub: 'prx_ffffffffffffffff' }), registered, ID, at(T0)),
      false,
      'names another identity',
    );
    assert.equal(
      await proofHolds(await proof({ aud: INTERNAL_AUDIENCE }), registered, ID, at(T0)),
      false,
      'a credential-shaped proof',
    );
    assert.equal(
      await proofHolds(await proof(), registered, ID, at(T0 + 66_000)),
      false,
      'over a minute old (and the tolerance)',
    );
    assert.equal(await proofHolds(await proof({ ttl: 3600 }), registered, ID, at(T0)), false, 'asks to live an hour');
    // Made now for use later (a copy taken off the host would stay good): refused until its time.
    assert.equal(
      await proofHolds(await proof({ iat: T0 / 1000 + 3600 }), registered, ID, at(T0)),
      false,
      'dated in the future',
    );
  });

  test('registers only an Ed25519 public key: no private part, no other curve', () => {
    const jwk = holder.publicKey.export({ format: 'jwk' });
    assert.deepEqual(publicEd25519Jwk(jwk), { kty: 'OKP', crv: 'Ed25519', x: jwk.x });
    assert.equal(publicEd25519Jwk(holder.privateKey.export({ format: 'jwk' })), undefined, 'with d');
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' });
    assert.equal(publicEd25519Jwk(ec), undefined);
    assert.equal(publicEd25519Jwk({ kty: 'OKP', crv: 'Ed25519', x: 'short' }), undefined);
  });
});
