// One Gatehouse session = one SSH session channel (a shell, an exec or a subsystem) bridged to the
// same channel on the target, with its output (and input, if a role asks) recorded as asciicast.
// Bytes flow with backpressure both ways; the exit status reaches the user; a termination (API, kill
// switch, TTL, strict recording limit) tells the user why and closes the recording properly.
import type { Readable, Writable } from 'node:stream';
import type { Logger } from 'pino';
import type { Client, ClientChannel, PseudoTtyOptions, ServerChannel } from 'ssh2';
import type { AuditLog } from '../../audit/audit-log.js';
import { actorOfPrincipal, type Principal } from '../../auth/principal.js';
import type { Clock } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import type { Metrics } from '../../observability/metrics.js';
import type { SessionOptions } from '../../rbac/policy.js';
import type { RecordingService } from '../../recordings/recording-service.js';
import type { RecordResult, SessionRecording } from '../../recordings/spool.js';
import {
  SessionRefused,
  type SessionRegistry,
  type SessionType,
  sessionPrincipal,
} from '../../sessions/session-registry.js';
import type { ServerRef } from './access.js';
import { watchSftp } from './sftp-metadata.js';

export interface PtyRequest {
  cols: number;
  rows: number;
  width: number;
  height: number;
  term: string;
  modes?: PseudoTtyOptions['modes'];
}

export interface SessionRequest {
  type: SessionType;
  /** The exec command, or the subsystem name. */
  command?: string;
  pty?: PtyRequest;
  env: Record<string, string>;
}

export interface SessionContext {
  principal: Principal;
  server: ServerRef;
  login: string;
  options: SessionOptions;
  remoteAddr: string;
  sessions: SessionRegistry;
  recordings: RecordingService;
  audit: AuditLog;
  clock: Clock;
  logger: Logger;
  metrics?: Metrics;
}

/** The live half the connection keeps, to forward window changes and signals. */
export interface RunningSession {
  resize(pty: { cols: number; rows: number; width: number; height: number }): void;
  signal(name: string): void;
  terminate(message: string): void;
}

function openUpstream(upstream: Client, request: SessionRequest): Promise<ClientChannel> {
  return new Promise((resolve, reject) => {
    const done = (err: Error | undefined, channel: ClientChannel) => (err ? reject(err) : resolve(channel));
    const pty = request.pty
      ? {
          rows: request.pty.rows,
          cols: request.pty.cols,
          height: request.pty.height,
          width: request.pty.width,
          term: request.pty.term,
          ...(request.pty.modes ? { modes: request.pty.modes } : {}),
        }
      : undefined;
    if (request.type === 'shell') upstream.shell(pty ?? false, { env: request.env }, done);
    else if (request.type === 'exec')
      upstream.exec(request.command ?? '', { env: request.env, ...(pty ? { pty } : {}) }, done);
    else upstream.subsys(request.command ?? '', done);
  });
}

/** Forwards chunks with backpressure: a slow reader pauses the writer's source, and so the SSH window. */
function pump(from: Readable, to: Writable, tap: (chunk: Buffer) => void): void {
  from.on('data', (chunk: Buffer) => {
    tap(chunk);
    if (!to.write(chunk)) {
      from.pause();
      to.once('drain', () => from.resume());
    }
  });
}

/**
 * Opens the target's channel, starts the session record and the recording, and bridges until either
 * side closes. Resolves once the session is running (or refused, in which case the user was told why).
 */
export async function runSession(
  ctx: SessionContext,
  upstream: Client,
  channel: ServerChannel,
  request: SessionRequest,
): Promise<RunningSession | undefined> {
  const { sessions, recordings, audit, principal, server } = ctx;
  const refuse = (message: string) => {
    channel.stderr.write(`gatehouse: ${message}\r\n`);
    channel.exit(1);
    channel.end();
    channel.resume(); // nobody reads it: drained, its close is emitted (ssh2 waits for its end)
  };
  const recorded = request.type !== 'subsystem';
  const input = {
    kind: 'ssh' as const,
    type: request.type,
    ...sessionPrincipal(principal),
    resource: { kind: 'server' as const, id: server.id, name: server.name },
    login: ctx.login,
    ...(request.command === undefined ? {} : { command: request.command.slice(0, 4096) }),
    remote_addr: ctx.remoteAddr,
    recorded,
  };
  /** The connection authenticated earlier; what allowed it has changed since (sessions/session-guard.ts). */
  const refused = async (error: SessionRefused) => {
    await audit
      .record({
        type: 'session.rejected',
        actor: actorOfPrincipal(principal),
        target: { kind: 'server', id: server.id, name: server.name },
        success: false,
        remote_addr: ctx.remoteAddr,
        data: { login: ctx.login, reason: error.reason, detail: error.detail },
      })
      .catch((err) => ctx.logger.warn({ err }, 'ssh: cannot record a rejection'));
    refuse(`access denied: ${error.detail}`);
  };

  // Asked before the target sees the request: opening an exec channel already runs its command.
  try {
    sessions.admit(input);
  } catch (error) {
    if (!(error instanceof SessionRefused)) throw error;
    await refused(error);
    return undefined;
  }
  let up: ClientChannel;
  try {
    up = await openUpstream(upstream, request);
  } catch (error) {
    refuse(`${server.name} refused the ${request.type}: ${(error as Error).message}`);
    return undefined;
  }

  const id = newId('session', ctx.clock());
  let recording: SessionRecording | undefined;
  if (recorded) {
    try {
      recording = recordings.begin(id, {
        width: request.pty?.cols || 80,
        height: request.pty?.rows || 24,
        title: `${ctx.login}@${server.name}${request.command ? `: ${request.command}` : ''}`.slice(0, 200),
        ...(request.pty?.term ? { env: { TERM: request.pty.term } } : {}),
        policy: ctx.options.recordSession,
      });
    } catch (error) {
      // Strict recording with no room in the spool: the session may not run unrecorded.
      up.close();
      refuse(`the session cannot be recorded (${(error as Error).message})`);
      await audit.record({
        type: 'session.rejected',
        actor: actorOfPrincipal(principal),
        target: { kind: 'server', id: server.id, name: server.name },
        success: false,
        remote_addr: ctx.remoteAddr,
        data: { login: ctx.login, reason: 'recording_unavailable' },
      });
      return undefined;
    }
  }

  let bytesIn = 0;
  let bytesOut = 0;
  let exitCode: number | null | undefined;
  let exitSignal: string | undefined;
  let terminatedBy: string | undefined;
  let finished = false;
  const startedAt = ctx.clock();

  const onRecord = (result: RecordResult) => {
    if (result === 'end_session' && !terminatedBy)
      terminate('gatehouse: session ended at the recording limit (record_session: strict)');
  };

  function terminate(message: string): void {
    if (terminatedBy || finished) return;
    terminatedBy = message.replace(/^gatehouse: /, '');
    try {
      channel.stderr.write(`\r\n${message}\r\n`);
    } catch {
      // the user's side may already be gone
    }
    up.close();
    channel.close();
  }

  const ttlTimer =
    ctx.options.maxSessionTtlMs === undefined
      ? undefined
      : setTimeout(() => {
          terminate('gatehouse: session ended: max_session_ttl reached');
        }, ctx.options.maxSessionTtlMs);
  ttlTimer?.unref();

  try {
    // Asked again: what allowed it may have gone while the target opened the channel.
    await sessions.start(input, () => ({ id, bytesIn: () => bytesIn, bytesOut: () => bytesOut, terminate }), id);
  } catch (error) {
    clearTimeout(ttlTimer);
    up.close();
    await recording?.close();
    if (error instanceof SessionRefused) {
      await refused(error);
      return undefined;
    }
    ctx.logger.error({ err: error }, 'ssh: cannot record the session start');
    refuse('the session could not be started (the audit trail is unavailable)');
    return undefined;
  }
  if (request.type === 'exec') {
    await audit.record({
      type: 'session.command',
      actor: actorOfPrincipal(principal),
      target: { kind: 'server', id: server.id, name: server.name },
      session_id: id,
      remote_addr: ctx.remoteAddr,
      data: { login: ctx.login, command: (request.command ?? '').slice(0, 4096) },
    });
  }

  const sftp =
    request.type === 'subsystem' && request.command === 'sftp'
      ? watchSftp((transfer) => {
          audit
            .record({
              type: 'session.file_transfer',
              actor: actorOfPrincipal(principal),
              target: { kind: 'server', id: server.id, name: server.name },
              session_id: id,
              remote_addr: ctx.remoteAddr,
              data: { login: ctx.login, ...transfer },
            })
            .catch((err) => ctx.logger.warn({ err }, 'ssh: cannot record a file transfer'));
        })
      : undefined;

  const recordInput = ctx.options.recordInput && recording !== undefined;
  pump(channel, up, (chunk) => {
    bytesIn += chunk.length;
    if (recordInput) onRecord((recording as SessionRecording).input(chunk));
    sftp?.fromClient(chunk);
  });
  pump(up, channel, (chunk) => {
    bytesOut += chunk.length;
    if (recording) onRecord(recording.output(chunk));
    sftp?.fromServer(chunk);
  });
  pump(up.stderr, channel.stderr, (chunk) => {
    bytesOut += chunk.length;
    if (recording) onRecord(recording.output(chunk));
  });
  // The user's EOF (end of stdin) goes on to the target, which is how `cat > file` finishes.
  channel.on('end', () => up.end());
  up.on('exit', (code: number | null, signal?: string) => {
    if (typeof code === 'number') exitCode = code;
    else if (signal) exitSignal = signal;
  });
  up.on('close', () => {
    if (terminatedBy) channel.close();
    else {
      try {
        if (typeof exitCode === 'number') channel.exit(exitCode);
        else if (exitSignal) channel.exit(exitSignal, false, '');
        channel.stderr.end();
        channel.end();
      } catch {
        // the user's side is gone
      }
      // Closing at once would drop what still waits for the user's SSH window (16 MiB of output lost
      // its last 1.6 MiB that way): close once every queued byte is out.
      if (channel.writableFinished) channel.close();
      else channel.once('finish', () => channel.close());
    }
    void finish();
  });
  channel.on('close', () => {
    up.close();
    void finish();
  });

  async function finish(): Promise<void> {
    if (finished) return;
    finished = true;
    clearTimeout(ttlTimer);
    sftp?.close();
    await recording?.close().catch((err) => ctx.logger.error({ err }, 'ssh: cannot close a recording'));
    ctx.metrics?.sessionDuration.observe({ kind: 'ssh' }, (ctx.clock() - startedAt) / 1000);
    await sessions
      .end(id, {
        bytesIn,
        bytesOut,
        ...(exitCode === undefined ? {} : { exitCode }),
        ...(terminatedBy === undefined ? {} : { reason: terminatedBy, terminated: true }),
      })
      .catch((err) => ctx.logger.error({ err }, 'ssh: cannot record the session end'));
  }

  return {
    resize(pty) {
      if (finished) return;
      up.setWindow(pty.rows, pty.cols, pty.height, pty.width);
      if (recording) onRecord(recording.resize(pty.cols, pty.rows));
    },
    signal(name) {
      if (!finished) up.signal(name);
    },
    terminate,
  };
}
