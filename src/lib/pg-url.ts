// Audit store URLs. node-postgres takes one host per connection string; libpq's multi-host form
// (postgres://user@h1:5432,h2:5433/db?target_session_attrs=read-write) is split here into one
// connection string per host, tried in order by pg-primary.ts. Messages never contain the URL: it
// may carry a password.

/** Thrown for a URL or schema name this store cannot use. */
export class PostgresAuditUrlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PostgresAuditUrlError';
  }
}

/** Which host a connection may settle on (libpq's target_session_attrs, the values that matter here). */
export type SessionAttrs = 'read-write' | 'any' | 'prefer-standby';

/** Commit levels that make an acknowledged event survive what docs/operations.md says it survives. */
export type SynchronousCommit = 'on' | 'remote_write' | 'remote_apply';

export interface AuditUrl {
  /** One node-postgres connection string per listed host, in the URL's order. */
  hosts: Array<{ hostPort: string; connectionString: string }>;
  schema: string;
  attrs: SessionAttrs;
  synchronousCommit: SynchronousCommit;
}

const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;
const URL_SHAPE = /^(postgres(?:ql)?):\/\/(?:([^@/?#]*)@)?([^/?#]*)(\/[^?#]*)?(?:\?([^#]*))?$/;
const ATTRS: Record<string, SessionAttrs> = {
  'read-write': 'read-write',
  primary: 'read-write',
  any: 'any',
  'prefer-standby': 'prefer-standby',
  standby: 'prefer-standby',
};
const SYNC: readonly string[] = ['on', 'remote_write', 'remote_apply'];

export function parseAuditUrl(url: string, opts: { schema?: string; defaultAttrs?: SessionAttrs } = {}): AuditUrl {
  const m = URL_SHAPE.exec(url);
  if (!m) {
    if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(url) && !/^postgres(ql)?:/.test(url)) {
      throw new PostgresAuditUrlError(
        `the scheme must be postgres:// or postgresql://, not ${url.slice(0, url.indexOf(':'))}://`,
      );
    }
    throw new PostgresAuditUrlError('not a valid URL');
  }
  const [, scheme, userinfo, hostList = '', path = '', query = ''] = m;
  const params = new URLSearchParams(query);
  const chosen = opts.schema ?? params.get('schema') ?? 'public';
  if (!SCHEMA_NAME.test(chosen)) {
    throw new PostgresAuditUrlError(
      `schema ${JSON.stringify(chosen)} must be a letter or _ followed by up to 62 letters, digits or _`,
    );
  }
  const attrsText = params.get('target_session_attrs') ?? opts.defaultAttrs ?? 'read-write';
  const attrs = ATTRS[attrsText];
  if (!attrs) {
    throw new PostgresAuditUrlError(
      `target_session_attrs ${JSON.stringify(attrsText)} is not supported; use read-write, any or prefer-standby`,
    );
  }
  const sync = params.get('synchronous_commit') ?? 'on';
  if (!SYNC.includes(sync)) {
    // off and local acknowledge events that a failover to the standby loses.
    throw new PostgresAuditUrlError(
      `synchronous_commit ${JSON.stringify(sync)} is not accepted; use on, remote_write or remote_apply`,
    );
  }
  for (const key of ['schema', 'target_session_attrs', 'synchronous_commit']) params.delete(key);
  const rest = params.toString();
  const hosts = (hostList === '' ? ['localhost'] : hostList.split(',')).map((entry) => {
    // [v6]:port, host:port or host (libpq's default port).
    const hp = /^(\[[^\]]+\]|[^:[\]]*)(?::(\d{1,5}))?$/.exec(entry);
    if (!hp || hp[1] === '') throw new PostgresAuditUrlError('every host in the URL must be host or host:port');
    const hostPort = `${hp[1]}:${hp[2] ?? '5432'}`;
    const connectionString = `${scheme}://${userinfo === undefined ? '' : `${userinfo}@`}${hostPort}${path}${rest ? `?${rest}` : ''}`;
    try {
      new URL(connectionString);
    } catch {
      throw new PostgresAuditUrlError('not a valid URL');
    }
    return { hostPort, connectionString };
  });
  return { hosts, schema: chosen, attrs, synchronousCommit: sync as SynchronousCommit };
}

/** The single-host form the state backend takes: schema split off, one connection string. */
export function parsePostgresAuditUrl(url: string, schema?: string): { connectionString: string; schema: string } {
  const parsed = parseAuditUrl(url, schema === undefined ? {} : { schema });
  if (parsed.hosts.length !== 1) throw new PostgresAuditUrlError('name exactly one host');
  return {
    connectionString: (parsed.hosts[0] as { connectionString: string }).connectionString,
    schema: parsed.schema,
  };
}
