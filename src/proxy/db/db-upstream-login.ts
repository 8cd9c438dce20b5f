// The PostgreSQL door's steps between "this principal may reach this database" and a running
// session: the refusal every step may end in (recorded, then FATAL to the client), Gatehouse's
// credential for the database (issued for this session after the auth tier's own check), and the
// login upstream with it (a failure recorded as session.upstream_failed, the server's own reason
// told to the client).

import type { Socket } from 'node:net';
import type { Principal } from '../../auth/principal.js';
import { errorResponse } from '../../lib/pg-wire.js';
import type { DenialClass } from '../../observability/metrics.js';
import type { PrincipalProof } from '../../sessions/principal-proof.js';
import { sessionPrincipal } from '../../sessions/session-registry.js';
import type { UpstreamCredentials } from '../../sessions/upstream-credentials.js';
import { recordUpstreamFailure } from '../common/door-refusals.js';
import { type DoorKitDeps, recordDoorRejection } from '../common/door-session.js';
import type { DatabaseRef } from './db-session.js';
import { READ_ONLY_STARTUP } from './read-only.js';
import { connectUpstream, UpstreamError, type UpstreamSession } from './upstream.js';

/** Who asks for which database as whom, once authenticated; what a refusal records. */
export interface Asking {
  principal?: Principal;
  /** What the principal presented: forwarded with the ask for the upstream credential. */
  proof?: PrincipalProof;
  remoteAddr: string;
  target: { dbUser: string; database: string; dbName: string };
}

type Deps = Pick<DoorKitDeps, 'audit' | 'logger' | 'metrics'>;

const isLoopbackHost = (host: string) => host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);

export function splitAddress(address: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]+))(?::(\d+))?$/.exec(address);
  return { host: (m?.[1] ?? m?.[2] ?? address) as string, port: Number(m?.[3] ?? 5432) };
}

/** Records the refusal and tells the client why (FATAL with `code`). */
export async function refuseConnection(
  deps: Deps,
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

export type DbCredential = NonNullable<Awaited<ReturnType<UpstreamCredentials['db']>>>;

/**
 * Gatehouse's credential for this session (issue 29: issued for this session only, once the auth
 * tier has checked the access again). A read-only session runs as a login without write privileges:
 * only PostgreSQL can hold that line (read-only.ts refuses what it recognises, which is never
 * everything), so with no such login registered it is refused, never run as a user who may write.
 * Undefined: refused (and told).
 */
export async function issueDbCredential(
  deps: Deps & { upstreamCredential: UpstreamCredentials['db'] },
  client: Socket,
  a: Required<Asking>,
  db: DatabaseRef,
  session: { id: string; readOnly: boolean },
): Promise<DbCredential | undefined> {
  let credential: Awaited<ReturnType<UpstreamCredentials['db']>>;
  try {
    credential = await deps.upstreamCredential(
      {
        session_id: session.id,
        kind: 'db',
        ...sessionPrincipal(a.principal),
        resource: { kind: 'database', id: db.id, name: db.name },
        login: a.target.dbUser,
        db_name: a.target.dbName,
      },
      { read_only: session.readOnly, proof: a.proof },
    );
  } catch (error) {
    const why = `no credential for ${db.name}: ${(error as Error).message}`;
    await refuseConnection(deps, client, a, 'access', why, { code: '28000', message: `gatehouse: ${why}` }, db);
    return undefined;
  }
  if (!credential) {
    const why = `${db.name} has no read-only login registered (db.read_only_login), and this session is read-only (role option db_read_only): ask an administrator to register one`;
    await refuseConnection(deps, client, a, 'access', 'no_read_only_login', { code: '28000', message: why }, db);
  }
  return credential;
}

/**
 * Logs in to the database with the credential. A failure is recorded (session.upstream_failed) and
 * the client told the server's own reason (no such database, role): undefined then.
 */
export async function loginUpstream(
  deps: Deps & { upstreamTimeoutMs?: number },
  client: Socket,
  a: Required<Asking>,
  db: DatabaseRef,
  credential: DbCredential,
  opts: { passOn: Record<string, string>; readOnly: boolean },
): Promise<UpstreamSession | undefined> {
  const { principal, target, remoteAddr } = a;
  const { host, port } = splitAddress(db.address);
  try {
    // The database password (or client key) must not cross a network in the clear either.
    if (!credential.tls && !isLoopbackHost(host)) {
      throw new UpstreamError(
        'the database is off loopback and no CA is registered for it (db.ca_pem): Gatehouse connects only with TLS there',
        'tls',
      );
    }
    const { password, tls } = credential;
    return await connectUpstream({
      ...(tls ? { tls } : {}),
      host,
      port,
      user: credential.user,
      database: target.dbName,
      // Set at startup, it is also what RESET and DISCARD ALL return to (read-only.ts): a clear
      // early error for most writes, before the login's missing privileges are reached.
      parameters: { ...opts.passOn, ...(opts.readOnly ? READ_ONLY_STARTUP : {}) },
      ...(password === undefined ? {} : { password }),
      ...(deps.upstreamTimeoutMs ? { timeoutMs: deps.upstreamTimeoutMs } : {}),
    });
  } catch (error) {
    const e = error instanceof UpstreamError ? error : new UpstreamError(String(error), 'protocol');
    await recordUpstreamFailure(deps, {
      door: 'db',
      principal,
      resource: { kind: 'database', id: db.id, name: db.name },
      remoteAddr,
      data: {
        db_user: target.dbUser,
        db_name: target.dbName,
        database: target.database,
        ...(credential.user === target.dbUser ? {} : { upstream_user: credential.user }),
        reason: e.reason,
        detail: e.message,
        ...(e.code ? { code: e.code } : {}),
      },
    });
    client.end(errorResponse({ code: e.code ?? '08006', message: `gatehouse: ${db.name}: ${e.message}` }));
    return undefined;
  }
}
