// First start: the built-in roles, an `admin` user and its API key. The key is printed once and
// written to <data dir>/admin-api-key (0600); GATEHOUSE_BOOTSTRAP_API_KEY supplies it instead.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RequestContext } from './auth/principal.js';
import { keys, prefixes } from './auth/records.js';
import { awaitCached } from './backend/state.js';
import { GatehouseError } from './lib/errors.js';
import { hashSecret } from './lib/secrets.js';
import type { Services } from './services.js';

const SYSTEM: RequestContext = { remoteAddr: 'local', requestId: 'bootstrap', system: 'bootstrap' };

/**
 * A conflict is not an error once the winner's record (`key`) reaches this instance's cache through
 * the watch, a moment later; then `found()` reads it.
 */
const lostRace =
  <T>(state: Services['state'], key: string, found: () => T | undefined) =>
  async (error: unknown): Promise<T> => {
    if (!(error instanceof GatehouseError) || error.code !== 'conflict') throw error;
    const value = (await awaitCached(state, key)) ? found() : undefined;
    if (value === undefined) throw error;
    return value;
  };

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
  // Several auth instances may start at once on a new cluster: whoever loses the race to create the
  // admin (or its bootstrap key) finds the winner's instead of failing.
  if (firstStart) {
    admin = await users
      .create(SYSTEM, { name: 'admin', roles: ['admin'] })
      .catch(lostRace(state, keys.userName('admin'), () => users.findByName('admin')));
  }

  if (opts.bootstrapKey !== undefined) {
    const hash = keys.apiKeyHash(hashSecret(opts.bootstrapKey));
    if (state.get(hash)) return {};
    if (!admin) throw new Error('GATEHOUSE_BOOTSTRAP_API_KEY is set but the admin user no longer exists');
    await users
      .createApiKey(SYSTEM, admin.id, { name: 'bootstrap', secret: opts.bootstrapKey })
      .catch(lostRace(state, hash, () => true));
    return {};
  }
  if (!firstStart || !admin) return {};
  const created = await users.createApiKey(SYSTEM, admin.id, { name: 'bootstrap' });
  const keyFile = join(opts.dataDir, 'admin-api-key');
  writeFileSync(keyFile, `${created.api_key}\n`, { mode: 0o600 });
  return { generatedKey: created.api_key, keyFile };
}
