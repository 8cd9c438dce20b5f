// The proxy's own SSH host key: generated once into the data dir (0600) and kept, so users'
// known_hosts entries stay valid across restarts (and across instances that share the file).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ssh2 from 'ssh2';
import { generateEd25519 } from '../../lib/ssh-keygen.js';

const { utils } = ssh2; // CommonJS: no named exports under Node's ESM loader

export const hostKeyPath = (dataDir: string): string => join(dataDir, 'ssh_host_ed25519_key');

export function loadOrCreateHostKey(dataDir: string): { privateKey: string; publicKey: string } {
  const path = hostKeyPath(dataDir);
  if (!existsSync(path)) {
    const pair = generateEd25519('gatehouse-proxy');
    // 'wx': two processes racing on a shared data dir must not overwrite each other's key.
    try {
      writeFileSync(path, pair.private, { mode: 0o600, flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  const privateKey = readFileSync(path, 'utf8');
  const parsed = utils.parseKey(privateKey);
  if (parsed instanceof Error) throw new Error(`${path}: not an SSH private key (${parsed.message})`);
  const key = Array.isArray(parsed) ? parsed[0] : parsed;
  if (!key) throw new Error(`${path}: no key in the file`);
  const publicKey = `${key.type} ${key.getPublicSSH().toString('base64')}`;
  return { privateKey, publicKey };
}
