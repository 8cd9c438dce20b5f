// The client's side of connecting: SSLRequest (TLS with the proxy's certificate, or `N`), GSSENC
// (always `N`), CancelRequest (handed to the proxy), the StartupMessage naming `<db_user>@<database>`
// and a database name, then the password — an access token or a one-time ticket — asked for in
// cleartext (AuthenticationCleartextPassword; over TLS off loopback). SCRAM is not offered: it needs
// a verifier derived from the password, and Gatehouse keeps only SHA-256 hashes of its tokens.

import type { Socket } from 'node:net';
import { TLSSocket } from 'node:tls';
import type { AccessChecker } from '../../access/access-checker.js';
import type { Principal } from '../../auth/principal.js';
import {
  authenticationCleartextPassword,
  CANCEL_REQUEST,
  cString,
  errorResponse,
  GSSENC_REQUEST,
  PROTOCOL_3,
  parseStartupParameters,
  SSL_REQUEST,
  StartupReader,
} from '../../lib/pg-wire.js';
import type { PrincipalProof } from '../../sessions/principal-proof.js';
import {
  authenticateDoorCredential,
  type CredentialFailure,
  type DoorCredentialDeps,
} from '../common/door-credential.js';

/** Startup parameters passed on to the database (the rest are the proxy's to decide). */
const PASSED_PARAMETERS = /^(application_name|client_encoding|DateStyle|TimeZone|extra_float_digits|options)$/;

export interface ClientStartup {
  socket: Socket;
  reader: StartupReader;
  tls: boolean;
  parameters: Record<string, string>;
  passOn: Record<string, string>;
  target: { dbUser: string; database: string; dbName: string } | { error: string };
  /** Bytes the client sent after its password (pipelined queries), for the upstream. */
  rest: Buffer;
}

/** `<db_user>@<database resource>`: the last `@` splits, so a database user may contain one. */
export function parseDbTarget(user: string | undefined, dbName: string | undefined): ClientStartup['target'] {
  const at = user?.lastIndexOf('@') ?? -1;
  if (!user || at <= 0 || at === user.length - 1 || user.length > 200) {
    return { error: 'connect as user=<db_user>@<database>, e.g. psql "user=app@orders dbname=orders"' };
  }
  const dbUser = user.slice(0, at);
  const database = user.slice(at + 1);
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(database)) return { error: `${database} is not a database name` };
  // libpq uses the user name as the database name when none is given: that is never meant here.
  if (!dbName || dbName === user) return { error: 'name the database to open: dbname=<name>' };
  if (dbName.length > 63 || dbUser.length > 63) return { error: 'database and user names are at most 63 bytes' };
  return { dbUser, database, dbName };
}

/** Reads the client's opening packets; undefined when the connection was a cancel request or ended. */
export async function readClientStartup(
  socket: Socket,
  opts: { tls?: { cert: Buffer; key: Buffer }; onCancel(pid: number, secret: number): void },
): Promise<ClientStartup | undefined> {
  let current = socket;
  let reader = new StartupReader(socket);
  let tls = false;
  for (let packets = 0; packets < 4; packets++) {
    const { code, body } = await reader.readUntyped();
    if (code === SSL_REQUEST && !tls && opts.tls) {
      if (reader.release().length) throw new Error('data after SSLRequest'); // a man-in-the-middle tell
      current.write('S');
      const secure = new TLSSocket(current, { isServer: true, cert: opts.tls.cert, key: opts.tls.key });
      secure.on('error', () => secure.destroy());
      current = secure;
      reader = new StartupReader(secure);
      tls = true;
      continue;
    }
    if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
      current.write('N');
      continue;
    }
    if (code === CANCEL_REQUEST && body.length >= 8) {
      reader.release();
      opts.onCancel(body.readInt32BE(0), body.readInt32BE(4));
      current.end();
      return undefined;
    }
    if (code !== PROTOCOL_3) {
      reader.release();
      current.end(errorResponse({ code: '0A000', message: 'gatehouse: only protocol 3.0 is supported' }));
      return undefined;
    }
    const parameters = parseStartupParameters(body);
    const passOn: Record<string, string> = {};
    for (const [k, v] of Object.entries(parameters)) if (PASSED_PARAMETERS.test(k)) passOn[k] = v;
    return {
      socket: current,
      reader,
      tls,
      parameters,
      passOn,
      target: parseDbTarget(parameters.user, parameters.database),
      rest: Buffer.alloc(0),
    };
  }
  current.end(errorResponse({ code: '08P01', message: 'gatehouse: too many startup packets' }));
  return undefined;
}

export type AuthDeps = DoorCredentialDeps & { access: Pick<AccessChecker, 'find'> };

const FAILURES: Record<CredentialFailure, string> = {
  throttled: 'too many failed attempts; try again later',
  ticket: 'the ticket is invalid, used or expired (tickets are for one database, user and name)',
  token: 'the password is not a valid Gatehouse access token or ticket',
};

/**
 * Asks for the password and resolves who it belongs to: a ticket (bound to this database, user and
 * name) or an access token, through the door kit (the same pipeline and throttle as every other door).
 */
export async function authenticateClient(
  startup: ClientStartup,
  deps: AuthDeps,
  remoteAddr: string,
): Promise<
  { principal: Principal; proof: PrincipalProof; reason?: undefined } | { principal?: undefined; reason: string }
> {
  const target = startup.target as { dbUser: string; database: string; dbName: string };
  startup.socket.write(authenticationCleartextPassword());
  const message = await startup.reader.readMessage();
  startup.rest = startup.reader.release();
  if (message.type !== 'p'.charCodeAt(0)) return { reason: 'expected a password' };
  const db = deps.access.find('database', target.database);
  const r = await authenticateDoorCredential(deps, {
    door: 'db',
    secret: cString(message.body, 0).value,
    remoteAddr,
    ticketFits: (grant) =>
      db !== undefined &&
      grant.database_id === db.id &&
      grant.login === target.dbUser &&
      grant.db_name === target.dbName,
  });
  return 'principal' in r ? { principal: r.principal, proof: r.proof } : { reason: FAILURES[r.failure] };
}
