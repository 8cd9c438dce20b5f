// One Gatehouse session = one SSH session channel (a shell, an exec or a subsystem) bridged to the
// same channel on the target, with its output (and input, if a role asks) recorded as asciicast.
// Bytes flow with backpressure both ways; the exit status reaches the user; a termination (API, kill
// switch, TTL, strict recording limit) tells the user why and closes the recording properly.
import type { Readable, Writable } from 'node:stream';
import type { Client, ClientChannel, PseudoTtyOptions, ServerChannel } from 'ssh2';
import { actorOfPrincipal, type Principal } from '../../auth/principal.js';
import type { SessionOptions } from '../../rbac/policy.js';
import type { SessionType } from '../../sessions/session-registry.js';
import {
  admitDoorSession,
  type DoorKitDeps,
  type DoorSession,
  type DoorSessionSpec,
  openDoorSession,
} from '../common/door-session.js';
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

/** A session's who, where and as whom, with what the door kit needs. */
export interface SessionContext extends DoorKitDeps {
  principal: Principal;
  server: ServerRef;
  login: string;
  options: SessionOptions;
  remoteAddr: string;
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

/** Tells the user why, on their terminal, and ends the channel. */
export function refuseChannel(channel: ServerChannel, message: string): void {
  channel.stderr.write(`gatehouse: ${message}\r\n`);
  channel.exit(1);
  channel.end();
  channel.resume(); // nobody reads it: drained, its close is emitted (ssh2 waits for its end)
}

/** The door kit's view of an SSH session: the login is "as whom", the command stays out of the log. */
export function sshSessionSpec(
  ctx: Omit<SessionContext, 'sessions' | 'recordings' | 'audit' | 'clock' | 'logger' | 'metrics'>,
  s: Pick<DoorSessionSpec, 'type' | 'command' | 'recording' | 'refuse' | 'close'> & {
    rejection?: Record<string, unknown>;
  },
): DoorSessionSpec {
  const { rejection, ...rest } = s;
  return {
    kind: 'ssh',
    principal: ctx.principal,
    resource: { kind: 'server', id: ctx.server.id, name: ctx.server.name },
    as: { login: ctx.login },
    origin: { remoteAddr: ctx.remoteAddr },
    options: ctx.options,
    rejection: { login: ctx.login, ...rejection },
    ...rest,
  };
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
  const { audit, principal, server } = ctx;
  let up: ClientChannel | undefined;
  const spec = sshSessionSpec(ctx, {
    type: request.type,
    ...(request.command === undefined ? {} : { command: request.command }),
    ...(request.type === 'subsystem'
      ? {}
      : {
          recording: {
            width: request.pty?.cols || 80,
            height: request.pty?.rows || 24,
            title: `${ctx.login}@${server.name}${request.command ? `: ${request.command}` : ''}`.slice(0, 200),
            ...(request.pty?.term ? { env: { TERM: request.pty.term } } : {}),
          },
        }),
    refuse: (message) => {
      up?.close();
      refuseChannel(channel, message);
    },
    close: (message) => {
      try {
        channel.stderr.write(`\r\n${message}\r\n`);
      } catch {
        // the user's side may already be gone
      }
      up?.close();
      channel.close();
    },
  });
  // Asked before the target sees the request: opening an exec channel already runs its command.
  if (!(await admitDoorSession(ctx, spec))) return undefined;
  try {
    up = await openUpstream(upstream, request);
  } catch (error) {
    refuseChannel(channel, `${server.name} refused the ${request.type}: ${(error as Error).message}`);
    return undefined;
  }
  // Asked again: what allowed it may have gone while the target opened the channel.
  const session = await openDoorSession(ctx, spec);
  if (!session) return undefined;
  const target = { kind: 'server' as const, id: server.id, name: server.name };
  if (request.type === 'exec') {
    await audit.record({
      type: 'session.command',
      actor: actorOfPrincipal(principal),
      target,
      session_id: session.id,
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
              target,
              session_id: session.id,
              remote_addr: ctx.remoteAddr,
              data: { login: ctx.login, ...transfer },
            })
            .catch((err) => ctx.logger.warn({ err }, 'ssh: cannot record a file transfer'));
        })
      : undefined;
  bridge(channel, up, session, ctx.options.recordInput, sftp);
  const opened = up;
  return {
    resize(pty) {
      if (session.ended) return;
      opened.setWindow(pty.rows, pty.cols, pty.height, pty.width);
      if (session.recording) session.recorded(session.recording.resize(pty.cols, pty.rows));
    },
    signal(name) {
      if (!session.ended) opened.signal(name);
    },
    terminate: session.terminate,
  };
}

/** Bytes both ways with backpressure, recorded; the exit status and the user's EOF passed on. */
function bridge(
  channel: ServerChannel,
  up: ClientChannel,
  session: DoorSession,
  recordInput: boolean,
  sftp: ReturnType<typeof watchSftp> | undefined,
): void {
  const { recording } = session;
  let exitCode: number | null | undefined;
  let exitSignal: string | undefined;
  pump(channel, up, (chunk) => {
    session.touch(chunk.length, 0);
    if (recordInput && recording) session.recorded(recording.input(chunk));
    sftp?.fromClient(chunk);
  });
  pump(up, channel, (chunk) => {
    session.touch(0, chunk.length);
    if (recording) session.recorded(recording.output(chunk));
    sftp?.fromServer(chunk);
  });
  pump(up.stderr, channel.stderr, (chunk) => {
    session.touch(0, chunk.length);
    if (recording) session.recorded(recording.output(chunk));
  });
  // The user's EOF (end of stdin) goes on to the target, which is how `cat > file` finishes.
  channel.on('end', () => up.end());
  up.on('exit', (code: number | null, signal?: string) => {
    if (typeof code === 'number') exitCode = code;
    else if (signal) exitSignal = signal;
  });
  const finish = () => {
    sftp?.close();
    void session.end(exitCode === undefined ? {} : { exitCode });
  };
  up.on('close', () => {
    if (session.terminatedBy !== undefined) channel.close();
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
    finish();
  });
  channel.on('close', () => {
    up.close();
    finish();
  });
}
