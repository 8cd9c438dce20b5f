// The MCP gateway's way to an MCP server: undici keep-alive pools (a server's CA when it has one,
// verification always on). The server receives a fixed list of the client's protocol headers,
// Gatehouse's credential for it and the identity assertion: never the client's Authorization or
// cookies (no token passthrough). An answer is streamed back as it comes (an SSE stream of progress
// and results included) and cut when the principal's session ends (the kill switch, DELETE, expiry).
import { setMaxListeners } from 'node:events';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { Agent } from 'undici';
import { ASSERTION_HEADER } from '../../apps/app-assertion.js';
import type { ResourceRecord } from '../../resources/resource-service.js';
import { downstreamHeaders } from '../common/http-headers.js';
import { relay } from '../common/relay.js';
import { rpcError } from './mcp-messages.js';

/** What the client may say to the server: the protocol's own headers, nothing else. */
const PASSED = [
  'content-type',
  'accept',
  'mcp-protocol-version',
  'mcp-session-id',
  'mcp-method',
  'mcp-name',
  'last-event-id',
];

export interface UpstreamAnswer {
  status: number;
  contentType: string;
  headers: Record<string, string | string[]>;
  body: string;
}

const MAX_LIST = 8 * 1024 * 1024;

export function createMcpUpstream() {
  // One Agent per CA (undici pools connections per origin inside it); servers without a CA share one.
  const pools = new Map<string, Agent>();

  function agentFor(app: ResourceRecord): Agent {
    const ca = app.app?.ca_pem ?? '';
    let pool = pools.get(ca);
    if (!pool) {
      pool = new Agent({
        keepAliveTimeout: 10_000,
        connect: ca ? { ca, rejectUnauthorized: true } : { rejectUnauthorized: true },
        bodyTimeout: 0, // a tool may stream for a long time; the session's end cuts it
        headersTimeout: 120_000,
      });
      pools.set(ca, pool);
    }
    return pool;
  }

  function request(
    app: ResourceRecord,
    method: string,
    headers: Record<string, string>,
    body: Buffer | undefined,
    signal: AbortSignal,
  ) {
    const uri = new URL(app.uri as string);
    return agentFor(app).request({
      origin: uri.origin,
      path: `${uri.pathname}${uri.search}`,
      method: method as 'POST',
      headers,
      ...(body ? { body } : {}),
      signal,
    });
  }

  /** Aborted when the client goes away or the session ends, whichever first. */
  function linked(res: ServerResponse, session: AbortSignal): AbortController {
    const abort = new AbortController();
    const stop = () => abort.abort();
    // One listener per request on the session's signal, removed when the request is over (a
    // long-lived session serves many calls).
    res.on('close', () => {
      session.removeEventListener('abort', stop);
      if (!res.writableFinished) stop();
    });
    setMaxListeners(0, session); // as many at once as the session has calls in flight
    if (session.aborted) stop();
    else session.addEventListener('abort', stop, { once: true });
    return abort;
  }

  const unreachable = (res: ServerResponse, app: ResourceRecord, error: unknown) => {
    if (res.headersSent) return res.destroy();
    res.writeHead(502, { 'content-type': 'application/json' });
    res.end(rpcError(null, -32603, `gatehouse: cannot reach ${app.name} (${(error as Error).message})`));
  };

  return {
    headersFor(
      client: IncomingHttpHeaders,
      credential: Record<string, string>,
      assertion: string,
    ): Record<string, string> {
      const out: Record<string, string> = {};
      for (const name of PASSED) {
        const v = client[name];
        if (v !== undefined) out[name] = Array.isArray(v) ? v.join(', ') : v;
      }
      return { ...out, ...credential, [ASSERTION_HEADER]: assertion };
    },

    /** Forwards one request and streams the answer back; bytes: the answer's body size. */
    async send(
      app: ResourceRecord,
      req: IncomingMessage,
      res: ServerResponse,
      headers: Record<string, string>,
      body: Buffer | undefined,
      session: AbortSignal,
    ): Promise<{ status: number; bytes: number; cut?: string }> {
      const abort = linked(res, session);
      let bytes = 0;
      let answer: Awaited<ReturnType<Agent['request']>>;
      try {
        answer = await request(app, req.method ?? 'POST', headers, body, abort.signal);
      } catch (error) {
        if (session.aborted) {
          res.destroy();
          return { status: 499, bytes, cut: 'session ended' };
        }
        if (!abort.signal.aborted) unreachable(res, app, error);
        return { status: 502, bytes };
      }
      res.writeHead(answer.statusCode, downstreamHeaders(answer.headers));
      answer.body.on('data', (c: Buffer) => (bytes += c.length));
      try {
        await relay(answer.body, res, { unknownLength: answer.headers['content-length'] === undefined });
      } catch {
        res.destroy();
        return { status: answer.statusCode, bytes, ...(session.aborted ? { cut: 'session ended' } : {}) };
      }
      return { status: answer.statusCode, bytes };
    },

    /** A whole (bounded) answer, for tools/list to be filtered; undefined once answered with an error. */
    async buffered(
      app: ResourceRecord,
      res: ServerResponse,
      headers: Record<string, string>,
      body: Buffer,
      session: AbortSignal,
    ): Promise<UpstreamAnswer | undefined> {
      const abort = linked(res, session);
      try {
        const answer = await request(app, 'POST', headers, body, abort.signal);
        const chunks: Buffer[] = [];
        let size = 0;
        for await (const chunk of answer.body) {
          size += (chunk as Buffer).length;
          if (size > MAX_LIST) throw new Error('the tool list is larger than 8 MiB');
          chunks.push(chunk as Buffer);
        }
        const all = downstreamHeaders(answer.headers);
        delete all['content-length'];
        return {
          status: answer.statusCode,
          contentType: String(answer.headers['content-type'] ?? ''),
          headers: all,
          body: Buffer.concat(chunks).toString('utf8'),
        };
      } catch (error) {
        if (abort.signal.aborted) res.destroy();
        else unreachable(res, app, error);
        return undefined;
      }
    },

    async close(): Promise<void> {
      await Promise.allSettled([...pools.values()].map((a) => a.destroy()));
      pools.clear();
    },
  };
}
