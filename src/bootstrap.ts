// First start: the built-in roles, an `admin` user and its API key. The key is printed once and
// written to <data dir>/admin-api-key (0600); GATEHOUSE_BOOTSTRAP_API_KEY supplies it instead.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RequestContext } from './auth/principal.js';
import { keys, prefixes } from './auth/records.js';
import { GatehouseError } from './lib/errors.js';
import { hashSecret } from './lib/secrets.js';
import type { Services } from './services.js';

const SYSTEM: RequestContext = { remoteAddr: 'local', requestId: 'bootstrap', system: 'bootstrap' };

/**
 * A conflict where `winner()` soon finds what this instance meant to create is not an error: the
 * winner's write reaches this instance's cache through the watch, a moment later.
 */
const lostRace =
  <T>(winner: () => T | undefined) =>
  async (error: unknown): Promise<T> => {
    if (!(error instanceof GatehouseError) || error.code !== 'conflict') throw error;
    for (let i = 0; i < 100; i++) {
      const found = winner();
      if (found !== undefined) return found;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw error;
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
      .catch(lostRace(() => users.findByName('admin')));
  }

  if (opts.bootstrapKey !== undefined) {
    const hash = keys.apiKeyHash(hashSecret(opts.bootstrapKey));
    if (state.get(hash)) return {};
    if (!admin) throw new Error('GATEHOUSE_BOOTSTRAP_API_KEY is set but the admin user no longer exists');
    await users
      .createApiKey(SYSTEM, admin.id, { name: 'bootstrap', secret: opts.bootstrapKey })
      .catch(lostRace(() => (state.get(hash) ? true : undefined)));
    return {};
  }
  if (!firstStart || !admin) return {};
  const created = await users.createApiKey(SYSTEM, admin.id, { name: 'bootstrap' });
  const keyFile = join(opts.dataDir, 'admin-api-key');
  writeFileSync(keyFile, `${created.api_key}\n`, { mode: 0o600 });
  return { generatedKey: created.api_key, keyFile };
}
