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
import type { KubeUpstream } from '../../resources/kube-upstream.js';
import { type DoorKitDeps, type DoorSession, openDoorSession } from '../common/door-session.js';
import type { KubeDecision } from './kube-access.js';
import { type KubeRequestInfo, sendStatusOnSocket } from './kube-request.js';

type Allowed = Extract<KubeDecision, { allowed: true }>;

/**
 * Makes an open tunnel a live session (its start durable), given how to close it; resolves with the
 * session, or with why it may not open (the client has seen no 101 yet).
 */
export type StartTunnelSession = (close: () => void) => Promise<DoorSession | { refused: string; code: number }>;

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
      const refused = (code: number, message: string) => {
        // The tunnel does not open: the client is told instead.
        up.destroy();
        opened = false;
        answered = false;
        unanswered(code, `gatehouse: ${message}`);
      };
      startSession(() => {
        socket.destroy();
        up.destroy();
      }).then(
        (started) => {
          if ('refused' in started) return refused(started.code, started.refused);
          const finish = () => void started.end();
          socket.once('close', finish);
          up.once('close', finish);
          // Ended (or left) while its start was being written: nothing flows, the end is recorded.
          if (socket.destroyed || up.destroyed) finish();
          else {
            join(first);
            socket.on('data', (c: Buffer) => started.touch(c.length, 0));
            up.on('data', (c: Buffer) => started.touch(0, c.length));
          }
          resolve(101);
        },
        () => refused(503, 'the session could not be started (the audit trail is unavailable)'),
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

/** The door kit's side of a tunnel: a `kube` session of type `port_forward`, not recorded. */
export function portForwardSession(
  deps: DoorKitDeps,
  decision: Allowed,
  info: KubeRequestInfo,
  remoteAddr: string,
): StartTunnelSession {
  const { principal, cluster } = decision;
  return async (close) => {
    let refusal: { refused: string; code: number } | undefined;
    const session = await openDoorSession(deps, {
      kind: 'kube',
      type: 'port_forward',
      principal,
      resource: { kind: 'kube_cluster', id: cluster.id, name: cluster.name },
      as: { login: decision.user },
      command: `${info.namespace ?? 'default'}/${info.name ?? ''}: port-forward`,
      origin: { remoteAddr },
      options: decision.options,
      rejection: { login: decision.user },
      refuse: (message, why) => {
        refusal = { refused: message, code: why === 'revoked' ? 403 : 503 };
      },
      close,
    });
    return session ?? refusal ?? { refused: 'the session could not be started', code: 503 };
  };
}
