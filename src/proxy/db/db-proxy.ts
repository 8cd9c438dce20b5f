// The PostgreSQL proxy (port 3036): stock psql and drivers connect as `<db_user>@<database>` to a
// database name, with an access token or a one-time ticket as the password, and reach the registered
// database under RBAC (access-checker.ts). Each connection is a Gatehouse session; every statement is
// audited as a db.query event and recorded in the session's transcript (query text goes to the audit
// store and the recording only, never to the process log).
import { randomInt } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import type { AccessChecker } from '../../access/access-checker.js';
import { actorOfPrincipal, type Principal } from '../../auth/principal.js';
import type { DoorOptions } from '../../net/listener-limits.js';
import type { DenialClass } from '../../observability/metrics.js';
import type { SessionOptions } from '../../rbac/policy.js';
import type { RecordingService } from '../../recordings/recording-service.js';
import type { DbUpstream } from '../../resources/db-upstream.js';
import { doorListener } from '../common/door-listener.js';
import { type DoorKitDeps, recordDoorRejection } from '../common/door-session.js';
import { type CancelKeys, createCancelKeys } from './cancel-keys.js';
import { type AuthDeps, authenticateClient, type ClientStartup, readClientStartup } from './client-startup.js';
import { type DatabaseRef, runDbSession } from './db-session.js';
import { createQueryLog } from './query-log.js';
import { READ_ONLY_STARTUP } from './read-only.js';
import { cancelUpstream, connectUpstream, UpstreamError } from './upstream.js';
import { errorResponse } from './wire.js';

export interface DbProxyDeps extends AuthDeps, DoorKitDeps {
  access: AccessChecker;
  /** Where each session's transcript is recorded (transcript.ts). */
  recordings: Pick<RecordingService, 'begin'>;
  /**
   * How Gatehouse logs in to a database (opened from the sealed form): as the user asked for, or for a
   * read-only session as the database's read-only login (undefined: none registered).
   */
  upstreamCredential(databaseId: string, dbUser: string, access: 'read_write' | 'read_only'): DbUpstream | undefined;
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

const isLoopbackHost = (host: string) => host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);

export function splitAddress(address: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]+))(?::(\d+))?$/.exec(address);
  return { host: (m?.[1] ?? m?.[2] ?? address) as string, port: Number(m?.[3] ?? 5432) };
}

/** Who asks for which database as whom, once authenticated; what a refusal records. */
interface Asking {
  principal?: Principal;
  remoteAddr: string;
  target: { dbUser: string; database: string; dbName: string };
}

export function createDbProxy(deps: DbProxyDeps) {
  const { audit, logger } = deps;
  const queryLog = createQueryLog(audit);
  const sockets = new Set<Socket>();
  /** Our BackendKeyData (pid:secret) → the upstream backend it stands for (this proxy's, or the cluster's). */
  const cancelKeys = deps.cancelKeys ?? createCancelKeys();
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

  /** Records the refusal and tells the client why (FATAL with `code`). */
  async function refuse(
    client: Socket,
    a: Asking,
    denial: DenialClass,
    reason: string,
    answer: { code: string; message: string },
    db?: { id: string; name: string },
  ): Promise<void> {
    await recordDoorRejection(deps, {
      door: 'db',
      denial,
      principal: a.principal,
      ...(db ? { resource: { kind: 'database', id: db.id, name: db.name } } : {}),
      remoteAddr: a.remoteAddr,
      data: {
        protocol: 'postgres',
        db_user: a.target.dbUser,
        ...(a.principal ? { db_name: a.target.dbName } : {}),
        database: a.target.database,
      },
      reason,
    });
    client.end(errorResponse({ code: answer.code, message: `gatehouse: ${answer.message}` }));
  }

  async function handle(socket: Socket): Promise<void> {
    const remoteAddr = socket.remoteAddress ?? '';
    const startup: ClientStartup | undefined = await readClientStartup(socket, {
      ...(deps.tls ? { tls: deps.tls } : {}),
      onCancel: (pid, secret) => {
        // Unknown keys get no answer at all, as PostgreSQL does (nothing to learn from guessing).
        void cancelKeys.find(`${pid}:${secret}`).then((target) => (target ? cancelUpstream(target) : undefined));
      },
    });
    if (!startup) return;
    const client = startup.socket;
    if (deps.requireTls && !startup.tls) {
      client.end(errorResponse({ code: '28000', message: 'gatehouse: TLS is required (sslmode=require)' }));
      return;
    }
    const target = startup.target;
    if ('error' in target) {
      client.end(errorResponse({ code: '28000', message: `gatehouse: ${target.error}` }));
      return;
    }
    const auth = await authenticateClient(startup, deps, remoteAddr);
    const asking: Asking = { remoteAddr, target, ...(auth.principal ? { principal: auth.principal } : {}) };
    if (!auth.principal) {
      return refuse(client, asking, 'authentication', auth.reason, { code: '28P01', message: auth.reason });
    }
    door.passed(socket); // authenticated: the handshake deadline no longer applies
    const decision = deps.access.authorize<DatabaseRef>(auth.principal, { kind: 'database', name: target.database }, [
      { field: 'db_users', value: target.dbUser },
      { field: 'db_names', value: target.dbName },
    ]);
    if (!decision.allowed) {
      const message = `access denied: ${decision.reason}`;
      return refuse(client, asking, 'access', decision.reason, { code: '28000', message }, decision.resource);
    }
    const db = decision.resource;
    if (db.protocol !== 'postgres') {
      const why = `${db.name} is not a PostgreSQL database`;
      return refuse(client, asking, 'access', why, { code: '28000', message: why }, db);
    }
    await connectAndRun(startup, asking as Required<Asking>, db, decision.options);
  }

  /** Logs in to the database with Gatehouse's credential, then runs the session until either side closes. */
  async function connectAndRun(
    startup: ClientStartup,
    a: Required<Asking>,
    db: DatabaseRef,
    options: SessionOptions,
  ): Promise<void> {
    const { principal, target, remoteAddr } = a;
    const client = startup.socket;
    // A read-only session runs as a login without write privileges: only PostgreSQL can hold that
    // line (read-only.ts refuses what it recognises, which is never everything). No such login
    // registered: refused, never run as a user who may write.
    const readOnly = options.dbReadOnly;
    const credential = deps.upstreamCredential(db.id, target.dbUser, readOnly ? 'read_only' : 'read_write');
    if (!credential) {
      const why = `${db.name} has no read-only login registered (db.read_only_login), and this session is read-only (role option db_read_only): ask an administrator to register one`;
      return refuse(client, a, 'access', 'no_read_only_login', { code: '28000', message: why }, db);
    }
    const { host, port } = splitAddress(db.address);
    let upstream: Awaited<ReturnType<typeof connectUpstream>>;
    try {
      // The database password (or client key) must not cross a network in the clear either.
      if (!credential.tls && !isLoopbackHost(host)) {
        throw new UpstreamError(
          'the database is off loopback and no CA is registered for it (db.ca_pem): Gatehouse connects only with TLS there',
          'tls',
        );
      }
      const { password, tls } = credential;
      upstream = await connectUpstream({
        ...(tls ? { tls } : {}),
        host,
        port,
        user: credential.user,
        database: target.dbName,
        // Set at startup, it is also what RESET and DISCARD ALL return to (read-only.ts): a clear
        // early error for most writes, before the login's missing privileges are reached.
        parameters: { ...startup.passOn, ...(readOnly ? READ_ONLY_STARTUP : {}) },
        ...(password === undefined ? {} : { password }),
        ...(deps.upstreamTimeoutMs ? { timeoutMs: deps.upstreamTimeoutMs } : {}),
      });
    } catch (error) {
      const e = error instanceof UpstreamError ? error : new UpstreamError(String(error), 'protocol');
      deps.metrics?.accessDenials.inc({ door: 'db', reason: 'upstream' });
      await audit
        .record({
          type: 'session.upstream_failed',
          actor: actorOfPrincipal(principal),
          target: { kind: 'database', id: db.id, name: db.name },
          success: false,
          remote_addr: remoteAddr,
          data: {
            db_user: target.dbUser,
            db_name: target.dbName,
            database: target.database,
            ...(credential.user === target.dbUser ? {} : { upstream_user: credential.user }),
            reason: e.reason,
            detail: e.message,
            ...(e.code ? { code: e.code } : {}),
          },
        })
        .catch((err) => logger.warn({ err }, 'db: cannot record an upstream failure'));
      // The server's own refusal (no such database, role) is what the user needs to read.
      client.end(errorResponse({ code: e.code ?? '08006', message: `gatehouse: ${db.name}: ${e.message}` }));
      return;
    }

    // Our own key for the client; a cancel request with it reaches this upstream backend.
    const key = { pid: randomInt(1, 2 ** 31 - 1), secret: randomInt(-(2 ** 31), 2 ** 31 - 1) };
    const cancelKey = `${key.pid}:${key.secret}`;
    const backend = { host, port, pid: upstream.pid, secret: upstream.secret };
    cancelKeys.add(cancelKey, backend);
    try {
      await runDbSession({
        sessions: deps.sessions,
        recordings: deps.recordings,
        audit,
        clock: deps.clock,
        logger,
        ...(deps.metrics ? { metrics: deps.metrics } : {}),
        principal,
        database: db,
        dbUser: target.dbUser,
        upstreamUser: credential.user,
        dbName: target.dbName,
        tls: startup.tls,
        remoteAddr,
        client,
        clientRest: startup.rest,
        upstream,
        key,
        cancelUpstream: () => void cancelUpstream(backend),
        queryLog,
        options,
        queryMaxLength: deps.queryMaxLength ?? 4096,
      });
    } finally {
      cancelKeys.remove(cancelKey);
    }
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
