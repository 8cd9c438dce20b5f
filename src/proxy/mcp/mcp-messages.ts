// The MCP gateway's reading of what crosses it. A request body is one JSON-RPC message (batches are
// refused: the 2025-06-18 revision removed them, and a batch is where a second tools/call would hide
// behind a first), classified by the official SDK (classifyInboundRequest: the body against the
// MCP-Protocol-Version, Mcp-Method and Mcp-Name headers; a mismatch is rejected as the SDK's own
// servers reject it). Refusals are JSON-RPC errors that name the reason. A list answer (tools,
// resources, resource templates, prompts), JSON or an SSE stream (parsed by eventsource-parser, the
// SDK client's own parser), is rewritten with only the items the principal may use.
import { classifyInboundRequest } from '@modelcontextprotocol/server';
import { createParser, type EventSourceMessage } from 'eventsource-parser';

/** JSON-RPC error codes the gateway answers with (server-defined range; -32042: URL elicitation, 2025-11-25). */
export const MCP_FORBIDDEN = -32003;
export const URL_ELICITATION_REQUIRED = -32042;

export type RpcId = string | number | null;

export interface RpcRequest {
  id: RpcId;
  method: string;
  params: Record<string, unknown>;
  /** A notification (no id) gets no answer of its own. */
  notification: boolean;
}

export type Inbound =
  | { kind: 'request'; request: RpcRequest; revision: string | undefined }
  | { kind: 'other' }
  | { kind: 'reject'; status: number; code: number; message: string; id: RpcId };

const header = (h: string | string[] | undefined): string | undefined => (Array.isArray(h) ? h[0] : h);

/** What a POST body is, after the SDK's checks of body against headers. */
export function classifyPost(body: unknown, headers: Record<string, string | string[] | undefined>): Inbound {
  const idOf = (b: unknown): RpcId =>
    b && typeof b === 'object' && 'id' in b ? ((b as { id: RpcId }).id ?? null) : null;
  if (Array.isArray(body))
    return {
      kind: 'reject',
      status: 400,
      code: -32600,
      message: 'gatehouse: JSON-RPC batches are not accepted',
      id: null,
    };
  const method = header(headers['mcp-method']);
  const name = header(headers['mcp-name']);
  const version = header(headers['mcp-protocol-version']);
  const outcome = classifyInboundRequest({
    httpMethod: 'POST',
    body,
    ...(version !== undefined ? { protocolVersionHeader: version } : {}),
    ...(method !== undefined ? { mcpMethodHeader: method } : {}),
    ...(name !== undefined ? { mcpNameHeader: name } : {}),
  });
  if (outcome.kind === 'reject')
    return { kind: 'reject', status: outcome.httpStatus, code: outcome.code, message: outcome.message, id: idOf(body) };
  const b = body as { id?: RpcId; method?: unknown; params?: unknown };
  if (typeof b?.method !== 'string') return { kind: 'other' }; // a response to the server's own request
  // A legacy request may still carry the headers: they must say what the body says.
  if (method !== undefined && method.trim() !== b.method)
    return {
      kind: 'reject',
      status: 400,
      code: -32600,
      message: `gatehouse: the Mcp-Method header names ${method.trim().slice(0, 64)} but the body ${b.method.slice(0, 64)}`,
      id: idOf(body),
    };
  const params = b.params && typeof b.params === 'object' ? (b.params as Record<string, unknown>) : {};
  if (name !== undefined && b.method === 'tools/call' && typeof params.name === 'string') {
    const plain = name.trim();
    if (!plain.startsWith('=?base64?') && plain !== params.name)
      return {
        kind: 'reject',
        status: 400,
        code: -32600,
        message: 'gatehouse: the Mcp-Name header does not name the body’s tool',
        id: idOf(body),
      };
  }
  const revision = outcome.kind === 'modern' ? outcome.classification.revision : version;
  return {
    kind: 'request',
    request: { id: b.id ?? null, method: b.method, params, notification: !('id' in (b as object)) },
    revision,
  };
}

export function rpcError(id: RpcId, code: number, message: string, data?: unknown): string {
  return JSON.stringify({ jsonrpc: '2.0', id, error: { code, message, ...(data !== undefined ? { data } : {}) } });
}

/** The list answers the gateway filters: where the items are, what names one for policy, its event. */
export const LISTS = {
  'tools/list': { field: 'tools', kind: 'tool', key: 'name', event: 'mcp.tools.listed' },
  'resources/list': { field: 'resources', kind: 'resource', key: 'uri', event: 'mcp.resources.listed' },
  // A template is listed when its URI template, as text, matches a glob; what is read from it is
  // judged by its concrete URI.
  'resources/templates/list': {
    field: 'resourceTemplates',
    kind: 'resource',
    key: 'uriTemplate',
    event: 'mcp.resources.listed',
  },
  'prompts/list': { field: 'prompts', kind: 'prompt', key: 'name', event: 'mcp.prompts.listed' },
} as const;
export type ListSpec = (typeof LISTS)[keyof typeof LISTS];
export const listOf = (method: string): ListSpec | undefined =>
  Object.hasOwn(LISTS, method) ? LISTS[method as keyof typeof LISTS] : undefined;

/**
 * A request that uses one resource (by URI) or prompt (by name): reading, subscribing, getting, and
 * completing an argument of one. A name that is missing or not a string is '' (matched by no glob).
 */
export function namedTarget(rpc: RpcRequest): { kind: 'resource' | 'prompt'; name: string } | undefined {
  const str = (v: unknown) => (typeof v === 'string' ? v : '');
  const p = rpc.params;
  if (rpc.method === 'resources/read' || rpc.method === 'resources/subscribe')
    return { kind: 'resource', name: str(p.uri) };
  if (rpc.method === 'prompts/get') return { kind: 'prompt', name: str(p.name) };
  if (rpc.method === 'completion/complete') {
    const ref = (p.ref ?? {}) as { type?: unknown; name?: unknown; uri?: unknown };
    return ref.type === 'ref/prompt'
      ? { kind: 'prompt', name: str(ref.name) }
      : { kind: 'resource', name: str(ref.uri) };
  }
  return undefined;
}

type ListedCounts = { shown: number; hidden: number };

/** Filters result[field] of a JSON-RPC response in place; counts what was shown and hidden. */
function filterMessage(message: unknown, list: ListSpec, keep: (name: string) => boolean, counts: ListedCounts) {
  const result = (message as { result?: Record<string, unknown> })?.result;
  const items = result?.[list.field];
  if (!result || !Array.isArray(items)) return message;
  const kept = items.filter((t) => typeof t?.[list.key] === 'string' && keep(t[list.key]));
  counts.shown += kept.length;
  counts.hidden += items.length - kept.length;
  return { ...(message as object), result: { ...result, [list.field]: kept } };
}

/**
 * A list answer with only the items `keep` keeps: JSON rewritten, an SSE stream's events
 * re-emitted with their data rewritten. Anything unreadable is dropped, never passed on unfiltered.
 */
export function filterList(
  body: string,
  contentType: string,
  list: ListSpec,
  keep: (name: string) => boolean,
): { body: string; counts: ListedCounts } {
  const counts: ListedCounts = { shown: 0, hidden: 0 };
  if (!contentType.includes('text/event-stream')) {
    try {
      return { body: JSON.stringify(filterMessage(JSON.parse(body), list, keep, counts)), counts };
    } catch {
      return { body: '', counts };
    }
  }
  const out: string[] = [];
  const emit = (e: EventSourceMessage) => {
    let data = '';
    if (e.data !== '')
      try {
        data = JSON.stringify(filterMessage(JSON.parse(e.data), list, keep, counts));
      } catch {
        return;
      }
    out.push(`${e.event ? `event: ${e.event}\n` : ''}${e.id ? `id: ${e.id}\n` : ''}data: ${data}\n\n`);
  };
  const parser = createParser({ onEvent: emit });
  parser.feed(body);
  parser.feed('\n\n');
  return { body: out.join(''), counts };
}
