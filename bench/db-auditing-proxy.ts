// The least a PostgreSQL proxy that audits every statement must do, as the honest reference for
// npm run bench:db (issue 36: "a minimal Node reference doing the unavoidable work"). Beside the
// byte copy of db-minimal-proxy.ts it:
//  - answers SSLRequest/GSSENCRequest with `N` and forwards the startup message (a proxy must read it
//    to know who connects; the credential check once per connection is left out: pgbench connects
//    CLIENTS times a run, not once a statement);
//  - finds message boundaries in what the client sends, without copying the stream, and keeps the
//    text of each Parse (by statement name) and the statement of each Bind;
//  - writes one db.query event per Query or Execute (who, which database, the statement text, the
//    session) into the audit store, gathered every 5 ms into one append, as Gatehouse's door does;
//  - forwards each chunk as it came.
// What it does not do, and Gatehouse does (its own work, counted against it): authenticating the
// token, the access checker, the statement tracker's rows/tags/duration/error per statement from the
// server's answers, transcripts into the session recording, the session registry, metrics.
// The store is Gatehouse's SQLite audit store (writer thread, synchronous=FULL): storing an event
// durably is the unavoidable part, and the store's cost against a bare insert is bench/audit-ingest's
// concern, so this ratio speaks of the door alone. argv: <upstream port> <audit.db path>; prints
// `BENCH_READY {"port": n}`; ends with its parent (child-protocol.ts).
import { randomBytes } from 'node:crypto';
import { connect, createServer, type Socket } from 'node:net';
import { openSqliteAuditStore } from '../src/audit/sqlite.js';
import type { AuditEvent } from '../src/audit/types.js';
import { exitOnParentGone, READY_PREFIX } from './child-protocol.js';

const upstreamPort = Number(process.argv[2] ?? 5432);
const store = openSqliteAuditStore({ path: process.argv[3] as string });
const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const Q = 0x51; // Query
const P = 0x50; // Parse
const B = 0x42; // Bind
const E = 0x45; // Execute

let pending: AuditEvent[] = [];
let timer: NodeJS.Timeout | undefined;
let seq = 0;
const run = randomBytes(4).toString('hex');
function flush(): void {
  timer = undefined;
  const events = pending;
  pending = [];
  store.append(events).catch(() => undefined);
}
function audit(session: string, user: string, db: string, text: string): void {
  pending.push({
    id: `evt_${run}${(seq++).toString(36)}`,
    type: 'db.query',
    code: 'GH5000I',
    time: new Date().toISOString(),
    actor: { kind: 'user', name: user },
    target: { kind: 'database', id: db },
    session_id: session,
    success: true,
    data: { db_user: user, db_name: db, text },
  });
  timer ??= setTimeout(flush, 5);
}

/** Splits the client's typed messages across chunks; looks inside Query, Parse and Bind only. */
function scanner(session: string, user: string, db: string) {
  const statements = new Map<string, string>();
  let bound = '';
  let header = Buffer.alloc(0);
  let remaining = 0; // bytes of the current message's body still to pass
  let type = 0;
  let body: Buffer[] | undefined; // collected for the types looked into
  const done = (b: Buffer) => {
    if (type === Q) audit(session, user, db, b.toString('utf8', 0, b.length - 1));
    else if (type === P) {
      const nameEnd = b.indexOf(0);
      const textEnd = b.indexOf(0, nameEnd + 1);
      statements.set(b.toString('latin1', 0, nameEnd), b.toString('utf8', nameEnd + 1, textEnd));
    } else if (type === B) {
      const portalEnd = b.indexOf(0);
      bound = b.toString('latin1', portalEnd + 1, b.indexOf(0, portalEnd + 1));
    }
  };
  return (chunk: Buffer) => {
    let at = 0;
    while (at < chunk.length) {
      if (remaining === 0) {
        if (header.length === 0 && chunk.length - at >= 5) {
          // The usual case: the whole header in this chunk, read in place.
          type = chunk[at] as number;
          remaining = chunk.readInt32BE(at + 1) - 4;
          at += 5;
        } else {
          const need = 5 - header.length;
          header = Buffer.concat([header, chunk.subarray(at, at + need)]);
          at += Math.min(need, chunk.length - at);
          if (header.length < 5) return;
          type = header[0] as number;
          remaining = header.readInt32BE(1) - 4;
          header = Buffer.alloc(0);
        }
        body = type === Q || type === P || type === B ? [] : undefined;
        if (type === E) audit(session, user, db, statements.get(bound) ?? '');
        if (remaining === 0 && body) done(Buffer.alloc(0));
        continue;
      }
      const n = Math.min(remaining, chunk.length - at);
      body?.push(chunk.subarray(at, at + n));
      remaining -= n;
      at += n;
      if (remaining === 0 && body) done(body.length === 1 ? (body[0] as Buffer) : Buffer.concat(body));
    }
  };
}

/** Reads the untyped startup packets; answers `N` to encryption requests; resolves with the startup message. */
function startup(client: Socket): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    let got = Buffer.alloc(0);
    const onData = (d: Buffer) => {
      got = Buffer.concat([got, d]);
      while (got.length >= 8) {
        const len = got.readInt32BE(0);
        if (got.length < len) return;
        const code = got.readInt32BE(4);
        const packet = got.subarray(0, len);
        got = got.subarray(len);
        if (code === SSL_REQUEST || code === GSSENC_REQUEST) client.write('N');
        else {
          client.off('data', onData);
          client.pause();
          if (got.length > 0) client.unshift(got);
          resolve(packet);
          return;
        }
      }
    };
    client.on('data', onData);
    client.once('error', reject);
  });
}

const server = createServer({ noDelay: true }, async (client) => {
  client.on('error', () => client.destroy());
  const hello = await startup(client).catch(() => undefined);
  if (!hello) return;
  const fields = hello.toString('utf8', 8).split('\0');
  const param = (k: string) => fields[fields.indexOf(k) + 1] ?? '';
  const user = param('user');
  const db = param('database') || user;
  const session = `sess_${randomBytes(8).toString('hex')}`;
  const upstream = connect({ host: '127.0.0.1', port: upstreamPort, noDelay: true });
  upstream.write(hello);
  const scan = scanner(session, user, db);
  client.on('data', (chunk: Buffer) => {
    scan(chunk);
    if (!upstream.write(chunk)) client.pause();
  });
  upstream.on('drain', () => client.resume());
  upstream.pipe(client).on('error', () => upstream.destroy());
  upstream.on('error', () => client.destroy());
  client.on('close', () => upstream.destroy());
  client.resume();
});
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as { port: number };
  process.stdout.write(`${READY_PREFIX}${JSON.stringify({ port })}\n`);
});
exitOnParentGone(async () => {
  server.close();
  if (timer) flush();
  await store.close();
});
