// Opens the audit store named by the audit_url config key (GATEHOUSE_AUDIT_URL):
//   unset                         the embedded SQLite file at defaults.sqlitePath
//   sqlite://<path>               a SQLite file (relative paths resolve against the working directory)
//   postgres://… | postgresql://…  PostgreSQL; `?schema=name` selects a schema other than public;
//                                 several hosts (h1:5432,h2:5433) name a primary and its standbys
import { isAbsolute, resolve } from 'node:path';
import { ConfigError } from '../config/load.js';
import { PostgresAuditUrlError, parseAuditUrl } from '../lib/pg-url.js';
import { openPostgresAuditStore } from './postgres.js';
import { openSqliteAuditStore } from './sqlite.js';
import type { AuditStore } from './types.js';

const KEY = 'config key audit_url (or GATEHOUSE_AUDIT_URL)';

export async function openAuditStore(
  url: string | undefined,
  defaults: { sqlitePath: string; synchronous: 'FULL' | 'NORMAL'; readUrl?: string; writeTimeoutMs?: number },
): Promise<AuditStore> {
  if (defaults.readUrl !== undefined && !(url && /^postgres(ql)?:\/\//.test(url))) {
    throw new ConfigError(
      'config key audit_read_url (or GATEHOUSE_AUDIT_READ_URL): a read replica needs audit_url on PostgreSQL',
    );
  }
  if (url === undefined) return openSqliteAuditStore({ path: defaults.sqlitePath, synchronous: defaults.synchronous });
  if (url.startsWith('sqlite://')) {
    const path = url.slice('sqlite://'.length);
    if (!path) throw new ConfigError(`${KEY}: sqlite:// needs a file path, as in sqlite://./data/audit.db`);
    return openSqliteAuditStore({
      path: isAbsolute(path) ? path : resolve(path),
      synchronous: defaults.synchronous,
    });
  }
  if (/^postgres(ql)?:\/\//.test(url)) {
    for (const [key, value] of [
      [KEY, url],
      ['config key audit_read_url (or GATEHOUSE_AUDIT_READ_URL)', defaults.readUrl],
    ] as const) {
      if (value === undefined) continue;
      try {
        parseAuditUrl(value);
      } catch (error) {
        // Never echo the URL: it may carry a password.
        if (error instanceof PostgresAuditUrlError) throw new ConfigError(`${key}: ${error.message}`);
        throw error;
      }
    }
    return openPostgresAuditStore({
      url,
      ...(defaults.readUrl ? { readUrl: defaults.readUrl } : {}),
      ...(defaults.writeTimeoutMs ? { writeTimeoutMs: defaults.writeTimeoutMs } : {}),
    });
  }
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(url)?.[1];
  throw new ConfigError(
    `${KEY}: ${scheme ? `${scheme}:// is not an audit store` : 'must be a URL'}; use sqlite://<path> or postgres://…`,
  );
}
