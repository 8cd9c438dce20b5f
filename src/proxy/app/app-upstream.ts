// The app door's way to an app's uri: one undici Agent per app (keep-alive, its own CA when the app
// has one; TLS verification always on), plain requests streamed both ways with backpressure (a large
// upload is never held whole, an SSE or chunked answer is passed on as it comes), and WebSocket
// upgrades tunnelled byte for byte once the app has switched protocols.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Duplex, Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Agent, type Dispatcher } from 'undici';
import type { ResourceRecord } from '../../resources/resource-service.js';
import { forwardHttp } from '../common/http-forward.js';
import { downstreamHeaders } from '../common/http-headers.js';

export interface Forwarded {
  status: number;
  bytesIn: number;
  bytesOut: number;
  /** Why the app could not be reached (the request's event records it as a failure). */
  error?: string;
}

/** OpenSSL's verification failures, as Node reports them on the socket's error (`code`). */
const UNTRUSTED = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
  'CERT_SIGNATURE_FAILURE',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/**
 * Why an app could not be reached, said so an administrator knows what to change: a certificate
 * that does not verify names ca_pem (the usual cause is an internal CA), anything else the error.
 */
export function unreachableReason(app: Pick<ResourceRecord, 'name' | 'app'>, error: Error): string {
  const code = (error as NodeJS.ErrnoException).code ?? '';
  if (UNTRUSTED.has(code)) {
    const hint = app.app?.ca_pem
      ? 'it is not signed by the CA in app.ca_pem, or does not name the host of the uri'
      : 'set app.ca_pem to the CA that signed it';
    return `its certificate is not trusted (${error.message}): ${hint}`;
  }
  return error.message;
}

/** The agent for an app, replaced when its uri or CA changes. */
export function createAppUpstreams() {
  const agents = new Map<string, { key: string; agent: Agent; origin: string; prefix: string }>();

  function upstreamOf(app: ResourceRecord) {
    const key = `${app.uri}\n${app.app?.ca_pem ?? ''}`;
    const held = agents.get(app.id);
    if (held?.key === key) return held;
    void held?.agent.close();
    const agent = new Agent({
      keepAliveTimeout: 10_000,
      connect: { ...(app.app?.ca_pem ? { ca: app.app.ca_pem } : {}), rejectUnauthorized: true },
      // Streaming answers (SSE, a long download) may pause for a while; the client's own timeouts apply.
      bodyTimeout: 0,
      headersTimeout: 60_000,
    });
    // The uri parsed once per agent, not per request.
    const base = new URL(app.uri as string);
    const entry = { key, agent, origin: base.origin, prefix: base.pathname.replace(/\/$/, '') };
    agents.set(app.id, entry);
    return entry;
  }

  /** The app's agent, origin and the request's path under the uri's own path. */
  function target(app: ResourceRecord, pathAndQuery: string): { agent: Agent; origin: string; path: string } {
    const { agent, origin, prefix } = upstreamOf(app);
    return { agent, origin, path: `${prefix}${pathAndQuery}` };
  }

  return {
    /** Forwards one request; resolves once the answer has been sent (or the client went away). */
    async forward(
      app: ResourceRecord,
      req: IncomingMessage,
      res: ServerResponse,
      headers: Record<string, string | string[]>,
      onUnreachable: (message: string) => void,
    ): Promise<Forwarded> {
      const { agent, origin, path } = target(app, req.url ?? '/');
      let bytesIn = 0;
      const hasBody = req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined;
      // Counted as undici pulls it (a 'data' listener would set it flowing ahead of undici).
      async function* counted() {
        for await (const chunk of req) {
          bytesIn += (chunk as Buffer).length;
          yield chunk as Buffer;
        }
      }
      const done = await forwardHttp(
        agent,
        {
          origin,
          path,
          method: (req.method ?? 'GET') as 'GET',
          headers,
          body: hasBody ? Readable.from(counted(), { objectMode: false }) : null,
        },
        res,
        downstreamHeaders,
      );
      if (done.status === 0) {
        if (done.gone) return { status: 499, bytesIn, bytesOut: 0 };
        const reason = unreachableReason(app, done.error ?? new Error('no answer'));
        if (!res.headersSent) onUnreachable(`gatehouse: cannot reach ${app.name}: ${reason}`);
        return { status: 502, bytesIn, bytesOut: 0, error: reason.slice(0, 512) };
      }
      // An answer cut short (upstream failure, client gone) was cut for the client too (http-forward).
      return { status: done.status, bytesIn, bytesOut: done.bytesOut };
    },

    /**
     * A WebSocket (or other) upgrade: asked of the app with the client's handshake headers; on its
     * 101 the client gets the app's answer and the two sockets are joined. Resolves with the status
     * and, for a 101, once the tunnel closed.
     */
    async upgrade(
      app: ResourceRecord,
      req: IncomingMessage,
      socket: Duplex,
      head: Buffer,
      headers: Record<string, string | string[]>,
      onOpen: (close: () => void) => void,
    ): Promise<Forwarded> {
      const { agent, origin, path } = target(app, req.url ?? '/');
      const protocol = String(req.headers.upgrade ?? 'websocket');
      let upgraded: Dispatcher.UpgradeData;
      try {
        // An Agent picks its connection pool by origin (undici's types leave it out of upgrade's options).
        const options = { origin, path, method: 'GET', headers, protocol } as Dispatcher.UpgradeOptions;
        upgraded = await agent.upgrade(options);
      } catch (error) {
        const status = /status code (\d{3})/.exec((error as Error).message)?.[1];
        socket.end(`HTTP/1.1 ${status ?? 502} Bad Gateway\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
        const reason = status ? undefined : unreachableReason(app, error as Error).slice(0, 512);
        return { status: Number(status ?? 502), bytesIn: 0, bytesOut: 0, ...(reason ? { error: reason } : {}) };
      }
      const up = upgraded.socket;
      const lines = [`HTTP/1.1 101 Switching Protocols`];
      for (const [name, value] of Object.entries(upgraded.headers)) {
        for (const v of Array.isArray(value) ? value : [value]) if (v !== undefined) lines.push(`${name}: ${v}`);
      }
      socket.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (head.length) up.write(head);
      let bytesIn = head.length;
      let bytesOut = 0;
      socket.on('data', (c: Buffer) => (bytesIn += c.length));
      up.on('data', (c: Buffer) => (bytesOut += c.length));
      const close = () => {
        socket.destroy();
        up.destroy();
      };
      onOpen(close);
      await Promise.allSettled([pipeline(socket, up), pipeline(up, socket)]);
      close();
      return { status: 101, bytesIn, bytesOut };
    },

    async close(): Promise<void> {
      await Promise.allSettled([...agents.values()].map((a) => a.agent.destroy()));
      agents.clear();
    },
  };
}
