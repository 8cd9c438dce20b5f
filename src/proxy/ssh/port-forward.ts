// ssh -L and ssh -W: each direct-tcpip channel is a Gatehouse session of its own (type port_forward,
// not recorded: its bytes are the application's), admitted like any new session before the target is
// asked to connect anywhere, so the session guard, DELETE /v1/sessions/{id}, the kill switch and
// max_session_ttl end an open forward as they end a shell. Its opening is also the session.port_forward event.
import type { Client, ClientChannel, ServerChannel } from 'ssh2';
import { actorOfPrincipal } from '../../auth/principal.js';
import { newId } from '../../lib/ids.js';
import { SessionRefused, sessionPrincipal } from '../../sessions/session-registry.js';
import type { RunningSession, SessionContext } from './session-channel.js';

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
  const { sessions, audit, principal, server, logger } = ctx;
  const destination = `${request.destIP}:${request.destPort}`;
  const target = { kind: 'server' as const, id: server.id, name: server.name };
  const input = {
    kind: 'ssh' as const,
    type: 'port_forward' as const,
    ...sessionPrincipal(principal),
    resource: target,
    login: ctx.login,
    command: destination.slice(0, 4096),
    remote_addr: ctx.remoteAddr,
    recorded: false,
  };
  const refused = (error: SessionRefused) => {
    channel.reject();
    void audit
      .record({
        type: 'session.rejected',
        actor: actorOfPrincipal(principal),
        target,
        success: false,
        remote_addr: ctx.remoteAddr,
        data: { login: ctx.login, forward: destination, reason: error.reason, detail: error.detail },
      })
      .catch((err) => logger.warn({ err }, 'ssh: cannot record a rejection'));
  };

  // The connection authenticated earlier: what allowed it may be gone (sessions/session-guard.ts).
  try {
    sessions.admit(input);
  } catch (error) {
    if (!(error instanceof SessionRefused)) throw error;
    refused(error);
    return undefined;
  }
  let up: ClientChannel;
  try {
    up = await openUpstream(await upstream, request);
  } catch {
    channel.reject();
    return undefined;
  }

  const id = newId('session', ctx.clock());
  let bytesIn = 0;
  let bytesOut = 0;
  let terminatedBy: string | undefined;
  let client: ServerChannel | undefined;
  const terminate = (message: string) => {
    terminatedBy ??= message.replace(/^gatehouse: /, '');
    up.close();
    client?.close();
  };
  try {
    await sessions.start(input, () => ({ id, bytesIn: () => bytesIn, bytesOut: () => bytesOut, terminate }), id);
  } catch (error) {
    up.close();
    if (error instanceof SessionRefused) refused(error);
    else {
      logger.error({ err: error }, 'ssh: cannot record the port forward start');
      channel.reject();
    }
    return undefined;
  }

  let finished = false;
  const ttl = ctx.options.maxSessionTtlMs;
  const ttlTimer =
    ttl === undefined
      ? undefined
      : setTimeout(() => terminate('gatehouse: session ended: max_session_ttl reached'), ttl);
  ttlTimer?.unref();
  const finish = () => {
    if (finished) return;
    finished = true;
    clearTimeout(ttlTimer);
    sessions
      .end(id, {
        bytesIn,
        bytesOut,
        ...(terminatedBy === undefined ? {} : { reason: terminatedBy, terminated: true }),
      })
      .catch((err) => logger.error({ err }, 'ssh: cannot record the port forward end'));
  };
  if (terminatedBy !== undefined) {
    // Ended while its start was being written: nothing flows, the end is recorded.
    channel.reject();
    finish();
    return undefined;
  }

  const accepted = channel.accept();
  client = accepted;
  accepted.on('data', (chunk: Buffer) => {
    bytesIn += chunk.length;
  });
  up.on('data', (chunk: Buffer) => {
    bytesOut += chunk.length;
  });
  accepted.pipe(up).pipe(accepted);
  accepted.on('close', () => {
    up.close();
    finish();
  });
  up.on('close', () => {
    // Unpiped now, so paused: read on to its end, else ssh2 never emits its close.
    accepted.resume();
    // What still waits for the client's window goes out first (as a session's output does).
    if (terminatedBy === undefined) accepted.end();
    if (terminatedBy !== undefined || accepted.writableFinished) accepted.close();
    else accepted.once('finish', () => accepted.close());
    finish();
  });
  void audit
    .record({
      type: 'session.port_forward',
      actor: actorOfPrincipal(principal),
      target,
      session_id: id,
      remote_addr: ctx.remoteAddr,
      data: { login: ctx.login, destination },
    })
    .catch((err) => logger.warn({ err }, 'ssh: cannot record a port forward'));
  return { resize: () => {}, signal: () => {}, terminate };
}
