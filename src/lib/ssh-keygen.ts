// Ed25519 SSH key pairs from ssh2's generator, checked. ssh2 1.17's keygen.js strips every leading
// zero byte of the public key (meant for the BIT STRING's unused-bits byte), so about 1 key in 256
// has a 31-byte public key that its own parseKey rejects (mscdex/ssh2#1390): such a key is never
// usable, so it is discarded and another generated.
import ssh2, { type ParsedKey } from 'ssh2';

const { utils } = ssh2; // ssh2 is CommonJS: no named exports under Node's ESM loader
const BASE_TYPE = 'ssh-ed25519';

export interface Ed25519Pair {
  /** OpenSSH private key text. */
  private: string;
  /** OpenSSH public key line (`ssh-ed25519 AAAA… comment`). */
  public: string;
  key: ParsedKey;
}

export function generateEd25519(comment?: string): Ed25519Pair {
  for (let attempt = 0; attempt < 16; attempt++) {
    const pair = utils.generateKeyPairSync('ed25519', comment === undefined ? undefined : { comment });
    const parsed = utils.parseKey(pair.private);
    if (parsed instanceof Error) continue;
    const key = Array.isArray(parsed) ? parsed[0] : parsed;
    if (key && key.getPublicSSH().length === 4 + BASE_TYPE.length + 4 + 32) {
      return { private: pair.private, public: pair.public, key };
    }
  }
  throw new Error('could not generate a well-formed ed25519 key');
}
