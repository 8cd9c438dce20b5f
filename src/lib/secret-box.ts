// Secrets Gatehouse must read back (webhook signing secrets, upstream passwords and keys, CA and
// JWT signing keys) cannot be hashed like API keys: they are sealed with AES-256-GCM (node:crypto)
// under a 32-byte key kept in the data dir, 0600, each bound to the record it belongs to.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const VERSION = 'v1';

export const webhookSecretKeyPath = (dataDir: string): string => join(dataDir, 'webhook-secret.key');

export interface SecretBox {
  /** Encrypts plaintext, bound to context (the webhook id): a sealed value moved to another record fails to open. */
  seal(plaintext: string, context: string): string;
  open(sealed: string, context: string): string;
}

/** Reads the 32-byte key, or creates it (0600) if there is none yet; a racing creator's key wins. */
export function loadOrCreateKey(path: string): Buffer {
  try {
    return checkedKey(path, readFileSync(path));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  try {
    writeFileSync(path, randomBytes(KEY_BYTES), { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return checkedKey(path, readFileSync(path));
}

function checkedKey(path: string, key: Buffer): Buffer {
  if (key.length !== KEY_BYTES) throw new Error(`${path} must hold exactly ${KEY_BYTES} bytes (it has ${key.length})`);
  return key;
}

/** A box over the key at keyPath, loaded (or created) on first use, so building services touches no file. */
export function createSecretBox(keyPath: string): SecretBox {
  let key: Buffer | undefined;
  const theKey = (): Buffer => {
    key ??= loadOrCreateKey(keyPath);
    return key;
  };

  return {
    seal(plaintext, context) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', theKey(), iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(Buffer.from(context));
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return [VERSION, iv.toString('base64'), cipher.getAuthTag().toString('base64'), body.toString('base64')].join(
        '.',
      );
    },
    open(sealed, context) {
      const [version, iv, tag, body] = sealed.split('.');
      if (version !== VERSION || iv === undefined || tag === undefined || body === undefined) {
        throw new Error('not a sealed secret');
      }
      const decipher = createDecipheriv('aes-256-gcm', theKey(), Buffer.from(iv, 'base64'), {
        authTagLength: TAG_BYTES,
      });
      decipher.setAAD(Buffer.from(context));
      decipher.setAuthTag(Buffer.from(tag, 'base64'));
      // final() throws when the key or the context differs: the secret cannot be opened here.
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()]).toString('utf8');
    },
  };
}

/** What a proxy without the seal key answers when something would open or seal a secret there. */
export class NoSealKey extends Error {
  constructor(what: string) {
    super(`this proxy holds no seal key (${what} is the auth tier's)`);
    this.name = 'NoSealKey';
  }
}

/** The box of a proxy of a cluster (issue 29): it holds no key; secrets stay on the auth tier. */
export const NO_SEAL_KEY: SecretBox = {
  seal: () => {
    throw new NoSealKey('sealing');
  },
  open: () => {
    throw new NoSealKey('opening a secret');
  },
};
