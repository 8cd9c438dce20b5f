// What Gatehouse keeps of a person's security keys and passkeys (WebAuthn credentials), and where.
// Only public material: the credential's id and public key, its signature counter and transports.
import type { Operation } from '../backend/types.js';

export interface MfaDeviceRecord {
  /** mfa_… (the API's id). */
  id: string;
  user_id: string;
  /** The WebAuthn credential id, base64url (what the authenticator names itself by). */
  credential_id: string;
  /** COSE public key, base64url. */
  public_key: string;
  /** The authenticator's signature counter at its last use: a clone shows itself by going back. */
  counter: number;
  transports: string[];
  /** A discoverable credential (a passkey) may sign in alone where a role allows it. */
  discoverable: boolean;
  name: string;
  created_at: string;
  last_used_at: string | null;
}

export type ChallengePurpose = 'register' | 'sign-in' | 'passkey';

/** A challenge handed out for one ceremony: used once, within minutes, by whom it was made for. */
export interface ChallengeRecord {
  purpose: ChallengePurpose;
  /** The person it was made for (absent for a passkey sign-in, where nobody is known yet). */
  user_id?: string;
  /** A sign-in's challenge is also bound to the pending login (its access token's id). */
  token_id?: string;
  expires_at: number;
}

export const mfaKeys = {
  devicesOf: (userId: string) => `mfa/devices/${userId}/`,
  device: (userId: string, id: string) => `mfa/devices/${userId}/${id}`,
  /** credential id → device: one credential belongs to one person, and a passkey finds its owner. */
  credential: (credentialId: string) => `index/mfa/credential/${credentialId}`,
  challenge: (challenge: string) => `mfa/challenges/${challenge}`,
};

/** The operations that remove one device and its credential index. */
export const deviceDeleteOps = (d: MfaDeviceRecord): Operation[] => [
  { type: 'delete', key: mfaKeys.device(d.user_id, d.id) },
  { type: 'delete', key: mfaKeys.credential(d.credential_id) },
];
