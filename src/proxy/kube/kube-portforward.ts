// kubectl port-forward through the proxy, for roles with options.port_forwarding only. The upgrade
// (WebSocket tunnelling SPDY, kubectl ≥ 1.31, or plain SPDY) is passed to the API server byte for
// byte with Gatehouse's credential and impersonation in place of the client's: the forwarded bytes
// are the application's, not a terminal's, so they are not recorded — the request is, as an event.
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import type { Duplex } from 'node:stream';
import { connect } from 'node:tls';
import type { KubeUpstream } from '../../resources/kube-upstream.js';
import type { KubeDecision } from './kube-access.js';
import { sendStatusOnSocket } from './kube-request.js';

type Allowed = Extract<KubeDecision, { allowed: true }>;

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
      up.pipe(socket);
      socket.pipe(up);
    });
    let opened = false;
    up.once('data', (first: Buffer) => {
      answered = true;
      opened = true;
      resolve(Number(/^HTTP\/1\.[01] (\d{3})/.exec(first.toString('latin1', 0, 16))?.[1] ?? 502));
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
