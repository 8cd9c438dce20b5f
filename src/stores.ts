// Opens the two stores config names — the state backend and the audit store — the one way both
// `gatehouse start` and the offline commands (`gatehouse admin reset`) do.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { openAuditStore } from './audit/open.js';
import { createRemoteAuditStore } from './audit/remote.js';
import type { AuditStore } from './audit/types.js';
import { isEmbeddedBackend, openBackend, sqliteBackendPath } from './backend/open.js';
import { createRemoteBackend } from './backend/remote.js';
import type { Backend } from './backend/types.js';
import { ConfigError } from './config/load.js';
import type { Config } from './config/schema.js';
import { parseDuration } from './lib/duration.js';
import { StartupError } from './lib/errors.js';
import type { AuthPool } from './net/auth-client.js';

export { StartupError } from './lib/errors.js';

/**
 * Opens the state backend, then the audit store (closing the backend if that fails). With
 * mustExist, a state store that is not there yet is an error instead of being created empty.
 */
export async function openStores(
  config: Config,
  dataDir: string,
  opts: { mustExist?: boolean } = {},
): Promise<{ backend: Backend; auditStore: AuditStore }> {
  const statePath = isEmbeddedBackend(config.backend_url) ? sqliteBackendPath(config.backend_url, dataDir) : '';
  if (opts.mustExist && statePath && !existsSync(statePath)) {
    throw new StartupError(
      `no state store at ${statePath}; check --config, GATEHOUSE_DATA_DIR or GATEHOUSE_BACKEND_URL (gatehouse start creates it)`,
    );
  }
  const backend = openBackend(config.backend_url, { dataDir, synchronous: config.sqlite.synchronous });
  try {
    // A networked store that is down or refusing is a start-up error, not a failure at first use.
    await backend.ping();
  } catch (e) {
    await backend.close().catch(() => {});
    throw new StartupError(`cannot reach the state store (backend_url): ${(e as Error).message}`, { cause: e });
  }
  try {
    const auditStore = await openAuditStore(config.audit_url, {
      sqlitePath: resolve(dataDir, 'audit.db'),
      synchronous: config.sqlite.synchronous,
      ...(config.audit_read_url ? { readUrl: config.audit_read_url } : {}),
      writeTimeoutMs: parseDuration(config.audit.write_timeout) as number,
    });
    return { backend, auditStore };
  } catch (e) {
    await backend.close();
    if (e instanceof ConfigError) throw e;
    // Unreachable or refusing: say which store, and why, without a stack trace (or the URL's password).
    throw new StartupError(`cannot open the audit store (audit_url): ${(e as Error).message}`, { cause: e });
  }
}

/**
 * A proxy-only instance's stores: the state backend and the audit store, both through the auth tier
 * (auth_servers). An auth tier that does not answer, or refuses our cluster token, stops the start.
 */
export async function openRemoteStores(pool: AuthPool): Promise<{ backend: Backend; auditStore: AuditStore }> {
  const backend = createRemoteBackend(pool);
  const auditStore = createRemoteAuditStore(pool);
  try {
    await backend.ping();
    await auditStore.ping();
  } catch (e) {
    pool.close();
    throw new StartupError(`cannot reach the auth tier (auth_servers): ${(e as Error).message}`, { cause: e });
  }
  return { backend, auditStore };
}
