// First start: the built-in roles, an `admin` user and its API key. The key is printed once and
// written to <data dir>/admin-api-key (0600); GATEHOUSE_BOOTSTRAP_API_KEY supplies it instead.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RequestContext } from './auth/principal.js';
import { keys, prefixes } from './auth/records.js';
import { hashSecret } from './lib/secrets.js';
import type { Services } from './services.js';

const SYSTEM: RequestContext = { remoteAddr: 'local', requestId: 'bootstrap', system: 'bootstrap' };

export interface BootstrapResult {
  /** Set only when a key was generated now (first start without a bootstrap key). */
  generatedKey?: string;
  keyFile?: string;
}

export async function bootstrapAdmin(
  services: Services,
  opts: { dataDir: string; bootstrapKey?: string },
): Promise<BootstrapResult> {
  const { users, state } = services;
  let admin = users.findByName('admin');
  const firstStart = state.list(prefixes.users).length === 0;
  if (firstStart) admin = await users.create(SYSTEM, { name: 'admin', roles: ['admin'] });

  if (opts.bootstrapKey !== undefined) {
    if (state.get(keys.apiKeyHash(hashSecret(opts.bootstrapKey)))) return {};
    if (!admin) throw new Error('GATEHOUSE_BOOTSTRAP_API_KEY is set but the admin user no longer exists');
    await users.createApiKey(SYSTEM, admin.id, { name: 'bootstrap', secret: opts.bootstrapKey });
    return {};
  }
  if (!firstStart || !admin) return {};
  const created = await users.createApiKey(SYSTEM, admin.id, { name: 'bootstrap' });
  const keyFile = join(opts.dataDir, 'admin-api-key');
  writeFileSync(keyFile, `${created.api_key}\n`, { mode: 0o600 });
  return { generatedKey: created.api_key, keyFile };
}
