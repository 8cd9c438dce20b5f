// The MCP gateway's checked methods: a tools/call (the tool and its arguments through the access
// checker, an approval where a role asks for one), a resource read or prompt get (refused with a
// JSON-RPC error naming why unless allowed), and the */list answers filtered to what the principal may
// use. Each is audited: refusals durably before the answer, the rest once answered.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { actorOfPrincipal } from '../../auth/principal.js';
import { GatehouseError } from '../../lib/errors.js';
import { argumentsHash, recordedArguments } from '../../mcp/mcp-calls.js';
import type { ResourceRecord } from '../../resources/resource-service.js';
import type { createAnsweredRequests } from '../common/answered-requests.js';
import { type Admitted, type McpDoorDeps, remoteOf, sendJson } from './mcp-admission.js';
import { filterList, type ListSpec, MCP_FORBIDDEN, type RpcRequest, rpcError } from './mcp-messages.js';
import type { createMcpUpstream, UpstreamAnswer } from './mcp-upstream.js';

type McpUpstream = ReturnType<typeof createMcpUpstream>;
/** Sends the request on to the server with Gatehouse's credential; what came back. */
type Forward = (
  req: IncomingMessage,
  res: ServerResponse,
  app: ResourceRecord,
  who: Admitted,
  body: Buffer | undefined,
) => Promise<Awaited<ReturnType<McpUpstream['send']>>>;

export function createMcpCheckedCalls(
  deps: McpDoorDeps,
  via: {
    forward: Forward;
    upstreamHeaders(req: IncomingMessage, app: ResourceRecord, who: Admitted): Promise<Record<string, string>>;
    upstream: McpUpstream;
    answered: ReturnType<typeof createAnsweredRequests>;
  },
) {
  const { access, clock, logger } = deps;
  const { forward, upstreamHeaders, upstream, answered } = via;

  const callEvent = (
    req: IncomingMessage,
    app: ResourceRecord,
    who: Admitted,
    success: boolean,
    data: Record<string, unknown>,
  ) => appEvent('mcp.tool.call' as const, req, app, who, success, data);

  /** A JSON-RPC error naming why Gatehouse refused the call (the audit event says the same). */
  const refuse = (res: ServerResponse, rpc: RpcRequest, reason: string) =>
    sendJson(
      res,
      200,
      rpcError(rpc.id, MCP_FORBIDDEN, `gatehouse: ${reason}`, { gatehouse: { decision: 'denied', reason } }),
    );

  /** An audit event of a call, read or get on this app, naming the agent's owner where there is one. */
  function appEvent<T extends string>(
    type: T,
    req: IncomingMessage,
    app: ResourceRecord,
    who: Admitted,
    success: boolean,
    data: Record<string, unknown>,
  ) {
    return {
      type,
      actor: actorOfPrincipal(who.principal),
      target: { kind: 'app', id: app.id, name: app.name },
      session_id: who.session.id,
      success,
      remote_addr: remoteOf(req),
      data: { ...(who.principal.owner ? { owner: who.principal.owner } : {}), ...data },
    };
  }

  async function toolCall(
    req: IncomingMessage,
    res: ServerResponse,
    app: ResourceRecord,
    who: Admitted,
    rpc: RpcRequest,
    revision: string | undefined,
    body: Buffer,
  ): Promise<void> {
    const startedAt = clock();
    const tool = typeof rpc.params.name === 'string' ? rpc.params.name : '';
    const args = rpc.params.arguments;
    const verdict = access.mcpCall(who.principal, app, tool, args);
    const base = { tool: tool.slice(0, 128), arguments_hash: argumentsHash(args) };
    const record = verdict.allowed && verdict.recordArguments;
    let approvalId: string | undefined;
    if (!verdict.allowed) {
      const reason = verdict.reason;
      const denied = { ...base, ...recordedArguments(args, false), decision: 'denied', reason };
      await deps.audit.record(callEvent(req, app, who, false, denied));
      return refuse(res, rpc, reason);
    }
    if (verdict.approval) {
      if (!deps.approvals)
        return sendJson(
          res,
          200,
          rpcError(rpc.id, MCP_FORBIDDEN, 'gatehouse: this tool needs an approval and none can be asked here'),
        );
      let gate: Awaited<ReturnType<NonNullable<McpDoorDeps['approvals']>['gate']>>;
      try {
        gate = await deps.approvals.gate({
          principal: who.principal,
          app,
          tool,
          arguments: args ?? {},
          revision,
          recordArguments: record,
          remoteAddr: remoteOf(req),
        });
      } catch (err) {
        // Fail closed: a call that needs an approval is not sent while none can be asked.
        logger.error({ err }, 'mcp: cannot ask for an approval');
        return sendJson(
          res,
          200,
          rpcError(rpc.id, MCP_FORBIDDEN, 'gatehouse: the approval cannot be asked now; try again'),
        );
      }
      if ('held' in gate) {
        const held = { ...base, ...recordedArguments(args, record), decision: 'held', approval_id: gate.held.id };
        await deps.audit.record(callEvent(req, app, who, false, held));
        return sendJson(res, 200, gate.held.answer(rpc.id));
      }
      approvalId = gate.pass;
    }
    let done: Awaited<ReturnType<Forward>>;
    try {
      done = await forward(req, res, app, who, body);
    } catch (err) {
      // Not sent (the server's credential cannot be opened): a JSON-RPC error naming why, audited.
      if (!(err instanceof GatehouseError) || res.headersSent) throw err;
      const failed = { ...base, ...recordedArguments(args, record), decision: 'failed', reason: err.detail };
      await deps.audit.record(
        callEvent(req, app, who, false, { ...failed, ...(approvalId ? { approval_id: approvalId } : {}) }),
      );
      return sendJson(res, 200, rpcError(rpc.id, -32603, `gatehouse: ${err.detail}`));
    }
    answered.add(
      callEvent(req, app, who, true, {
        ...base,
        ...recordedArguments(args, record),
        decision: 'allowed',
        status: done.status,
        duration_ms: clock() - startedAt,
        result_bytes: done.bytes,
        ...(approvalId ? { approval_id: approvalId } : {}),
        ...(done.cut ? { cut: done.cut } : {}),
      }),
    );
  }

  /** A list answered with what the principal may use only; the hidden count recorded. */
  async function listed(
    req: IncomingMessage,
    res: ServerResponse,
    app: ResourceRecord,
    who: Admitted,
    body: Buffer,
    list: ListSpec,
  ): Promise<void> {
    const headers = await upstreamHeaders(req, app, who);
    const got: UpstreamAnswer | undefined = await upstream.buffered(app, res, headers, body, who.session.signal);
    if (!got) return;
    const filtered = filterList(got.body, got.contentType, list, (name) =>
      access.mcpName(who.principal, app, list.kind, name),
    );
    who.session.touch(body.length, filtered.body.length);
    res.writeHead(got.status, { ...got.headers, 'content-length': String(Buffer.byteLength(filtered.body)) });
    res.end(filtered.body);
    answered.add({
      type: list.event,
      actor: actorOfPrincipal(who.principal),
      target: { kind: 'app', id: app.id, name: app.name },
      session_id: who.session.id,
      success: true,
      remote_addr: remoteOf(req),
      data: { shown: filtered.counts.shown, hidden: filtered.counts.hidden },
    });
  }

  /** A request using one resource or prompt: refused (durably audited) unless the principal may use it. */
  async function named(
    req: IncomingMessage,
    res: ServerResponse,
    app: ResourceRecord,
    who: Admitted,
    rpc: RpcRequest,
    target: { kind: 'resource' | 'prompt'; name: string },
    body: Buffer,
  ): Promise<void> {
    const allowed = access.mcpName(who.principal, app, target.kind, target.name);
    const label = target.kind === 'resource' ? 'uri' : 'prompt';
    const type = target.kind === 'resource' ? ('mcp.resource.read' as const) : ('mcp.prompt.get' as const);
    const event = (success: boolean, data: Record<string, unknown>) =>
      appEvent(type, req, app, who, success, { method: rpc.method, [label]: target.name.slice(0, 1024), ...data });
    if (!allowed) {
      const reason = `${target.kind} ${target.name.slice(0, 256) || '(unnamed)'} is not allowed`;
      await deps.audit.record(event(false, { decision: 'denied', reason }));
      return refuse(res, rpc, reason);
    }
    const startedAt = clock();
    const done = await forward(req, res, app, who, body);
    answered.add(
      event(true, {
        decision: 'allowed',
        status: done.status,
        duration_ms: clock() - startedAt,
        result_bytes: done.bytes,
      }),
    );
  }

  return { toolCall, listed, named };
}
