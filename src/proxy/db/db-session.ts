// One database session through the proxy: the client and Gatehouse's upstream connection joined,
// chunks forwarded as they come (backpressure both ways: a slow reader pauses the other side, so a
// large result is never buffered whole), message heads scanned to audit and record (transcript.ts)
// every statement, and the session's record, events, termination (DELETE /v1/sessions/{id}, kill
// switch, max_session_ttl, the recording limit under record_session: strict).
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import type { AuditLog } from '../../audit/audit-log.js';
import { actorOfPrincipal, type Principal } from '../../auth/principal.js';
import { newId } from '../../lib/ids.js';
import type { SessionOptions } from '../../rbac/policy.js';
import type { RecordingService } from '../../recordings/recording-service.js';
import type { RecordResult } from '../../recordings/spool.js';
import { type SessionRegistry, sessionPrincipal } from '../../sessions/session-registry.js';
import { FrameScanner } from './frame-scanner.js';
import type { QueryLog } from './query-log.js';
import { ReadOnlyGuard } from './read-only.js';
import { type StatementOutcome, StatementTracker } from './statement-tracker.js';
import { createTranscript, type Transcript } from './transcript.js';
import type { UpstreamSession } from './upstream.js';
import { authenticationOk, backendKeyData, errorResponse } from './wire.js';

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

export interface DbSessionContext {
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
  sessions: SessionRegistry;
  recordings: Pick<RecordingService, 'begin'>;
  audit: AuditLog;
  queryLog: QueryLog;
  logger: Logger;
  options: SessionOptions;
  queryMaxLength: number;
}

export async function runDbSession(ctx: DbSessionContext): Promise<void> {
  const { client, upstream, principal, database } = ctx;
  const up = upstream.socket;
  const id = newId('session');
  const actor = actorOfPrincipal(principal);
  const target = { kind: 'database', id: database.id, name: database.name };
  let bytesIn = 0;
  let bytesOut = 0;
  let terminatedBy: string | undefined;
  let auditInFlight = 0;
  let upstreamFull = false;
  let transcript: Transcript;
  try {
    transcript = createTranscript(
      ctx.recordings.begin(id, {
        width: 120,
        height: 30,
        title: `${ctx.dbUser}@${database.name}: ${ctx.dbName}`.slice(0, 200),
        policy: ctx.options.recordSession,
      }),
      ctx.queryLog.schedule,
      (result: RecordResult) => {
        if (result === 'end_session')
          terminate('gatehouse: session ended at the recording limit (record_session: strict)');
      },
    );
  } catch (error) {
    // Strict recording with no room in the spool: the session may not run unrecorded.
    up.destroy();
    client.end(
      errorResponse({
        code: '08004',
        message: `gatehouse: the session cannot be recorded (${(error as Error).message})`,
      }),
    );
    await ctx.audit
      .record({
        type: 'session.rejected',
        actor,
        target,
        success: false,
        remote_addr: ctx.remoteAddr,
        data: { protocol: 'postgres', db_user: ctx.dbUser, db_name: ctx.dbName, reason: 'recording_unavailable' },
      })
      .catch((err) => ctx.logger.warn({ err }, 'db: cannot record a rejection'));
    return;
  }

  const resumeClient = () => {
    if (!upstreamFull && auditInFlight < MAX_AUDIT_IN_FLIGHT) client.resume();
  };

  // One callback for every statement of the session: the text stays out of the process log, only
  // that an event was lost is said there.
  const stored = (err?: unknown) => {
    if (err) ctx.logger.warn({ err: { message: (err as Error).message }, session: id }, 'db: audit write failed');
    if (auditInFlight-- === MAX_AUDIT_IN_FLIGHT) resumeClient();
  };
  const onStatement = (s: StatementOutcome) => {
    transcript.add(s);
    auditInFlight++;
    if (auditInFlight >= MAX_AUDIT_IN_FLIGHT) client.pause();
    // Optional fields are set one by one, in the documented order: spreading `{}` for each absent
    // one allocated and copied an object per field per statement.
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
    ctx.queryLog.add(
      {
        type: 'db.query',
        actor,
        target,
        session_id: id,
        success: s.error === undefined && !s.skipped,
        data,
      },
      stored,
    );
  };
  const tracker = new StatementTracker(
    ctx.queryMaxLength,
    () => performance.now(),
    onStatement,
    ctx.options.dbRecordParameters,
  );
  const fromClient = new FrameScanner(tracker.clientWant, tracker.onClientMessage);
  const fromServer = new FrameScanner(tracker.serverWant, tracker.onServerMessage);

  let finished!: () => void;
  const done = new Promise<void>((resolve) => {
    finished = resolve;
  });

  function terminate(message: string): void {
    if (terminatedBy) return;
    terminatedBy = message.replace(/^gatehouse: /, '');
    // PostgreSQL notices a closed client only when it next writes: a pg_sleep(3600) would run on.
    ctx.cancelUpstream();
    up.destroy();
    // An ErrorResponse may only go between two messages, or the client would misread the stream.
    if (fromServer.atBoundary && client.writable) {
      client.end(errorResponse({ code: '57P01', message }));
    } else client.end();
    setTimeout(() => client.destroy(), 2000).unref();
  }

  const ttlTimer =
    ctx.options.maxSessionTtlMs === undefined
      ? undefined
      : setTimeout(() => terminate('gatehouse: session ended: max_session_ttl reached'), ctx.options.maxSessionTtlMs);
  ttlTimer?.unref();

  try {
    await ctx.sessions.start(
      {
        kind: 'db',
        type: 'sql',
        ...sessionPrincipal(principal),
        resource: { kind: 'database', id: database.id, name: database.name },
        login: ctx.dbUser,
        db_name: ctx.dbName,
        remote_addr: ctx.remoteAddr,
        recorded: true,
      },
      () => ({ id, bytesIn: () => bytesIn, bytesOut: () => bytesOut, terminate }),
      id,
      {
        tls: ctx.tls,
        protocol: 'postgres',
        ...(ctx.upstreamUser === ctx.dbUser ? {} : { upstream_user: ctx.upstreamUser }),
      },
    );
  } catch (error) {
    ctx.logger.error({ err: error }, 'db: cannot record the session start');
    clearTimeout(ttlTimer);
    up.destroy();
    await transcript.close().catch((err) => ctx.logger.error({ err }, 'db: cannot close a recording'));
    client.end(
      errorResponse({ code: '08006', message: 'gatehouse: the session could not be started (audit unavailable)' }),
    );
    return;
  }

  // The client learns the database's parameters, and our key instead of the database's own.
  const greeting = [...upstream.greeting];
  const ready = greeting.pop() as Buffer;
  client.write(Buffer.concat([authenticationOk(), ...greeting, backendKeyData(ctx.key.pid, ctx.key.secret), ready]));

  const readOnly = ctx.options.dbReadOnly ? new ReadOnlyGuard() : undefined;
  const toUpstream = (chunk: Buffer) => {
    bytesIn += chunk.length;
    const checked = readOnly ? readOnly.filter(chunk) : { chunk };
    fromClient.scan(chunk);
    if ('end' in checked) return terminate(checked.end);
    if (!up.write(checked.chunk)) {
      upstreamFull = true;
      client.pause();
    }
  };
  const forward = (chunk: Buffer) => {
    fromServer.scan(chunk);
    const flowing = upstream.reads ? upstream.reads.write(client, chunk) : client.write(chunk);
    if (!flowing) up.pause();
  };
  const toClient = (chunk: Buffer) => {
    bytesOut += chunk.length;
    // Checked before the scan, so terminate() knows whether the client stands between two messages.
    const lifted = readOnly?.watch(chunk);
    if (!lifted) return forward(chunk);
    if (lifted.before.length > 0) forward(lifted.before);
    terminate(lifted.why);
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
      terminate('gatehouse: protocol violation');
    }
  };
  client.on('data', guard(toUpstream));
  if (!upstream.reads) up.on('data', guard(toClient));
  if (ctx.clientRest.length) guard(toUpstream)(ctx.clientRest);
  if (upstream.rest.length) guard(toClient)(upstream.rest);
  upstream.reads?.sendTo(guard(toClient));
  client.resume();
  up.resume();

  let closed = 0;
  const onClose = () => {
    if (++closed === 1) {
      // Either side gone ends the session: the other side is closed too.
      client.end();
      up.end();
      setTimeout(() => {
        client.destroy();
        up.destroy();
      }, 2000).unref();
    }
    if (closed === 2) finished();
  };
  client.once('close', onClose);
  up.once('close', onClose);
  up.on('error', (err) => ctx.logger.debug({ err }, 'db: upstream error'));
  await done;
  clearTimeout(ttlTimer);
  tracker.flushUnfinished(terminatedBy ?? 'the connection closed before the statement finished');
  await transcript.close().catch((err) => ctx.logger.error({ err }, 'db: cannot close a recording'));
  await ctx.sessions
    .end(id, {
      bytesIn,
      bytesOut,
      ...(terminatedBy ? { reason: terminatedBy, terminated: true } : {}),
      data: { statements: tracker.count, tls: ctx.tls },
    })
    .catch((err) => ctx.logger.warn({ err }, 'db: cannot record the session end'));
}
