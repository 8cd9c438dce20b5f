// One plain Kubernetes API request forwarded upstream: the client's headers minus its credential,
// hop-by-hop headers and any impersonation, plus Gatehouse's credential and the impersonation of
// the principal. Bodies and responses stream both ways with backpressure (watch, logs -f).
//
// Plain requests go through an undici Pool per upstream (common/http-forward.ts writes each chunk
// straight to the client): Node's https client with pipe() both ways cost ~40 % of a proxied GET's
// CPU in bench:kube's profile (ClientRequest, the agent's socket bookkeeping, two pipes and their
// listeners). Upgrades (exec over WebSocket, port-forward) and the scope lookups keep Node's https
// Agent below; both clients verify the API server against the cluster's CA.
import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { Agent } from 'node:https';
import { isIP } from 'node:net';
import { type Dispatcher, Pool } from 'undici';
import type { KubeUpstream } from '../../resources/kube-upstream.js';
import { forwardHttp } from '../common/http-forward.js';
import type { KubeDecision } from './kube-access.js';
import {
  filterableRequest,
  filterBody,
  type ItemFilter,
  isJson,
  MAX_FILTERED_LIST_BYTES,
  watchFilter,
} from './kube-filter.js';
import { sendStatus, sendText } from './kube-request.js';

const tooLarge = `gatehouse: a filtered list larger than ${MAX_FILTERED_LIST_BYTES / 1024 / 1024} MiB is not read whole; page it (kubectl get --chunk-size, ?limit=)`;

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
  'host',
  'authorization',
]);

type Allowed = Extract<KubeDecision, { allowed: true }>;

/** Gatehouse's credential (a token; a client certificate goes in the TLS options) and impersonation. */
export function upstreamHeaders(
  upstream: KubeUpstream,
  decision: Pick<Allowed, 'user' | 'groups'>,
): OutgoingHttpHeaders {
  return {
    ...(upstream.token ? { authorization: `Bearer ${upstream.token}` } : {}),
    'impersonate-user': decision.user,
    'impersonate-group': decision.groups,
  };
}

/** The API server's answer headers the client gets: all but the hop-by-hop ones. */
function downstreamOf(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
  }
  return out;
}

// One undici Pool (plain requests) and one keep-alive https Agent (upgrades, scope lookups) per
// opened upstream (openKubeUpstream returns the same object until the credential or address
// changes), with the CA and client identity built in, and the address parsed once. A replaced
// upstream's clients go with it; their idle sockets close as the keep-alive times out.
interface Target {
  pool: Pool;
  agent: Agent;
  basePath: string;
}
const targets = new WeakMap<KubeUpstream, Target>();
function targetOf(upstream: KubeUpstream): Target {
  let target = targets.get(upstream);
  if (!target) {
    const base = new URL(upstream.url);
    const host = base.hostname.replace(/^\[|\]$/g, '');
    const identity = upstream.cert ? { cert: upstream.cert, key: upstream.key } : {};
    const servername = isIP(host) ? {} : { servername: host };
    target = {
      pool: new Pool(base.origin, {
        // TLS verification stays on: the cluster's CA, and the API server's name when it has one.
        connect: { ca: upstream.ca, rejectUnauthorized: true, ...identity, ...servername },
        // A watch or logs -f may stay quiet for long, and Node's client had no deadline either:
        // the client's own timeouts (and the API server's) end those.
        headersTimeout: 0,
        bodyTimeout: 0,
        keepAliveTimeout: 30_000,
      }),
      agent: new Agent({ keepAlive: true, ca: upstream.ca, ...identity }),
      basePath: base.pathname.replace(/\/$/, ''),
    };
    targets.set(upstream, target);
  }
  return target;
}
export const agentFor = (upstream: KubeUpstream): Agent => targetOf(upstream).agent;

/** Answers 502 for an API server that could not be reached (in text to discovery: kubectl shows only that). */
function unreachable(res: ServerResponse, discovery: boolean | undefined, err: Error | undefined): number {
  const message = `gatehouse: cannot reach the cluster's API server (${err?.message ?? 'no answer'})`;
  if (discovery) sendText(res, 502, message);
  else sendStatus(res, 502, message);
  return 502;
}

/** Forwards; resolves with the upstream status code (502 when unreachable) once the response ended. */
export async function forward(
  req: IncomingMessage,
  res: ServerResponse,
  upstream: KubeUpstream,
  decision: Allowed,
  restPathAndQuery: string,
  opts: {
    /** Set when kube_resources reach only part of the list or watch: the items they do not reach are dropped. */
    filter?: { keep: ItemFilter; watch: boolean };
    /** The request body when the proxy has read it already (a create decided by name). */
    body?: Buffer;
    /** A discovery request (/api, /apis): kubectl shows only a text answer to it, never a Status. */
    discovery?: boolean;
  } = {},
): Promise<number> {
  const { filter, body } = opts;
  const target = targetOf(upstream);
  const headers: Record<string, string | string[]> = {};
  for (const name in req.headers) {
    const value = req.headers[name];
    if (value === undefined || HOP_BY_HOP.has(name) || name.startsWith('impersonate-')) continue;
    headers[name] = value;
  }
  Object.assign(headers, upstreamHeaders(upstream, decision));
  if (filter) filterableRequest(headers);
  if (body) headers['content-length'] = String(body.length);
  // A request without a length or chunked framing has no body (a GET): none is sent upstream.
  const hasBody = req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined;
  const options: Dispatcher.DispatchOptions = {
    path: `${target.basePath}${restPathAndQuery}`,
    method: (req.method ?? 'GET') as Dispatcher.HttpMethod,
    headers,
    body: body ?? (hasBody ? req : null),
  };
  if (!filter) {
    const done = await forwardHttp(target.pool, options, res, downstreamOf);
    // The client leaving (kubectl get -w interrupted) ended the upstream request too (http-forward).
    if (done.gone) return 499;
    return done.status !== 0 ? done.status : unreachable(res, opts.discovery, done.error);
  }
  return forwardFiltered(target.pool, options, res, filter, (err) => unreachable(res, opts.discovery, err));
}

/**
 * A list or watch kube_resources reach only part of: a list is read whole (up to
 * MAX_FILTERED_LIST_BYTES) and sent without the items they do not reach; a watch's events are
 * filtered one by one as they stream. Rarer than a plain request, so undici's body stream is fine here.
 */
function forwardFiltered(
  pool: Pool,
  options: Dispatcher.DispatchOptions,
  res: ServerResponse,
  filter: { keep: ItemFilter; watch: boolean },
  unreachable: (err: Error) => number,
): Promise<number> {
  return new Promise((resolve) => {
    const abort = new AbortController();
    let answered = false;
    // The client leaving (kubectl get -w interrupted) ends the upstream request too.
    res.on('close', () => {
      if (!res.writableFinished) {
        abort.abort();
        resolve(499);
      }
    });
    pool.request({ ...options, signal: abort.signal }).then(
      (upRes) => {
        answered = true;
        const out = downstreamOf(upRes.headers);
        const code = upRes.statusCode;
        const body = upRes.body;
        body.on('end', () => resolve(code));
        body.on('error', () => {
          res.destroy();
          resolve(code);
        });
        if (code === 200 && !isJson(upRes.headers as IncomingHttpHeaders)) {
          // Nothing the proxy can read item by item is shown to a principal limited to some items.
          body.resume();
          sendStatus(res, 502, 'gatehouse: the API server answered a filtered list in a form other than JSON');
          return;
        }
        if (code === 200 && !filter.watch) {
          const chunks: Buffer[] = [];
          let held = 0;
          let cut = false;
          body.on('data', (c: Buffer) => {
            held += c.length;
            if (held <= MAX_FILTERED_LIST_BYTES) chunks.push(c);
            else if (!cut) {
              cut = true;
              // Too large to read whole (or a stream that never ends): refuse it rather than hold it.
              chunks.length = 0;
              body.destroy();
              sendStatus(res, 502, tooLarge);
              resolve(502);
            }
          });
          body.on('end', () => {
            if (cut) return;
            const filtered = filterBody(Buffer.concat(chunks), filter.keep);
            res.writeHead(code, { ...out, 'content-length': filtered.length });
            res.end(filtered);
          });
          return;
        }
        if (code === 200) delete out['content-length'];
        res.writeHead(code, out);
        // A watch answers headers first and events later: its headers go at once.
        if (upRes.headers['content-length'] === undefined) res.flushHeaders();
        if (code === 200) {
          const events = watchFilter(filter.keep);
          events.on('error', () => {
            body.destroy();
            res.destroy();
          });
          body.pipe(events).pipe(res);
        } else body.pipe(res);
      },
      (err: Error) => {
        if (answered || res.destroyed) return resolve(499);
        resolve(unreachable(err));
      },
    );
  });
}
