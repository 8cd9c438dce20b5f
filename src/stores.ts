// Opens the two stores config names — the state backend and the audit store — the one way both
// `gatehouse start` and the offline commands (`gatehouse admin reset`) do.
import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { openAuditStore } from './audit/open.js';
import type { AuditStore } from './audit/types.js';
import { openSqliteBackend } from './backend/sqlite.js';
import type { Backend } from './backend/types.js';
import { ConfigError } from './config/load.js';
import type { Config } from './config/schema.js';

/** Gatehouse could not start for a reason outside its config (a store down, a port taken). */
export class StartupError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StartupError';
  }
}

function storePath(key: string, url: string | undefined, fallback: string): string {
  if (url === undefined) return fallback;
  if (url.startsWith('sqlite://')) {
    const path = url.slice('sqlite://'.length);
    if (path) return isAbsolute(path) ? path : resolve(path);
  }
  const scheme = url.split(':')[0];
  throw new ConfigError(
    `config key ${key}: ${scheme}:// stores are not available in this release; use sqlite://<path> (the default)`,
  );
}

/**
 * Opens the state backend, then the audit store (closing the backend if that fails). With
 * mustExist, a state store that is not there yet is an error instead of being created empty.
 */
export async function openStores(
  config: Config,
  dataDir: string,
  opts: { mustExist?: boolean } = {},
): Promise<{ backend: Backend; auditStore: AuditStore }> {
  const statePath = storePath('backend_url', config.backend_url, resolve(dataDir, 'state.db'));
  if (opts.mustExist && !existsSync(statePath)) {
    throw new StartupError(
      `no state store at ${statePath}; check --config, GATEHOUSE_DATA_DIR or GATEHOUSE_BACKEND_URL (gatehouse start creates it)`,
    );
  }
  const backend = openSqliteBackend({ path: statePath, synchronous: config.sqlite.synchronous });
  try {
    const auditStore = await openAuditStore(config.audit_url, {
      sqlitePath: resolve(dataDir, 'audit.db'),
      synchronous: config.sqlite.synchronous,
    });
    return { backend, auditStore };
  } catch (e) {
    await backend.close();
    if (e instanceof ConfigError) throw e;
    // Unreachable or refusing: say which store, and why, without a stack trace (or the URL's password).
    throw new StartupError(`cannot open the audit store (audit_url): ${(e as Error).message}`, { cause: e });
  }
}
