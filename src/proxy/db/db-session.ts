// One database session through the proxy: the client and Gatehouse's upstream connection joined,
// chunks forwarded as they come (backpressure both ways: a slow reader pauses the other side, so a
// large result is never buffered whole), message heads scanned to audit and record (transcript.ts)
// every statement, and the session's record, events, termination (DELETE /v1/sessions/{id}, kill
// switch, max_session_ttl, the recording limit under record_session: strict).
import type { Socket } from 'node:net';
import type { EventInput } from '../../audit/audit-log.js';
import { actorOfPrincipal, type Principal } from '../../auth/principal.js';
import { authenticationOk, backendKeyData, errorResponse } from '../../lib/pg-wire.js';
import type { SessionOptions } from '../../rbac/policy.js';
import type { SessionRecording } from '../../recordings/spool.js';
import { type DoorKitDeps, type DoorSessionSpec, openDoorSession } from '../common/door-session.js';
import { FrameScanner } from './frame-scanner.js';
import type { QueryLog } from './query-log.js';
import { ReadOnlyGuard } from './read-only.js';
import { type StatementOutcome, StatementTracker } from './statement-tracker.js';
import { createTranscript } from './transcript.js';
import type { UpstreamSession } from './upstream.js';

/** Audit writes in flight per session beyond which the client is paused until they are stored. */
const MAX_AUDIT_IN_FLIGHT = 256;

/** A registered PostgreSQL database, as the access checker answers it. */
export interface DatabaseRef {
  id: string;
  kind: 'database';
  name: string;
  address: string;
  protocol?: string;
  labels: Record<string, string>;
}

export interface DbSessionContext extends DoorKitDeps {
  /** The id its upstream credential was issued for. */
  sessionId: string;
  principal: Principal;
  database: DatabaseRef;
  dbUser: string;
  /** The database user Gatehouse logged in as: dbUser, or the read-only login (db_read_only). */
  upstreamUser: string;
  dbName: string;
  tls: boolean;
  remoteAddr: string;
  client: Socket;
  /** Bytes the client pipelined behind its password. */
  clientRest: Buffer;
  upstream: UpstreamSession;
  key: { pid: number; secret: number };
  /** Cancels whatever the upstream backend is running (its own CancelRequest). */
  cancelUpstream(): void;
  queryLog: QueryLog;
  options: SessionOptions;
  queryMaxLength: number;
}

/** SQLSTATEs of a session that did not start: no room to record it, access gone, not durable. */
const REFUSED_CODE = { recording: '08004', revoked: '28000', unavailable: '08006' } as const;

/** The door kit's view of a database session: the database user and name are "as whom". */
function dbSessionSpec(ctx: DbSessionContext, scanner: () => FrameScanner | undefined): DoorSessionSpec {
  const { client, database } = ctx;
  const up = ctx.upstream.socket;
  return {
    id: ctx.sessionId,
    kind: 'db',
    type: 'sql',
    principal: ctx.principal,
    resource: { kind: 'database', id: database.id, name: database.name },
    as: { login: ctx.dbUser, db_name: ctx.dbName },
    origin: { remoteAddr: ctx.remoteAddr },
    options: ctx.options,
    recording: { width: 120, height: 30, title: `${ctx.dbUser}@${database.name}: ${ctx.dbName}`.slice(0, 200) },
    rejection: { protocol: 'postgres', db_user: ctx.dbUser, db_name: ctx.dbName },
    startData: {
      tls: ctx.tls,
      protocol: 'postgres',
      ...(ctx.upstreamUser === ctx.dbUser ? {} : { upstream_user: ctx.upstreamUser }),
    },
    refuse(message, why) {
      up.destroy();
      client.end(errorResponse({ code: REFUSED_CODE[why], message: `gatehouse: ${message}` }));
    },
    close(message) {
      // PostgreSQL notices a closed client only when it next writes: a pg_sleep(3600) would run on.
      ctx.cancelUpstream();
      up.destroy();
      // An ErrorResponse may only go between two messages, or the client would misread the stream.
      if ((scanner()?.atBoundary ?? true) && client.writable) {
        client.end(errorResponse({ code: '57P01', message }));
      } else client.end();
      setTimeout(() => client.destroy(), 2000).unref();
    },
  };
}

/** One db.query event per statement, with the optional fields in the documented order. */
function queryEvent(ctx: DbSessionContext, sessionId: string, s: StatementOutcome): EventInput {
  // Optional fields are set one by one: spreading `{}` for each absent one allocated and copied an
  // object per field per statement.
  const data: Record<string, unknown> = { db_user: ctx.dbUser, db_name: ctx.dbName, text: s.text };
  if (s.truncated) data.truncated = true;
  data.protocol = s.protocol;
  if (s.statement) data.statement = s.statement;
  if (s.parameters) data.parameters = s.parameters;
  if (s.parametersTruncated) data.parameters_truncated = true;
  data.tags = s.tags;
  data.rows = s.rows;
  data.duration_ms = Math.round(s.durationMs * 1000) / 1000;
  if (s.error) data.error = s.error;
  if (s.skipped) data.skipped = true;
  if (s.suspended) data.suspended = true;
  return {
    type: 'db.query',
    actor: actorOfPrincipal(ctx.principal),
    target: { kind: 'database', id: ctx.database.id, name: ctx.database.name },
    session_id: sessionId,
    success: s.error === undefined && !s.skipped,
    data,
  };
}

export async function runDbSession(ctx: DbSessionContext): Promise<void> {
  const { client, upstream } = ctx;
  const up = upstream.socket;
  let auditInFlight = 0;
  let upstreamFull = false;
  let fromServer: FrameScanner | undefined;
  const session = await openDoorSession(
    ctx,
    dbSessionSpec(ctx, () => fromServer),
  );
  if (!session) return;
  const transcript = createTranscript(session.recording as SessionRecording, ctx.queryLog.schedule, session.recorded);

  const resumeClient = () => {
    if (!upstreamFull && auditInFlight < MAX_AUDIT_IN_FLIGHT) client.resume();
  };
  // One callback for every statement of the session: the text stays out of the process log, only
  // that an event was lost is said there.
  const stored = (err?: unknown) => {
    if (err)
      ctx.logger.warn({ err: { message: (err as Error).message }, session: session.id }, 'db: audit write failed');
    if (auditInFlight-- === MAX_AUDIT_IN_FLIGHT) resumeClient();
  };
  const onStatement = (s: StatementOutcome) => {
    transcript.add(s);
    ctx.metrics?.dbStatements.inc();
    auditInFlight++;
    if (auditInFlight >= MAX_AUDIT_IN_FLIGHT) client.pause();
    ctx.queryLog.add(queryEvent(ctx, session.id, s), stored);
  };
  const tracker = new StatementTracker(
    ctx.queryMaxLength,
    () => performance.now(),
    onStatement,
    ctx.options.dbRecordParameters,
  );
  const fromClient = new FrameScanner(tracker.clientWant, tracker.onClientMessage);
  fromServer = new FrameScanner(tracker.serverWant, tracker.onServerMessage);

  // The client learns the database's parameters, and our key instead of the database's own.
  const greeting = [...upstream.greeting];
  const ready = greeting.pop() as Buffer;
  client.write(Buffer.concat([authenticationOk(), ...greeting, backendKeyData(ctx.key.pid, ctx.key.secret), ready]));

  const scanned = fromServer;
  const readOnly = ctx.options.dbReadOnly ? new ReadOnlyGuard() : undefined;
  const toUpstream = (chunk: Buffer) => {
    session.touch(chunk.length, 0);
    const checked = readOnly ? readOnly.filter(chunk) : { chunk };
    fromClient.scan(chunk);
    if ('end' in checked) return session.terminate(checked.end);
    if (!up.write(checked.chunk)) {
      upstreamFull = true;
      client.pause();
    }
  };
  const forward = (chunk: Buffer) => {
    scanned.scan(chunk);
    const flowing = upstream.reads ? upstream.reads.write(client, chunk) : client.write(chunk);
    if (!flowing) up.pause();
  };
  const toClient = (chunk: Buffer) => {
    session.touch(0, chunk.length);
    // Checked before the scan, so terminate() knows whether the client stands between two messages.
    const lifted = readOnly?.watch(chunk);
    if (!lifted) return forward(chunk);
    if (lifted.before.length > 0) forward(lifted.before);
    session.terminate(lifted.why);
  };
  up.on('drain', () => {
    upstreamFull = false;
    resumeClient();
  });
  client.on('drain', () => up.resume());
  const guard = (f: (c: Buffer) => void) => (chunk: Buffer) => {
    try {
      f(chunk);
    } catch (err) {
      // A malformed stream (a message length below 4): nothing more can be read from it safely.
      ctx.logger.debug({ err }, 'db: protocol error');
      session.terminate('gatehouse: protocol violation');
    }
  };
  client.on('data', guard(toUpstream));
  if (!upstream.reads) up.on('data', guard(toClient));
  if (ctx.clientRest.length) guard(toUpstream)(ctx.clientRest);
  if (upstream.rest.length) guard(toClient)(upstream.rest);
  upstream.reads?.sendTo(guard(toClient));
  client.resume();
  up.resume();

  await bothClosed(client, up, ctx.logger);
  tracker.flushUnfinished(session.terminatedBy ?? 'the connection closed before the statement finished');
  transcript.flush();
  await session.end({ data: { statements: tracker.count, tls: ctx.tls } });
}

/** Either side gone ends the session: the other side is closed too; resolves once both are. */
function bothClosed(client: Socket, up: Socket, logger: DbSessionContext['logger']): Promise<void> {
  up.on('error', (err) => logger.debug({ err }, 'db: upstream error'));
  return new Promise((resolve) => {
    let closed = 0;
    const onClose = () => {
      if (++closed === 1) {
        client.end();
        up.end();
        setTimeout(() => {
          client.destroy();
          up.destroy();
        }, 2000).unref();
      }
      if (closed === 2) resolve();
    };
    client.once('close', onClose);
    up.once('close', onClose);
  });
}
