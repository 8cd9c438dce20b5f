// A software WebAuthn authenticator for API tests (the browser tests use Chromium's virtual one):
// an ES256 key pair per credential, "none" attestation, a signature counter, and the JSON shapes
// @simplewebauthn/browser sends. It signs what it is told to, so tests can replay, lower the
// counter or change the origin on purpose.
import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest();
const b64url = (data: Buffer | Uint8Array) => Buffer.from(data).toString('base64url');

interface Credential {
  id: Buffer;
  privateKey: KeyObject;
  cose: Uint8Array;
  userHandle: string;
  counter: number;
}

// biome-ignore lint/suspicious/noExplicitAny: the options are the server's JSON, read field by field
type Options = any;

export function softAuthenticator(origin: string) {
  const rpId = new URL(origin).hostname;
  const credentials: Credential[] = [];

  const authData = (c: Credential, flags: number, attested: boolean, rp = rpId) => {
    const counter = Buffer.alloc(4);
    counter.writeUInt32BE(c.counter);
    const parts: Buffer[] = [sha256(rp), Buffer.from([flags]), counter];
    if (attested) {
      const len = Buffer.alloc(2);
      len.writeUInt16BE(c.id.length);
      parts.push(Buffer.alloc(16), len, c.id, Buffer.from(c.cose));
    }
    return Buffer.concat(parts);
  };
  const clientData = (type: string, challenge: string, o = origin) =>
    Buffer.from(JSON.stringify({ type, challenge, origin: o, crossOrigin: false }));

  return {
    credentials,
    /** navigator.credentials.create(): a new discoverable credential (user verified). */
    create(options: Options, opts: { origin?: string } = {}) {
      const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      const jwk = publicKey.export({ format: 'jwk' });
      const cose = isoCBOR.encode(
        new Map<number, number | Uint8Array>([
          [1, 2],
          [3, -7],
          [-1, 1],
          [-2, Buffer.from(jwk.x as string, 'base64url')],
          [-3, Buffer.from(jwk.y as string, 'base64url')],
        ]),
      );
      const c: Credential = { id: randomBytes(16), privateKey, cose, userHandle: options.user.id, counter: 1 };
      credentials.push(c);
      const attestationObject = isoCBOR.encode(
        new Map<string, unknown>([
          ['fmt', 'none'],
          ['attStmt', new Map()],
          ['authData', authData(c, 0x01 | 0x04 | 0x40, true)],
        ]) as never,
      );
      return {
        id: b64url(c.id),
        rawId: b64url(c.id),
        type: 'public-key',
        response: {
          clientDataJSON: b64url(clientData('webauthn.create', options.challenge, opts.origin)),
          attestationObject: b64url(attestationObject),
          transports: ['internal'],
        },
        clientExtensionResults: { credProps: { rk: true } },
      };
    },
    /**
     * navigator.credentials.get() with a credential of this authenticator (the first one by default).
     * `origin` is what the browser writes into clientDataJSON (a phishing page's own), `rpId` the
     * relying party whose hash the authenticator signs: both default to the ones it was made for.
     */
    get(
      options: Options,
      opts: { credential?: number; counter?: number; userVerified?: boolean; origin?: string; rpId?: string } = {},
    ) {
      const c = credentials[opts.credential ?? 0] as Credential;
      c.counter = opts.counter ?? c.counter + 1;
      const data = authData(c, 0x01 | (opts.userVerified === false ? 0 : 0x04), false, opts.rpId);
      const cdj = clientData('webauthn.get', options.challenge, opts.origin);
      const signature = sign('sha256', Buffer.concat([data, sha256(cdj)]), c.privateKey);
      return {
        id: b64url(c.id),
        rawId: b64url(c.id),
        type: 'public-key',
        response: {
          clientDataJSON: b64url(cdj),
          authenticatorData: b64url(data),
          signature: b64url(signature),
          userHandle: c.userHandle,
        },
        clientExtensionResults: {},
      };
    },
  };
}
