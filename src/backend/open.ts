// Opens the state backend named by the backend_url config key (GATEHOUSE_BACKEND_URL), as
// audit/open.ts does for the audit store:
//   unset            the embedded SQLite file <data dir>/state.db
//   sqlite://<path>  a SQLite file (relative paths resolve against the working directory)
//   etcd://h1:2379,h2:2379,h3:2379[?prefix=/gatehouse]   etcd v3, for an auth tier of 3+ instances
//   postgres://… | postgresql://…[?schema=name]   PostgreSQL, shared by any number of instances
import { isAbsolute, resolve } from 'node:path';
import { ConfigError } from '../config/load.js';
import { openEtcdBackend, parseEtcdUrl } from './etcd.js';
import { openPostgresBackend, parsePostgresBackendUrl } from './postgres.js';
import { openSqliteBackend } from './sqlite.js';
import type { Backend } from './types.js';
import { guardBackend, pgUnavailable } from './unavailable.js';

const KEY = 'config key backend_url (or GATEHOUSE_BACKEND_URL)';

/** Where the embedded store lives. */
export function sqliteBackendPath(url: string | undefined, dataDir: string): string {
  if (url === undefined) return resolve(dataDir, 'state.db');
  if (url.startsWith('sqlite://')) {
    const path = url.slice('sqlite://'.length);
    if (!path) throw new ConfigError(`${KEY}: sqlite:// needs a file path, as in sqlite://./data/state.db`);
    return isAbsolute(path) ? path : resolve(path);
  }
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(url)?.[1];
  throw new ConfigError(
    `${KEY}: ${scheme ? `${scheme}:// stores are not available in this release` : 'must be a URL'}; use sqlite://<path> (the default), etcd://host:port,… or postgres://…`,
  );
}

/** Whether the URL names the embedded store (which lives in a file that must exist to be reused). */
export const isEmbeddedBackend = (url: string | undefined): boolean => url === undefined || url.startsWith('sqlite://');

export function openBackend(
  url: string | undefined,
  opts: { dataDir: string; synchronous: 'FULL' | 'NORMAL' },
): Backend {
  if (url?.startsWith('etcd://')) {
    try {
      return openEtcdBackend(parseEtcdUrl(url));
    } catch (error) {
      throw new ConfigError(`${KEY}: ${(error as Error).message}`);
    }
  }
  if (url !== undefined && /^postgres(ql)?:\/\//.test(url)) {
    try {
      parsePostgresBackendUrl(url);
    } catch (error) {
      // Never echo the URL: it may carry a password (the parser's messages do not).
      throw new ConfigError(`${KEY}: ${(error as Error).message}`);
    }
    // Connects and migrates in the background; every operation (and ping) waits for that.
    return guardBackend(openPostgresBackend({ url }), 'PostgreSQL', pgUnavailable);
  }
  return openSqliteBackend({ path: sqliteBackendPath(url, opts.dataDir), synchronous: opts.synchronous });
}
