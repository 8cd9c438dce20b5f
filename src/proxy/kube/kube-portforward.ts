// kubectl port-forward through the proxy, for roles with options.port_forwarding only. The upgrade
// (WebSocket tunnelling SPDY, kubectl ≥ 1.31, or plain SPDY) is passed to the API server byte for
// byte with Gatehouse's credential and impersonation in place of the client's: the forwarded bytes
// are the application's, not a terminal's, so they are not recorded — the request is, as an event.
// An open tunnel is a live session (type port_forward), started durably before a byte flows, so
// DELETE /v1/sessions/{id}, the agent kill switch and max_session_ttl end it as they end an exec.
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import type { Duplex } from 'node:stream';
import { connect } from 'node:tls';
import type { Logger } from 'pino';
import type { Clock } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import type { KubeUpstream } from '../../resources/kube-upstream.js';
import { type SessionRegistry, sessionPrincipal } from '../../sessions/session-registry.js';
import type { KubeDecision } from './kube-access.js';
import { type KubeRequestInfo, sendStatusOnSocket } from './kube-request.js';

type Allowed = Extract<KubeDecision, { allowed: true }>;

/** The open tunnel as the session registry sees it. */
export interface OpenTunnel {
  bytesIn(): number;
  bytesOut(): number;
  terminate(message: string): void;
}
export type TunnelOutcome = { bytesIn: number; bytesOut: number; terminatedBy?: string };
/** Makes an open tunnel a live session (its start durable) or throws; resolves with what records its end. */
export type StartTunnelSession = (tunnel: OpenTunnel) => Promise<(outcome: TunnelOutcome) => Promise<void>>;

const DROPPED = /^(host|authorization|impersonate-.*|proxy-.*)$/i;

/**
 * Resolves with the API server's status code (101 when the tunnel opened) once it answered, 502
 * when it could not be reached or closed without answering, 499 when the client left first.
 */
export function tunnelPortForward(
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  upstream: KubeUpstream,
  decision: Allowed,
  restPathAndQuery: string,
  startSession: StartTunnelSession,
): Promise<number> {
  const base = new URL(upstream.url);
  const host = base.hostname.replace(/^\[|\]$/g, '');
  const lines = [`${req.method} ${base.pathname.replace(/\/$/, '')}${restPathAndQuery} HTTP/1.1`, `host: ${base.host}`];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i] as string;
    if (!DROPPED.test(name)) lines.push(`${name}: ${req.rawHeaders[i + 1]}`);
  }
  if (upstream.token) lines.push(`authorization: Bearer ${upstream.token}`);
  lines.push(`impersonate-user: ${decision.user}`, ...decision.groups.map((g) => `impersonate-group: ${g}`));
  return new Promise((resolve) => {
    let answered = false;
    /** Settles a request the API server has not answered; false once it has. */
    const unanswered = (code: number, message?: string): boolean => {
      if (answered) return false;
      answered = true;
      if (message) sendStatusOnSocket(socket, code, message);
      resolve(code);
      return true;
    };
    const up = connect({
      host,
      port: Number(base.port || 443),
      ca: upstream.ca,
      ...(upstream.cert ? { cert: upstream.cert, key: upstream.key } : {}),
      ...(isIP(host) ? {} : { servername: host }),
      ALPNProtocols: ['http/1.1'],
    });
    up.once('secureConnect', () => {
      up.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (head.length) up.write(head);
    });
    let opened = false;
    const join = (first: Buffer) => {
      socket.write(first);
      up.pipe(socket);
      socket.pipe(up);
    };
    up.once('data', (first: Buffer) => {
      up.pause();
      answered = true;
      opened = true;
      const code = Number(/^HTTP\/1\.[01] (\d{3})/.exec(first.toString('latin1', 0, 16))?.[1] ?? 502);
      if (code !== 101) {
        join(first);
        resolve(code);
        return;
      }
      let bytesIn = 0;
      let bytesOut = 0;
      let terminatedBy: string | undefined;
      const terminate = (message: string) => {
        terminatedBy ??= message.replace(/^gatehouse: /, '');
        socket.destroy();
        up.destroy();
      };
      startSession({ bytesIn: () => bytesIn, bytesOut: () => bytesOut, terminate }).then(
        (end) => {
          const ttl = decision.options.maxSessionTtlMs;
          const ttlTimer =
            ttl === undefined ? undefined : setTimeout(() => terminate('session ended: max_session_ttl reached'), ttl);
          ttlTimer?.unref();
          let ended = false;
          const finish = () => {
            if (ended) return;
            ended = true;
            clearTimeout(ttlTimer);
            void end({ bytesIn, bytesOut, ...(terminatedBy ? { terminatedBy } : {}) });
          };
          socket.once('close', finish);
          up.once('close', finish);
          // Ended (or left) while its start was being written: nothing flows, the end is recorded.
          if (socket.destroyed || up.destroyed) finish();
          else {
            join(first);
            socket.on('data', (c: Buffer) => {
              bytesIn += c.length;
            });
            up.on('data', (c: Buffer) => {
              bytesOut += c.length;
            });
          }
          resolve(101);
        },
        () => {
          // The start could not be made durable: the tunnel does not open (the client has seen no 101).
          up.destroy();
          opened = false;
          answered = false;
          unanswered(503, 'gatehouse: the session could not be started (the audit trail is unavailable)');
        },
      );
    });
    up.on('error', (err) => {
      if (!unanswered(502, `gatehouse: cannot reach ${decision.cluster.name}: ${err.message}`)) socket.destroy();
    });
    socket.on('error', () => up.destroy());
    // A client that gives up before the API server answers still gets its event (499, as forward()).
    socket.on('close', () => {
      up.destroy();
      unanswered(499);
    });
    // A refusal written on the socket must not be cut short: only an opened tunnel is torn down here.
    up.on('close', () => {
      if (opened) socket.destroy();
      else unanswered(502, `gatehouse: ${decision.cluster.name} closed the connection without answering`);
    });
  });
}

/** The session registry's side of a tunnel: a `kube` session of type `port_forward`, not recorded. */
export function portForwardSession(
  deps: { sessions: SessionRegistry; clock: Clock; logger: Logger },
  decision: Allowed,
  info: KubeRequestInfo,
  remoteAddr: string,
): StartTunnelSession {
  const { principal, cluster } = decision;
  return async (tunnel) => {
    const id = newId('session', deps.clock());
    await deps.sessions.start(
      {
        kind: 'kube',
        type: 'port_forward',
        ...sessionPrincipal(principal),
        resource: { kind: 'kube_cluster', id: cluster.id, name: cluster.name },
        login: decision.user,
        command: `${info.namespace ?? 'default'}/${info.name ?? ''}: port-forward`.slice(0, 4096),
        remote_addr: remoteAddr,
        recorded: false,
      },
      () => ({ id, ...tunnel }),
      id,
    );
    return (outcome) =>
      deps.sessions
        .end(id, {
          bytesIn: outcome.bytesIn,
          bytesOut: outcome.bytesOut,
          ...(outcome.terminatedBy === undefined ? {} : { reason: outcome.terminatedBy, terminated: true }),
        })
        .then(
          () => undefined,
          (err) => deps.logger.error({ err }, 'kube: cannot record the session end'),
        );
  };
}
