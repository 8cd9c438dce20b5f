// Gatehouse's own connection to the database: TCP, TLS when a CA is registered (SSLRequest, then
// verify-full: the certificate must chain to that CA and name the host; a client certificate if one
// is set), the startup message as the chosen database user, and whatever authentication the server
// asks for — none (trust), cleartext, MD5 or SCRAM-SHA-256 (node-postgres's SASL code) — with the
// password Gatehouse holds for that user. The client never sees any of it. What
// the server sends up to ReadyForQuery (ParameterStatus, notices) is kept to replay to the client;
// its BackendKeyData is kept for cancel requests and replaced by the proxy's own.
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { connect, isIP, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { serialize } from 'pg-protocol';
import { parseErrorFields, StartupReader } from '../../lib/pg-wire.js';
import { ReusedReads } from './reused-reads.js';

interface SaslSession {
  response: string;
  mechanism: string;
}
// node-postgres's SCRAM client (no types are published for this module).
const sasl = createRequire(import.meta.url)('pg/lib/crypto/sasl.js') as {
  startSession(mechanisms: string[], stream?: unknown): SaslSession;
  continueSession(session: SaslSession, password: string, serverData: string, stream?: unknown): Promise<void>;
  finalizeSession(session: SaslSession, serverData: string): void;
};

export class UpstreamError extends Error {
  constructor(
    message: string,
    /** `unreachable`, `tls`, `auth_failed`, `no_credential`, `refused` (an ErrorResponse), `protocol`. */
    readonly reason: string,
    /** The server's own SQLSTATE, when it refused. */
    readonly code?: string,
  ) {
    super(message);
  }
}

export interface UpstreamSession {
  socket: Socket;
  /** The server's BackendKeyData, for cancel requests. */
  pid: number;
  secret: number;
  /** ParameterStatus and NoticeResponse messages, raw, then the ReadyForQuery: for the client. */
  greeting: Buffer[];
  /** Bytes the server sent after its ReadyForQuery (none, normally). */
  rest: Buffer;
  /**
   * On plain TCP, where the server's bytes arrive from now on (the socket emits no 'data'); absent
   * over TLS, whose socket is read as a stream.
   */
  reads?: ReusedReads;
}

export interface UpstreamOptions {
  host: string;
  port: number;
  user: string;
  database: string;
  /** More startup parameters (application_name, client_encoding, options…). */
  parameters: Record<string, string>;
  password?: string;
  /** TLS with verify-full against `ca` (PEM), presenting `cert`/`key` if given. */
  tls?: { ca: string; cert?: string; key?: string };
  timeoutMs?: number;
}

/** SSLRequest, then a TLS handshake verifying the server against the registered CA and the host name. */
async function startTls(socket: Socket, o: UpstreamOptions & { tls: NonNullable<UpstreamOptions['tls']> }) {
  const reader = new StartupReader(socket);
  socket.write(serialize.requestSsl());
  const answer = await reader.readByte();
  // Bytes after the answer and before the handshake would be injected by someone in between.
  if (reader.release().length) throw new UpstreamError('unexpected data after the TLS answer', 'protocol');
  if (answer !== 'S'.charCodeAt(0)) {
    throw new UpstreamError('the database does not offer TLS, and a CA is registered for it', 'tls');
  }
  const secure = tlsConnect({
    socket,
    host: o.host,
    ...(isIP(o.host) ? {} : { servername: o.host }),
    ca: o.tls.ca,
    ...(o.tls.cert ? { cert: o.tls.cert } : {}),
    ...(o.tls.key ? { key: o.tls.key } : {}),
  });
  await new Promise<void>((resolve, reject) => {
    secure.once('secureConnect', resolve);
    secure.once('error', (e) => reject(new UpstreamError(`TLS to the database failed: ${e.message}`, 'tls')));
    secure.once('close', () => reject(new UpstreamError('the database closed the connection during TLS', 'tls')));
  });
  return secure;
}

const R = 'R'.charCodeAt(0);

export async function connectUpstream(o: UpstreamOptions): Promise<UpstreamSession> {
  const reads = o.tls ? undefined : new ReusedReads();
  const raw = connect({ host: o.host, port: o.port, ...(reads ? { onread: reads.onread } : {}) });
  raw.setNoDelay(true);
  // Errors surface through the readers and the TLS socket; this keeps a late one from being unhandled.
  raw.on('error', () => {});
  let socket: Socket = raw;
  let reader: StartupReader | undefined;
  const timer = setTimeout(
    () => raw.destroy(new UpstreamError('the database did not answer in time', 'unreachable')),
    o.timeoutMs ?? 10_000,
  );
  try {
    await new Promise<void>((resolve, reject) => {
      raw.once('connect', resolve);
      raw.once('error', (e) =>
        reject(
          e instanceof UpstreamError ? e : new UpstreamError(`cannot reach the database: ${e.message}`, 'unreachable'),
        ),
      );
    });
    if (o.tls) socket = await startTls(raw, { ...o, tls: o.tls });
    const startupReader = new StartupReader(socket);
    reader = startupReader;
    // The startup reader keeps what it is given across reads: a copy, not a view of the reused buffer.
    reads?.sendTo((chunk) => startupReader.push(Buffer.from(chunk)));
    socket.write(serialize.startup({ ...o.parameters, user: o.user, database: o.database }));
    let sasl_: SaslSession | undefined;
    let pid = 0;
    let secret = 0;
    const greeting: Buffer[] = [];
    for (;;) {
      const m = await reader.readMessage();
      const type = String.fromCharCode(m.type);
      if (m.type === R) {
        const code = m.body.readInt32BE(0);
        const need = () => {
          if (o.password === undefined) {
            throw new UpstreamError('the database asks for a password and Gatehouse holds none', 'no_credential');
          }
          return o.password;
        };
        if (code === 0) continue; // AuthenticationOk
        if (code === 3) socket.write(serialize.password(need()));
        else if (code === 5) {
          const inner = createHash('md5').update(need()).update(o.user).digest('hex');
          const salted = createHash('md5').update(inner).update(m.body.subarray(4, 8)).digest('hex');
          socket.write(serialize.password(`md5${salted}`));
        } else if (code === 10) {
          const mechanisms = m.body.toString('utf8', 4).split('\0').filter(Boolean);
          need();
          sasl_ = sasl.startSession(mechanisms);
          socket.write(serialize.sendSASLInitialResponseMessage(sasl_.mechanism, sasl_.response));
        } else if (code === 11 && sasl_) {
          await sasl.continueSession(sasl_, need(), m.body.toString('utf8', 4));
          socket.write(serialize.sendSCRAMClientFinalMessage(sasl_.response));
        } else if (code === 12 && sasl_) {
          sasl.finalizeSession(sasl_, m.body.toString('utf8', 4));
        } else throw new UpstreamError(`the database asks for an unsupported authentication (${code})`, 'protocol');
        continue;
      }
      if (type === 'E') {
        const f = parseErrorFields(m.body);
        const auth = f.C === '28P01' || f.C === '28000';
        throw new UpstreamError(f.M ?? 'the database refused the connection', auth ? 'auth_failed' : 'refused', f.C);
      }
      if (type === 'K') {
        pid = m.body.readInt32BE(0);
        secret = m.body.readInt32BE(4);
        continue;
      }
      const raw = Buffer.allocUnsafe(5 + m.body.length);
      raw[0] = m.type;
      raw.writeInt32BE(m.body.length + 4, 1);
      m.body.copy(raw, 5);
      if (type === 'S' || type === 'N') greeting.push(raw);
      else if (type === 'Z') {
        greeting.push(raw);
        clearTimeout(timer);
        reads?.sendTo(undefined);
        return { socket, pid, secret, greeting, rest: reader.release(), ...(reads ? { reads } : {}) };
      } else throw new UpstreamError(`unexpected message ${type} during startup`, 'protocol');
    }
  } catch (error) {
    clearTimeout(timer);
    reader?.release();
    socket.destroy();
    raw.destroy();
    if (error instanceof UpstreamError) throw error;
    throw new UpstreamError(`the database connection failed: ${(error as Error).message}`, 'protocol');
  }
}

/** Sends a CancelRequest for the server's backend on a connection of its own, then closes it. */
export function cancelUpstream(target: { host: string; port: number; pid: number; secret: number }): Promise<void> {
  return new Promise((resolve) => {
    const socket = connect({ host: target.host, port: target.port }, () => {
      socket.end(serialize.cancel(target.pid, target.secret));
    });
    socket.setTimeout(5000, () => socket.destroy());
    socket.on('error', () => resolve());
    socket.on('close', () => resolve());
  });
}
