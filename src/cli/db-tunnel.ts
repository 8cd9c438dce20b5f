// The local end of a database session: a listener (a TCP port on 127.0.0.1, or a Unix socket in a
// folder only its owner may enter) that takes a PostgreSQL client's startup, asks Gatehouse for a
// fresh one-time ticket for that connection (POST /v1/sessions), opens the PostgreSQL proxy with it
// as the password, and then passes bytes both ways. The client sends no password and never sees the
// ticket; the proxy still decides every connection (a refusal comes back as psql's FATAL line).
import { createServer, isIP, type Server, type Socket, connect as tcpConnect } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { serialize } from 'pg-protocol';
// The wire helpers are pure protocol code (no server state): one reader of startup packets, not two.
import {
  CANCEL_REQUEST,
  errorResponse,
  GSSENC_REQUEST,
  PROTOCOL_3,
  parseErrorFields,
  parseStartupParameters,
  SSL_REQUEST,
  StartupReader,
} from '../lib/pg-wire.js';
import { failure } from './context.js';

export interface DbTarget {
  /** The database resource (name or id). */
  database: string;
  /** Fixed database user and name; when absent, each connection's own (its startup `user`, `database`). */
  dbUser?: string;
  dbName?: string;
}

export interface DbTicket {
  ticket: string;
  proxy: { host: string; port: number };
  database: { name: string };
}

export interface TunnelOptions {
  target: DbTarget;
  /** Asks Gatehouse for a ticket (the SDK with the profile's login). */
  ticket: (dbUser: string, dbName: string) => Promise<DbTicket>;
  /** A line for the person running the tunnel (a refused connection), never a secret. */
  log?: (line: string) => void;
}

const AUTH_CLEARTEXT = 3;

/** Starts the tunnel on `listen` (a port on 127.0.0.1, or a Unix socket path). */
export async function startDbTunnel(
  opts: TunnelOptions,
  listen: { port: number; host?: string } | { path: string },
): Promise<Server> {
  // Where the proxy is, once a ticket said so: a CancelRequest (psql's Ctrl-C) goes there as it is.
  let lastProxy: DbTicket['proxy'] | undefined;
  const server = createServer((socket) => {
    socket.on('error', () => socket.destroy());
    handle(
      socket,
      opts,
      (p) => {
        lastProxy = p;
      },
      () => lastProxy,
    ).catch((error: unknown) => {
      const line = failure(error).line;
      opts.log?.(`connection refused: ${line}`);
      if (!socket.destroyed) socket.end(errorResponse({ code: '28000', message: `gatehouse: ${line}` }));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    if ('path' in listen) server.listen(listen.path, resolve);
    else server.listen(listen.port, listen.host ?? '127.0.0.1', resolve);
  });
  return server;
}

async function handle(
  client: Socket,
  opts: TunnelOptions,
  sawProxy: (p: DbTicket['proxy']) => void,
  knownProxy: () => DbTicket['proxy'] | undefined,
): Promise<void> {
  const reader = new StartupReader(client);
  let params: Record<string, string> | undefined;
  while (!params) {
    const { code, body } = await reader.readUntyped();
    if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
      // The leg to this listener stays on this machine; the leg to the proxy is encrypted when it offers TLS.
      client.write('N');
    } else if (code === CANCEL_REQUEST) {
      const proxy = knownProxy();
      const packet = Buffer.alloc(8 + body.length);
      packet.writeInt32BE(packet.length, 0);
      packet.writeInt32BE(code, 4);
      body.copy(packet, 8);
      if (proxy)
        tcpConnect(proxy.port, proxy.host, function (this: Socket) {
          this.end(packet);
        }).on('error', () => {});
      reader.release();
      client.end();
      return;
    } else if (code === PROTOCOL_3) {
      params = parseStartupParameters(body);
    } else {
      throw new Error(`unsupported startup packet (${code})`);
    }
  }
  const dbUser = opts.target.dbUser ?? params.user;
  const dbName = opts.target.dbName ?? params.database ?? dbUser;
  if (!dbUser || !dbName) throw new Error('name the database user (--db-user, or the client’s user)');
  const ticket = await opts.ticket(dbUser, dbName);
  sawProxy(ticket.proxy);
  const upstream = await openProxy(ticket.proxy);
  const { user: _u, database: _d, ...rest } = params;
  upstream.write(
    serialize.startup({ ...rest, user: `${dbUser}@${ticket.database.name}`, database: dbName } as Record<
      string,
      string
    >),
  );
  const upReader = new StartupReader(upstream);
  const first = await upReader.readMessage();
  if (first.type === 'R'.charCodeAt(0) && first.body.readInt32BE(0) === AUTH_CLEARTEXT) {
    upstream.write(serialize.password(ticket.ticket));
  } else {
    // Not asked for a password (a refusal, most likely): the client reads it as the proxy sent it.
    if (first.type === 'E'.charCodeAt(0)) opts.log?.(`connection refused: ${parseErrorFields(first.body).M ?? ''}`);
    const head = Buffer.alloc(5);
    head[0] = first.type;
    head.writeInt32BE(first.body.length + 4, 1);
    client.write(Buffer.concat([head, first.body]));
  }
  const fromClient = reader.release();
  const fromProxy = upReader.release();
  if (fromProxy.length) client.write(fromProxy);
  if (fromClient.length) upstream.write(fromClient);
  client.pipe(upstream);
  upstream.pipe(client);
  upstream.on('error', () => client.destroy());
  client.on('close', () => upstream.destroy());
  upstream.on('close', () => client.destroy());
}

/** A connection to the PostgreSQL proxy: TLS when it offers it (verified against the system's CAs). */
async function openProxy(proxy: DbTicket['proxy']): Promise<Socket> {
  const socket = await new Promise<Socket>((resolve, reject) => {
    const s = tcpConnect(proxy.port, proxy.host, () => resolve(s));
    s.once('error', reject);
  });
  const sslRequest = Buffer.alloc(8);
  sslRequest.writeInt32BE(8, 0);
  sslRequest.writeInt32BE(SSL_REQUEST, 4);
  socket.write(sslRequest);
  const reader = new StartupReader(socket);
  const answer = await reader.readByte();
  if (reader.release().length) throw new Error('the proxy sent data after its SSLRequest answer');
  if (answer !== 'S'.charCodeAt(0)) return socket;
  return new Promise<Socket>((resolve, reject) => {
    const tls = tlsConnect({ socket, ...(isIP(proxy.host) ? {} : { servername: proxy.host }) }, () => resolve(tls));
    tls.once('error', reject);
  });
}
