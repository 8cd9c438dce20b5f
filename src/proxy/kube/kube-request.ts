// What a Kubernetes API request asks for, read from its path (the apiserver's own request-info
// rules, reduced to what the proxy audits and routes), the cluster it is routed to, the data of its
// kube.request event, and the Status objects it answers refusals with, so kubectl prints them as it
// prints the apiserver's own errors.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

export interface KubeRequestInfo {
  /** get, list, watch, create, update, patch, delete, deletecollection; or the path for discovery. */
  verb: string;
  /** Discovery (/api, /apis, /version, /openapi): counted, not logged one by one. */
  discovery: boolean;
  apiGroup?: string;
  /** The group's version in the path (/apis/{group}/{version}/…); its discovery document says the kinds' scope. */
  apiVersion?: string;
  resource?: string;
  subresource?: string;
  namespace?: string;
  name?: string;
}

const VERBS: Record<string, [named: string, collection: string]> = {
  GET: ['get', 'list'],
  HEAD: ['get', 'list'],
  POST: ['create', 'create'],
  PUT: ['update', 'update'],
  PATCH: ['patch', 'patch'],
  DELETE: ['delete', 'deletecollection'],
};

/**
 * `?watch` as the API server reads it when it decides the verb: present with any first value but
 * `false` or `0` (any case) is a watch — `?watch=yes`, `?watch=` and `?watch` too. Reading fewer
 * values as a watch would let a role without `watch` open one.
 */
export function isWatch(query: URLSearchParams): boolean {
  const first = query.get('watch');
  return first !== null && !['false', '0'].includes(first.toLowerCase());
}

/** `path` is the part after /clusters/<id>, without the query. */
export function requestInfo(method: string, path: string, query: URLSearchParams): KubeRequestInfo {
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  const discovery = { verb: method.toLowerCase(), discovery: true };
  let rest: string[];
  let apiGroup: string | undefined;
  let apiVersion: string | undefined;
  if (parts[0] === 'api' && parts.length >= 2) rest = parts.slice(2);
  else if (parts[0] === 'apis' && parts.length >= 3) {
    apiGroup = parts[1];
    apiVersion = parts[2];
    rest = parts.slice(3);
  } else return discovery;
  if (rest.length === 0) return discovery;
  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  const [resource, name, subresource] = rest;
  // GET /api/v1/namespaces/dev names the namespace itself.
  const named = name !== undefined || (resource === 'namespaces' && namespace !== undefined && rest.length === 1);
  const pair = VERBS[method] ?? [method.toLowerCase(), method.toLowerCase()];
  let verb = named ? pair[0] : pair[1];
  if (verb === 'list' && isWatch(query)) verb = 'watch';
  return {
    verb,
    discovery: false,
    ...(apiGroup ? { apiGroup } : {}),
    ...(apiVersion ? { apiVersion } : {}),
    ...(resource ? { resource } : {}),
    ...(subresource ? { subresource } : {}),
    ...(namespace ? { namespace } : {}),
    ...(name ? { name } : {}),
  };
}

const REASONS: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  502: 'ServiceUnavailable',
  503: 'ServiceUnavailable',
};

export function statusBody(code: number, message: string): string {
  return JSON.stringify({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason: REASONS[code] ?? 'InternalError',
    code,
  });
}

/** Answers a plain request with a Kubernetes Status. */
export function sendStatus(res: ServerResponse, code: number, message: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = statusBody(code, message);
  res.writeHead(code, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/**
 * Answers in plain text. kubectl's discovery reads an error's body only when it is text (client-go
 * shows a JSON Status there as `an error on the server ("unknown")`): a cluster unreachable from
 * the proxy, a wrong CA above all, must say so where the user looks.
 */
export function sendText(res: ServerResponse, code: number, message: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(code, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(message) });
  res.end(message);
}

/** Answers an upgrade request (exec, SPDY) on its raw socket with a Kubernetes Status, then closes. */
export function sendStatusOnSocket(socket: Duplex, code: number, message: string): void {
  const body = statusBody(code, message);
  socket.end(
    `HTTP/1.1 ${code} ${REASONS[code] ?? 'Error'}\r\ncontent-type: application/json\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

const PREFIX = /^\/clusters\/([a-z]+_[0-9a-z]{1,40})(\/[^?]*)?(\?.*)?$/;

export interface Routed {
  clusterId: string;
  restPath: string;
  query: string;
  info: KubeRequestInfo;
}

export function route(req: IncomingMessage): Routed | undefined {
  const m = PREFIX.exec(req.url ?? '');
  if (!m) return undefined;
  const restPath = m[2] ?? '/';
  const query = m[3] ?? '';
  return {
    clusterId: m[1] as string,
    restPath,
    query,
    info: requestInfo(req.method ?? 'GET', restPath, new URLSearchParams(query.slice(1))),
  };
}

/**
 * A kube.request's data, fields in the documented order. Set one by one: a spread of `{}` for each
 * absent field allocated and copied an object per field on every request.
 */
export function requestData(
  routed: Routed,
  code: number,
  durationMs: number,
  /** Who it went upstream as: the allowed decision's user and groups. */
  upstreamAs: { user: string; groups: string[] } | undefined,
  reason: string | undefined,
): Record<string, unknown> {
  const { info } = routed;
  const data: Record<string, unknown> = { verb: info.verb };
  if (info.apiGroup) data.api_group = info.apiGroup;
  if (info.resource) data.resource = info.resource;
  if (info.subresource) data.subresource = info.subresource;
  if (info.namespace) data.namespace = info.namespace;
  if (info.name) data.name = info.name;
  data.path = routed.restPath.slice(0, 512);
  data.response_code = code;
  data.duration_ms = durationMs;
  if (upstreamAs) {
    data.kube_user = upstreamAs.user;
    data.kube_groups = upstreamAs.groups;
  }
  if (reason) data.reason = reason;
  return data;
}
