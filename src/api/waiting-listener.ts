// What a proxy's web address answers while the proxy waits for the auth tier at start: 503 on
// /webapi/ping (the readiness a load balancer or an orchestrator checks; "waiting", where a ready
// proxy says "ok") and on everything else, so it is seen up but sent nothing. The real web listener
// takes the port over once the proxy can serve.
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { type ConnectionLimits, limitConnections, timeoutOptions } from './connection-limits.js';

export interface WaitingListener {
  /** The port it listens on (the one configured, or the one the system chose for port 0). */
  port: number;
  close(): Promise<void>;
}

function answer(opts: { version: string; startedAt: number }) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const ping = (req.url ?? '/').split('?')[0] === '/webapi/ping';
    const body = ping
      ? { status: 'waiting', version: opts.version, uptime_seconds: Math.floor((Date.now() - opts.startedAt) / 1000) }
      : {
          type: 'urn:gatehouse:error:unavailable',
          title: 'Service Unavailable',
          status: 503,
          code: 'unavailable',
          detail: 'this proxy is waiting for the auth tier (auth_servers) to answer',
        };
    const text = JSON.stringify(body);
    res.writeHead(503, {
      'content-type': `${ping ? 'application/json' : 'application/problem+json'}; charset=utf-8`,
      'content-length': Buffer.byteLength(text),
      'retry-after': '5',
    });
    res.end(text);
  };
}

export async function serveWhileWaiting(opts: {
  host: string;
  port: number;
  https?: { cert: Buffer; key: Buffer };
  limits: ConnectionLimits;
  version: string;
  startedAt: number;
}): Promise<WaitingListener> {
  const timeouts = timeoutOptions(opts.limits);
  const serverOptions = { ...timeouts.serverOptions, requestTimeout: timeouts.requestTimeout };
  const server: Server = opts.https
    ? createHttpsServer({ ...opts.https, ...serverOptions }, answer(opts))
    : createHttpServer(serverOptions, answer(opts));
  server.keepAliveTimeout = timeouts.keepAliveTimeout;
  server.setTimeout(timeouts.connectionTimeout);
  limitConnections(server, opts.limits, { tls: opts.https !== undefined });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  let closed: Promise<void> | undefined;
  return {
    port: (server.address() as { port: number }).port,
    close: () =>
      (closed ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      })),
  };
}
