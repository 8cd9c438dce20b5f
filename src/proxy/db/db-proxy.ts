// The PostgreSQL proxy (port 3036): stock psql and drivers connect as `<db_user>@<database>` to a
// database name, with an access token or a one-time ticket as the password, and reach the registered
// database under RBAC (access-checker.ts). Each connection is a Gatehouse session; every statement is
// audited as a db.query event and recorded in the session's transcript (query text goes to the audit
// store and the recording only, never to the process log).
import { randomInt } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import type { AccessChecker } from '../../access/access-checker.js';
import { newId } from '../../lib/ids.js';
import { errorResponse } from '../../lib/pg-wire.js';
import type { DoorOptions } from '../../net/listener-limits.js';
import type { SessionOptions } from '../../rbac/policy.js';
import type { RecordingService } from '../../recordings/recording-service.js';
import type { UpstreamCredentials } from '../../sessions/upstream-credentials.js';
import { doorListener } from '../common/door-listener.js';
import { type DoorKitDeps, kitDepsOf } from '../common/door-session.js';
import { type CancelKeys, createCancelKeys } from './cancel-keys.js';
import { type AuthDeps, authenticateClient, type ClientStartup, readClientStartup } from './client-startup.js';
import { type DatabaseRef, runDbSession } from './db-session.js';
import {
  type Asking,
  type DbCredential,
  issueDbCredential,
  loginUpstream,
  refuseConnection,
  splitAddress,
} from './db-upstream-login.js';
import { createQueryLog, type QueryLog } from './query-log.js';
import { cancelUpstream, type UpstreamSession } from './upstream.js';

export interface DbProxyDeps extends AuthDeps, DoorKitDeps {
  access: AccessChecker;
  /** Where each session's transcript is recorded (transcript.ts). */
  recordings: Pick<RecordingService, 'begin'>;
  /**
   * How Gatehouse logs in to a database (opened from the sealed form): as the user asked for, or for a
   * read-only session as the database's read-only login (undefined: none registered).
   */
  upstreamCredential: UpstreamCredentials['db'];
  /** Certificate and key offered through SSLRequest; without them the proxy answers `N`. */
  tls?: { cert: Buffer; key: Buffer };
  /** Refuse clients that did not switch to TLS (any listener off loopback). */
  requireTls?: boolean;
  /** Longest query text kept in a db.query event (bytes, roughly). */
  queryMaxLength?: number;
  upstreamTimeoutMs?: number;
  /** Cancel keys shared with the other proxies (Redis); default: this proxy's own only. */
  cancelKeys?: CancelKeys;
  /** Caps and the handshake deadline of the listener (startup and authentication must be done in time). */
  door: DoorOptions;
}

export type DbProxy = ReturnType<typeof createDbProxy>;

/** Who, authenticated and allowed, asks for which PostgreSQL database, with what options. */
interface Admitted {
  startup: ClientStartup;
  asking: Required<Asking>;
  db: DatabaseRef;
  options: SessionOptions;
}

/**
 * A connection's startup up to the access decision: TLS if asked (and required off loopback), the
 * target named, the password checked as a token or ticket, the database and its user and name
 * allowed. Undefined: the connection is done (refused, told why, recorded where it was authenticated).
 */
async function admitClient(
  deps: DbProxyDeps,
  socket: Socket,
  door: { passed(socket: Socket): void },
  cancelKeys: CancelKeys,
): Promise<Admitted | undefined> {
  const remoteAddr = socket.remoteAddress ?? '';
  const startup: ClientStartup | undefined = await readClientStartup(socket, {
    ...(deps.tls ? { tls: deps.tls } : {}),
    onCancel: (pid, secret) => {
      // Unknown keys get no answer at all, as PostgreSQL does (nothing to learn from guessing).
      void cancelKeys.find(`${pid}:${secret}`).then((target) => (target ? cancelUpstream(target) : undefined));
    },
  });
  if (!startup) return undefined;
  const client = startup.socket;
  if (deps.requireTls && !startup.tls) {
    client.end(errorResponse({ code: '28000', message: 'gatehouse: TLS is required (sslmode=require)' }));
    return undefined;
  }
  const target = startup.target;
  if ('error' in target) {
    client.end(errorResponse({ code: '28000', message: `gatehouse: ${target.error}` }));
    return undefined;
  }
  const auth = await authenticateClient(startup, deps, remoteAddr);
  const asking: Asking = {
    remoteAddr,
    target,
    ...(auth.principal ? { principal: auth.principal, proof: auth.proof } : {}),
  };
  if (!auth.principal) {
    await refuseConnection(deps, client, asking, 'authentication', auth.reason, {
      code: '28P01',
      message: auth.reason,
    });
    return undefined;
  }
  door.passed(socket); // authenticated: the handshake deadline no longer applies
  const decision = deps.access.authorize<DatabaseRef>(auth.principal, { kind: 'database', name: target.database }, [
    { field: 'db_users', value: target.dbUser },
    { field: 'db_names', value: target.dbName },
  ]);
  if (!decision.allowed) {
    const message = `access denied: ${decision.reason}`;
    await refuseConnection(
      deps,
      client,
      asking,
      'access',
      decision.reason,
      { code: '28000', message },
      decision.resource,
    );
    return undefined;
  }
  const db = decision.resource;
  if (db.protocol !== 'postgres') {
    const why = `${db.name} is not a PostgreSQL database`;
    await refuseConnection(deps, client, asking, 'access', why, { code: '28000', message: why }, db);
    return undefined;
  }
  return { startup, asking: asking as Required<Asking>, db, options: decision.options };
}

/** The session itself, with our own cancel key standing for the upstream backend while it runs. */
async function runSession(
  deps: DbProxyDeps,
  shared: { cancelKeys: CancelKeys; queryLog: QueryLog },
  admitted: Admitted,
  session: { id: string; credential: DbCredential; upstream: UpstreamSession },
): Promise<void> {
  const { startup, asking, db, options } = admitted;
  const { host, port } = splitAddress(db.address);
  const { upstream } = session;
  // Our own key for the client; a cancel request with it reaches this upstream backend.
  const key = { pid: randomInt(1, 2 ** 31 - 1), secret: randomInt(-(2 ** 31), 2 ** 31 - 1) };
  const cancelKey = `${key.pid}:${key.secret}`;
  const backend = { host, port, pid: upstream.pid, secret: upstream.secret };
  shared.cancelKeys.add(cancelKey, backend);
  try {
    await runDbSession({
      ...kitDepsOf(deps),
      sessionId: session.id,
      principal: asking.principal,
      database: db,
      dbUser: asking.target.dbUser,
      upstreamUser: session.credential.user,
      dbName: asking.target.dbName,
      tls: startup.tls,
      remoteAddr: asking.remoteAddr,
      client: startup.socket,
      clientRest: startup.rest,
      upstream,
      key,
      cancelUpstream: () => void cancelUpstream(backend),
      queryLog: shared.queryLog,
      options,
      queryMaxLength: deps.queryMaxLength ?? 4096,
    });
  } finally {
    shared.cancelKeys.remove(cancelKey);
  }
}

export function createDbProxy(deps: DbProxyDeps) {
  const { logger } = deps;
  const shared = {
    queryLog: createQueryLog(deps.audit),
    /** Our BackendKeyData (pid:secret) → the upstream backend it stands for (this proxy's, or the cluster's). */
    cancelKeys: deps.cancelKeys ?? createCancelKeys(),
  };
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    // Small request/answer messages: Nagle's algorithm with delayed ACKs would add 40 ms to each.
    socket.setNoDelay(true);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', (err) => logger.debug({ err }, 'db: client connection error'));
    void handle(socket).catch((err) => {
      logger.debug({ err }, 'db: connection ended during startup');
      socket.destroy();
    });
  });
  const door = doorListener(server, { name: 'db', logger, door: deps.door, metrics: deps.metrics });

  /** One connection: admitted, Gatehouse's credential, the login upstream, then the session. */
  async function handle(socket: Socket): Promise<void> {
    const admitted = await admitClient(deps, socket, door, shared.cancelKeys);
    if (!admitted) return;
    const client = admitted.startup.socket;
    const readOnly = admitted.options.dbReadOnly;
    const id = newId('session', deps.clock());
    const credential = await issueDbCredential(deps, client, admitted.asking, admitted.db, { id, readOnly });
    if (!credential) return;
    const upstream = await loginUpstream(deps, client, admitted.asking, admitted.db, credential, {
      passOn: admitted.startup.passOn,
      readOnly,
    });
    if (!upstream) return;
    await runSession(deps, shared, admitted, { id, credential, upstream });
  }

  return {
    server,
    listen: door.listen,
    get connectionCount(): number {
      return sockets.size;
    },
    /**
     * Stops accepting; live sessions are told (FATAL 57P01) and ended. Bounded: a connection still
     * open 2 s later (in its startup, or a peer that never closes its side) is cut.
     */
    async close(): Promise<void> {
      const closing = door.close(2000);
      await new Promise((r) => setTimeout(r, 0));
      for (const s of sockets) s.end();
      await closing;
    },
  };
}
