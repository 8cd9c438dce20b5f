// The two WebAuthn ceremonies, done by @simplewebauthn/server (signatures, attestation, origin, RP id,
// flags and the signature counter are all its checks, not ours). Here: which challenge, which
// credential, and what a failure is called. Every failure is a ChallengeRefused-like refusal with a
// reason for the audit event; nothing about the key material reaches the reason.
import {
  type AuthenticationResponseJSON,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import { decodeClientDataJSON } from '@simplewebauthn/server/helpers';
import type { MfaDeviceRecord } from './records.js';
import type { RelyingParty } from './relying-party.js';

/** A response that did not verify: the person sees `reason`, the audit event keeps it. */
export class CeremonyFailed extends Error {}

const TIMEOUT_MS = 60_000;

/** The challenge a browser signed, read from its clientDataJSON (verified against ours afterwards). */
export function challengeOf(response: { response: { clientDataJSON: string } }): string {
  try {
    return decodeClientDataJSON(response.response.clientDataJSON).challenge;
  } catch {
    throw new CeremonyFailed('the response carries no readable clientDataJSON');
  }
}

export function registrationOptions(
  rp: RelyingParty,
  user: { id: string; name: string },
  challenge: string,
  existing: readonly MfaDeviceRecord[],
) {
  return generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userName: user.name,
    // The user handle is the user's id: opaque, and what a passkey sign-in names its owner by.
    userID: new TextEncoder().encode(user.id),
    // As bytes: a string would be taken as UTF-8 text and encoded once more.
    challenge: Buffer.from(challenge, 'base64url'),
    timeout: TIMEOUT_MS,
    attestationType: 'none',
    // A key already registered is not offered again.
    excludeCredentials: existing.map((d) => ({ id: d.credential_id, transports: d.transports })),
    // A passkey where the authenticator can keep one (it may then sign in alone, if a role allows).
    authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
  });
}

/** What both ceremonies hold the browser's answer to: this challenge, from this origin, for this RP id. */
const expected = (rp: RelyingParty, challenge: string) => ({
  expectedChallenge: challenge,
  expectedOrigin: rp.origin,
  expectedRPID: rp.id,
});

export async function verifyRegistration(rp: RelyingParty, response: RegistrationResponseJSON, challenge: string) {
  let result: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
  try {
    result = await verifyRegistrationResponse({ response, ...expected(rp, challenge), requireUserVerification: false });
  } catch (error) {
    throw new CeremonyFailed(`the registration did not verify: ${(error as Error).message}`);
  }
  if (!result.verified) throw new CeremonyFailed('the registration did not verify');
  const { credential } = result.registrationInfo;
  return {
    credential_id: credential.id,
    public_key: Buffer.from(credential.publicKey).toString('base64url'),
    counter: credential.counter,
    transports: credential.transports ?? response.response.transports ?? [],
    // The browser says whether it kept a discoverable credential (credProps); absent: unknown, not one.
    discoverable: response.clientExtensionResults?.credProps?.rk === true,
  };
}

export function authenticationOptions(rp: RelyingParty, challenge: string, devices: readonly MfaDeviceRecord[]) {
  return generateAuthenticationOptions({
    rpID: rp.id,
    // As bytes: a string would be taken as UTF-8 text and encoded once more.
    challenge: Buffer.from(challenge, 'base64url'),
    timeout: TIMEOUT_MS,
    // Empty for a passkey sign-in: the authenticator offers what it holds for this RP.
    allowCredentials: devices.map((d) => ({ id: d.credential_id, transports: d.transports })),
    userVerification: devices.length === 0 ? 'required' : 'preferred',
  });
}

/** Verifies an assertion by a registered device; answers its new counter. */
export async function verifyAssertion(
  rp: RelyingParty,
  response: AuthenticationResponseJSON,
  challenge: string,
  device: MfaDeviceRecord,
  opts: { requireUserVerification: boolean },
): Promise<number> {
  let result: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
  try {
    result = await verifyAuthenticationResponse({
      response,
      ...expected(rp, challenge),
      credential: {
        id: device.credential_id,
        publicKey: Buffer.from(device.public_key, 'base64url'),
        counter: device.counter,
        transports: device.transports,
      },
      requireUserVerification: opts.requireUserVerification,
    });
  } catch (error) {
    const message = (error as Error).message;
    // The library refuses a counter that did not move forward: a cloned authenticator shows so.
    if (/counter/i.test(message))
      throw new CeremonyFailed(`the key's signature counter went back (${message}): a cloned key?`);
    throw new CeremonyFailed(`the assertion did not verify: ${message}`);
  }
  if (!result.verified) throw new CeremonyFailed('the assertion did not verify');
  return result.authenticationInfo.newCounter;
}
