// What one client may hold open on an HTTP listener: the whole request (headers and body) within
// request_timeout, no silence longer than idle_timeout, and at most so many connections per
// listener and per source address. Without these a body that never finishes keeps a socket (and
// its buffers) forever, unauthenticated, on the public token endpoint. The caps are the proxies'
// door kit (net/listener-limits.ts), so every listener counts sources the same way.
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { newRequestId } from '../lib/random.js';
import { type DescriptorBudget, guardListener, type Refusal } from '../net/listener-limits.js';

export interface ConnectionLimits {
  requestTimeoutMs: number;
  idleTimeoutMs: number;
  maxConnections: number;
  maxConnectionsPerSource: number;
  /** Descriptors shared with the proxies' listeners (the web listener's; the auth API stays out of it). */
  budget?: DescriptorBudget;
  /** Where refusals are logged (at most one line every 10 s), under this listener's name. */
  warn?: (message: string) => void;
  name?: string;
}

const REFUSED: Record<Refusal, string> = {
  source: 'too many open connections from your address',
  listener: 'too many open connections to this listener',
  budget: 'too many open connections to this server',
};

/** Fastify server options for the time bounds (Fastify's default requestTimeout is 0: none). */
export function timeoutOptions(limits: ConnectionLimits) {
  return {
    requestTimeout: limits.requestTimeoutMs,
    connectionTimeout: limits.idleTimeoutMs,
    // Idle keep-alive connections close quietly before the idle bound would answer 408 on them.
    keepAliveTimeout: Math.min(72_000, Math.max(1000, Math.floor(limits.idleTimeoutMs / 2))),
    serverOptions: {
      // Headers keep Node's 60 s bound (never more than the whole request's).
      headersTimeout: Math.min(60_000, limits.requestTimeoutMs),
      // Node checks the two bounds above on this period (default 30 s, which would double them).
      connectionsCheckingInterval: Math.min(1000, limits.requestTimeoutMs),
    },
  };
}

function problem(status: number, title: string, detail: string, extra = ''): string {
  const requestId = newRequestId();
  const body = JSON.stringify({
    type: `urn:gatehouse:error:${status === 408 ? 'invalid_request' : 'unavailable'}`,
    title,
    status,
    detail,
    code: status === 408 ? 'invalid_request' : 'unavailable',
    request_id: requestId,
  });
  return (
    `HTTP/1.1 ${status} ${title}\r\nContent-Type: application/problem+json; charset=utf-8\r\n` +
    `X-Request-Id: ${requestId}\r\n${extra}Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  );
}

/**
 * Installs the caps and the idle answer on a listener's server. Must run before anything else
 * listens for 'connection', so that a refused socket never reaches the HTTP parser.
 */
export function limitConnections(server: Server, limits: ConnectionLimits, opts: { tls: boolean }): void {
  guardListener(server, {
    name: limits.name ?? 'http',
    limits: { maxConnections: limits.maxConnections, maxConnectionsPerSource: limits.maxConnectionsPerSource },
    ...(limits.budget ? { budget: limits.budget } : {}),
    ...(limits.warn ? { warn: limits.warn } : {}),
    refuse(socket, why) {
      // Over TLS a plain-text answer would be noise to the client: just close.
      if (opts.tls) socket.destroy();
      else {
        socket.end(problem(503, 'Service Unavailable', REFUSED[why], 'Retry-After: 1\r\n'));
        // It no longer counts against any cap: a client that never closes its side must not keep it.
        setTimeout(() => socket.destroy(), 1000).unref();
      }
    },
  });

  // No bytes for idle_timeout. A request whose body stalled is told 408; an idle keep-alive
  // connection, or one that never sent a whole header, closes quietly (nobody waits for an answer),
  // as does one whose reader stopped reading a response.
  server.on('timeout', (socket: Socket) => {
    const incoming = (socket as Socket & { parser?: { incoming?: { complete: boolean } } }).parser?.incoming;
    const response = (socket as Socket & { _httpMessage?: { headersSent: boolean } })._httpMessage;
    if (incoming && !incoming.complete && !response?.headersSent && socket.writable) {
      socket.end(problem(408, 'Request Timeout', 'the request body stalled; the connection was idle too long'));
      setTimeout(() => socket.destroy(), 1000).unref();
    } else socket.destroy();
  });
}

/**
 * Graceful close in bounded time: once close() begins, a keep-alive connection is closed as soon as
 * its request is answered (Node closes only those idle at that moment; the others would linger for
 * their keep-alive timeout), and whatever is still open after graceMs (a stalled upload, a live
 * stream) is cut, so a SIGTERM ends the process well within a supervisor's 10 s.
 */
export function closeInBoundedTime(server: Server, graceMs: number): () => void {
  return () => {
    const idle = setInterval(() => server.closeIdleConnections(), 50);
    const cut = setTimeout(() => server.closeAllConnections(), graceMs);
    server.once('close', () => {
      clearInterval(idle);
      clearTimeout(cut);
    });
  };
}
