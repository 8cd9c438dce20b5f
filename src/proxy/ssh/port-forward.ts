// ssh -L and ssh -W: each direct-tcpip channel is a Gatehouse session of its own (type port_forward,
// not recorded: its bytes are the application's), admitted like any new session before the target is
// asked to connect anywhere, so the session guard, DELETE /v1/sessions/{id}, the kill switch and
// max_session_ttl end an open forward as they end a shell. Its opening is also the session.port_forward event.
import type { Client, ClientChannel, ServerChannel } from 'ssh2';
import { actorOfPrincipal } from '../../auth/principal.js';
import { admitDoorSession, type DoorSession, openDoorSession } from '../common/door-session.js';
import { type RunningSession, type SessionContext, sshSessionSpec } from './session-channel.js';

/** Where the client asks to connect, from the target's side (the direct-tcpip request). */
export interface ForwardRequest {
  srcIP: string;
  srcPort: number;
  destIP: string;
  destPort: number;
}

export type ForwardContext = Omit<SessionContext, 'recordings'>;

function openUpstream(upstream: Client, r: ForwardRequest): Promise<ClientChannel> {
  return new Promise((resolve, reject) =>
    upstream.forwardOut(r.srcIP, r.srcPort, r.destIP, r.destPort, (err, channel) =>
      err ? reject(err) : resolve(channel),
    ),
  );
}

/**
 * Opens the forward if it may open now: resolves with the running session once the client's channel
 * is accepted, or undefined once it was rejected (refused, the target would not connect, or the
 * start could not be made durable).
 */
export async function runPortForward(
  ctx: ForwardContext,
  upstream: Promise<Client>,
  request: ForwardRequest,
  channel: { accept(): ServerChannel; reject(): void },
): Promise<RunningSession | undefined> {
  const destination = `${request.destIP}:${request.destPort}`;
  let up: ClientChannel | undefined;
  let client: ServerChannel | undefined;
  const spec = sshSessionSpec(ctx, {
    type: 'port_forward',
    command: destination,
    rejection: { forward: destination },
    refuse: () => {
      up?.close();
      channel.reject();
    },
    close: () => {
      up?.close();
      client?.close();
    },
  });
  // The connection authenticated earlier: what allowed it may be gone (sessions/session-guard.ts).
  if (!(await admitDoorSession(ctx, spec))) return undefined;
  try {
    up = await openUpstream(await upstream, request);
  } catch {
    channel.reject();
    return undefined;
  }
  const session = await openDoorSession(ctx, spec);
  if (!session) return undefined;
  if (session.terminatedBy !== undefined) {
    // Ended while its start was being written: nothing flows, the end is recorded.
    channel.reject();
    await session.end();
    return undefined;
  }
  const accepted = channel.accept();
  client = accepted;
  join(accepted, up, session);
  void ctx.audit
    .record({
      type: 'session.port_forward',
      actor: actorOfPrincipal(ctx.principal),
      target: spec.resource,
      session_id: session.id,
      remote_addr: ctx.remoteAddr,
      data: { login: ctx.login, destination },
    })
    .catch((err) => ctx.logger.warn({ err }, 'ssh: cannot record a port forward'));
  return { resize: () => {}, signal: () => {}, terminate: session.terminate };
}

/** The client's channel and the target's joined, counted, until either closes. */
function join(accepted: ServerChannel, up: ClientChannel, session: DoorSession): void {
  accepted.on('data', (chunk: Buffer) => session.touch(chunk.length, 0));
  up.on('data', (chunk: Buffer) => session.touch(0, chunk.length));
  accepted.pipe(up).pipe(accepted);
  accepted.on('close', () => {
    up.close();
    void session.end();
  });
  up.on('close', () => {
    // Unpiped now, so paused: read on to its end, else ssh2 never emits its close.
    accepted.resume();
    // What still waits for the client's window goes out first (as a session's output does).
    const terminated = session.terminatedBy !== undefined;
    if (!terminated) accepted.end();
    if (terminated || accepted.writableFinished) accepted.close();
    else accepted.once('finish', () => accepted.close());
    void session.end();
  });
}
