// The MCP gateway: requests to an MCP server's host (an app with protocol "mcp"; host-routing.ts
// sends them here). Each request is checked in order, and nothing reaches the server before all hold:
//   metadata    GET /.well-known/oauth-protected-resource<path>: RFC 9728, unauthenticated
//   credential  a Gatehouse bearer token (an agent's credential, a person's token); else 401 naming
//               the metadata (WWW-Authenticate: Bearer resource_metadata=…)
//   access      the one access checker: the server must be selected by the principal's roles
//   session     the bearer token's app session (door kit: the guard, DELETE, the kill switch end it)
//   message     one JSON-RPC message, headers matching the body (mcp-messages.ts)
//   tools/call  the tool and its arguments through the access checker; approval if a role asks
//   resources/read|subscribe, prompts/get, completion/complete
//               the resource (URI) or prompt (name) through the access checker (mcp_resources,
//               mcp_prompts), refused with a JSON-RPC error naming why, audited
//   */list      tools, resources, resource templates and prompts: answered with what the
//               principal may use only
// The server receives Gatehouse's credential for it (sealed at registration) and the identity
// assertion, never the client's token. Calls, reads and lists are audited (mcp.tool.call,
// mcp.resource.read, mcp.prompt.get, mcp.*.listed).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { GatehouseError } from '../../lib/errors.js';
import type { ResourceRecord } from '../../resources/resource-service.js';
import { createAnsweredRequests } from '../common/answered-requests.js';
import { answer } from '../common/http-answers.js';
import { createAppSessions } from '../common/http-sessions.js';
import { type Admitted, createMcpAdmission, type McpDoorDeps, METADATA, readBody, sendJson } from './mcp-admission.js';
import { createMcpCheckedCalls } from './mcp-checked-calls.js';
import { classifyPost, listOf, namedTarget, rpcError } from './mcp-messages.js';
import { createMcpUpstream } from './mcp-upstream.js';

export type { McpDoorDeps } from './mcp-admission.js';
export type McpDoor = ReturnType<typeof createMcpDoor>;

export function createMcpDoor(deps: McpDoorDeps) {
  const { apps, logger } = deps;
  const sessions = createAppSessions(deps);
  const upstream = createMcpUpstream();
  const answered = createAnsweredRequests(deps.audit, (err) => logger.error({ err }, 'mcp: cannot record calls'));
  const { endpointOf, metadata, admit } = createMcpAdmission(deps, sessions);
  const checked = createMcpCheckedCalls(deps, { forward, upstreamHeaders, upstream, answered });

  async function forward(
    req: IncomingMessage,
    res: ServerResponse,
    app: ResourceRecord,
    who: Admitted,
    body: Buffer | undefined,
  ) {
    const headers = await upstreamHeaders(req, app, who);
    const done = await upstream.send(app, req, res, headers, body, who.session.signal);
    who.session.touch(body?.length ?? 0, done.bytes);
    return done;
  }

  async function upstreamHeaders(req: IncomingMessage, app: ResourceRecord, { principal, proof }: Admitted) {
    const issuer = apps.addressing.consoleUrl() ?? '';
    const assertion = deps.assertionFor
      ? await deps.assertionFor(principal, app, endpointOf(app), issuer)
      : await apps.assertions.assertion(principal, endpointOf(app), issuer);
    let credential: Record<string, string>;
    try {
      credential = await deps.mcpUpstream(principal, app, proof);
    } catch (err) {
      // Fail closed, and say so: without Gatehouse's own credential nothing is sent (never the client's).
      logger.error({ err, app: app.id }, 'mcp: cannot open the upstream credential');
      throw new GatehouseError('unavailable', `the credential for ${app.name} cannot be opened; nothing was sent`);
    }
    return upstream.headersFor(req.headers, credential, assertion);
  }

  async function onRequest(req: IncomingMessage, res: ServerResponse, app: ResourceRecord): Promise<void> {
    const path = (req.url ?? '/').split('?')[0] as string;
    if (req.method === 'GET' && path.startsWith(METADATA)) return metadata(res, app);
    if (path !== new URL(endpointOf(app)).pathname)
      return answer(req, res, 404, `gatehouse: ${app.name} serves MCP at ${endpointOf(app)}`);
    const who = await admit(req, res, app);
    if (!who) return;
    // GET (the 2025 revisions' server stream) and DELETE (ending a 2025 session) carry no call.
    if (req.method !== 'POST') return void (await forward(req, res, app, who, undefined));
    const body = await readBody(req);
    if (!body) return sendJson(res, 413, rpcError(null, -32600, 'gatehouse: the request body is larger than 4 MiB'));
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      return sendJson(res, 400, rpcError(null, -32700, 'gatehouse: the body is not JSON'));
    }
    const inbound = classifyPost(parsed, req.headers);
    if (inbound.kind === 'reject')
      return sendJson(res, inbound.status, rpcError(inbound.id, inbound.code, inbound.message));
    // A message without an id is a notification: it gets no answer, so no refusal could reach the
    // client, and the checks below judge requests. Only notifications/* may be sent that way; a
    // tools/call (or any other method) without an id would otherwise reach the server unchecked.
    if (
      inbound.kind === 'request' &&
      inbound.request.notification &&
      !inbound.request.method.startsWith('notifications/')
    )
      return sendJson(
        res,
        400,
        rpcError(
          null,
          -32600,
          `gatehouse: ${inbound.request.method.slice(0, 64)} must be sent as a request, with an id`,
        ),
      );
    if (inbound.kind === 'request' && !inbound.request.notification) {
      if (inbound.request.method === 'tools/call')
        return checked.toolCall(req, res, app, who, inbound.request, inbound.revision, body);
      const list = listOf(inbound.request.method);
      if (list) return checked.listed(req, res, app, who, body, list);
      const target = namedTarget(inbound.request);
      if (target) return checked.named(req, res, app, who, inbound.request, target, body);
    }
    await forward(req, res, app, who, body);
  }

  return {
    handle(req: IncomingMessage, res: ServerResponse, app: ResourceRecord): void {
      onRequest(req, res, app).catch((err) => {
        if (err instanceof GatehouseError && !res.headersSent)
          return sendJson(res, err.status, rpcError(null, -32603, `gatehouse: ${err.detail}`));
        logger.error({ err }, 'mcp: request failed');
        if (!res.headersSent) sendJson(res, 500, rpcError(null, -32603, 'gatehouse: internal error'));
        else res.destroy();
      });
    },
    async close(): Promise<void> {
      await sessions.close('gatehouse: the proxy is shutting down');
      await upstream.close();
      await answered.flush();
    },
  };
}
