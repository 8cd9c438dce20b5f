// One plain Kubernetes API request forwarded upstream: the client's headers minus its credential,
// hop-by-hop headers and any impersonation, plus Gatehouse's credential and the impersonation of
// the principal. Bodies and responses stream both ways with backpressure (watch, logs -f).
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { Agent, request } from 'node:https';
import { isIP } from 'node:net';
import type { KubeUpstream } from '../../resources/kube-upstream.js';
import type { KubeDecision } from './kube-access.js';
import {
  filterableRequest,
  filterBody,
  type ItemFilter,
  isJson,
  MAX_FILTERED_LIST_BYTES,
  watchFilter,
} from './kube-filter.js';

const tooLarge = `gatehouse: a filtered list larger than ${MAX_FILTERED_LIST_BYTES / 1024 / 1024} MiB is not read whole; page it (kubectl get --chunk-size, ?limit=)`;

import { sendStatus, sendText } from './kube-request.js';

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

// One keep-alive agent per opened upstream (openKubeUpstream returns the same object until the
// credential or address changes), with the CA and client identity built in: passed per request
// instead, they made Node's global agent build and hash a pool name holding the whole CA PEM on
// every request. A replaced upstream's agent goes with it; its idle sockets close as the server
// drops them. The address is parsed once per upstream too (a URL per request was measurable).
interface Target {
  agent: Agent;
  host: string;
  port: string | number;
  basePath: string;
  servername?: string;
}
const targets = new WeakMap<KubeUpstream, Target>();
function targetOf(upstream: KubeUpstream): Target {
  let target = targets.get(upstream);
  if (!target) {
    const base = new URL(upstream.url);
    const host = base.hostname.replace(/^\[|\]$/g, '');
    target = {
      agent: new Agent({
        keepAlive: true,
        ca: upstream.ca,
        ...(upstream.cert ? { cert: upstream.cert, key: upstream.key } : {}),
      }),
      host,
      port: base.port || 443,
      basePath: base.pathname.replace(/\/$/, ''),
      ...(isIP(host) ? {} : { servername: base.hostname }),
    };
    targets.set(upstream, target);
  }
  return target;
}
export const agentFor = (upstream: KubeUpstream): Agent => targetOf(upstream).agent;

/** Forwards; resolves with the upstream status code (502 when unreachable) once the response ended. */
export function forward(
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
  const headers: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || name.startsWith('impersonate-')) continue;
    headers[name] = value;
  }
  Object.assign(headers, upstreamHeaders(upstream, decision));
  if (filter) filterableRequest(headers);
  if (body) headers['content-length'] = body.length;
  return new Promise((resolve) => {
    const up = request(
      {
        host: target.host,
        port: target.port,
        path: `${target.basePath}${restPathAndQuery}`,
        method: req.method,
        headers,
        agent: target.agent,
        ...(target.servername === undefined ? {} : { servername: target.servername }),
      },
      (upRes) => {
        const out: OutgoingHttpHeaders = {};
        for (const [name, value] of Object.entries(upRes.headers)) {
          if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
        }
        const code = upRes.statusCode ?? 502;
        upRes.on('end', () => resolve(code));
        upRes.on('error', () => {
          res.destroy();
          resolve(code);
        });
        if (filter && code === 200 && !isJson(upRes.headers)) {
          // Nothing the proxy can read item by item is shown to a principal limited to some items.
          upRes.resume();
          sendStatus(res, 502, 'gatehouse: the API server answered a filtered list in a form other than JSON');
          return;
        }
        if (filter && code === 200 && !filter.watch) {
          const chunks: Buffer[] = [];
          let held = 0;
          let cut = false;
          upRes.on('data', (c: Buffer) => {
            held += c.length;
            if (held <= MAX_FILTERED_LIST_BYTES) chunks.push(c);
            else if (!cut) {
              cut = true;
              // Too large to read whole (or a stream that never ends): refuse it rather than hold it.
              chunks.length = 0;
              upRes.destroy();
              sendStatus(res, 502, tooLarge);
              resolve(502);
            }
          });
          upRes.on('end', () => {
            if (cut) return;
            const body = filterBody(Buffer.concat(chunks), filter.keep);
            res.writeHead(code, { ...out, 'content-length': body.length });
            res.end(body);
          });
          return;
        }
        if (filter && code === 200) delete out['content-length'];
        res.writeHead(code, out);
        // A watch (or logs -f) answers headers first and events later: send each as it comes. A
        // response of known length goes out with its headers in one write, so one TLS record:
        // flushing those alone cost a TLS write per request (8% of the proxy's CPU on a GET).
        if (upRes.headers['content-length'] === undefined) res.flushHeaders();
        if (filter && code === 200) {
          const events = watchFilter(filter.keep);
          events.on('error', () => {
            upRes.destroy();
            res.destroy();
          });
          upRes.pipe(events).pipe(res);
        } else upRes.pipe(res);
      },
    );
    up.on('error', (err) => {
      const message = `gatehouse: cannot reach the cluster's API server (${err.message})`;
      if (opts.discovery) sendText(res, 502, message);
      else sendStatus(res, 502, message);
      resolve(502);
    });
    // The client leaving (kubectl get -w interrupted) ends the upstream request too.
    res.on('close', () => {
      if (!res.writableFinished) {
        up.destroy();
        resolve(499);
      }
    });
    if (body) up.end(body);
    else req.pipe(up);
  });
}
