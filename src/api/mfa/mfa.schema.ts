import { Type } from '@sinclair/typebox';
import { Timestamp } from '../../lib/shapes.js';
import { pathId } from '../schemas.js';
import { UserRef } from '../users/users.schema.js';

const B64URL = (what: string, maxLength = 16_384) =>
  Type.String({ pattern: '^[A-Za-z0-9_-]*={0,2}$', maxLength, description: `${what}, base64url` });

export const DeviceName = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: '^[^\\x00-\\x1f\\x7f\\uD800-\\uDFFF]+$',
  description: 'What the person calls the key, e.g. "YubiKey 5C" or "Laptop passkey"',
});

/** What navigator.credentials.create() or .get() gave, as @simplewebauthn/browser sends it. */
export const CredentialResponse = Type.Object(
  {
    id: B64URL('credential id', 1024),
    rawId: B64URL('credential id', 1024),
    type: Type.Literal('public-key'),
    response: Type.Object(
      {
        clientDataJSON: B64URL('clientDataJSON'),
        attestationObject: Type.Optional(B64URL('attestation object')),
        authenticatorData: Type.Optional(B64URL('authenticator data')),
        signature: Type.Optional(B64URL('signature', 1024)),
        userHandle: Type.Optional(B64URL('user handle', 256)),
        publicKey: Type.Optional(B64URL('public key')),
        publicKeyAlgorithm: Type.Optional(Type.Integer()),
        transports: Type.Optional(Type.Array(Type.String({ maxLength: 32 }), { maxItems: 8 })),
      },
      { additionalProperties: false },
    ),
    authenticatorAttachment: Type.Optional(Type.String({ maxLength: 32 })),
    clientExtensionResults: Type.Object(
      { credProps: Type.Optional(Type.Object({ rk: Type.Optional(Type.Boolean()) }, { additionalProperties: false })) },
      // Other extensions' outputs are ignored, not refused: browsers add some on their own.
      { additionalProperties: true },
    ),
  },
  { additionalProperties: false },
);

export const RegisterDevice = Type.Object(
  { name: DeviceName, response: CredentialResponse },
  { additionalProperties: false },
);
export const RenameDevice = Type.Object({ name: DeviceName }, { additionalProperties: false });

/** PublicKeyCredentialCreationOptionsJSON or …RequestOptionsJSON, for @simplewebauthn/browser. */
export const WebAuthnOptions = Type.Object(
  { challenge: Type.String() },
  { additionalProperties: true, description: 'Options for navigator.credentials (WebAuthn Level 3 JSON)' },
);

export const MfaDevice = Type.Object(
  {
    id: pathId('mfaDevice'),
    name: Type.String(),
    credential_id: Type.String({ description: 'The WebAuthn credential id, base64url' }),
    transports: Type.Array(Type.String()),
    discoverable: Type.Boolean({
      description: 'A passkey: may sign in alone where a role allows it (mfa_passwordless)',
    }),
    created_at: Timestamp,
    last_used_at: Type.Union([Timestamp, Type.Null()]),
  },
  { additionalProperties: false },
);
export const MfaDeviceList = Type.Object({ devices: Type.Array(MfaDevice) }, { additionalProperties: false });

export const OwnDeviceParams = Type.Object({ device_id: pathId('mfaDevice') }, { additionalProperties: false });
export const UserParams = Type.Object({ id: UserRef }, { additionalProperties: false });
export const RemovedDevices = Type.Object({ removed: Type.Integer({ minimum: 0 }) }, { additionalProperties: false });

/** The sign-in's second step: an assertion by a registered key, else (none yet) a registration. */
export const SecondStep = Type.Object(
  { mode: Type.Union([Type.Literal('assert'), Type.Literal('register')]), options: WebAuthnOptions },
  { additionalProperties: false },
);
export const SecondStepAnswer = Type.Object(
  { response: CredentialResponse, name: Type.Optional(DeviceName) },
  { additionalProperties: false },
);
export const PasskeyAnswer = Type.Object({ response: CredentialResponse }, { additionalProperties: false });
