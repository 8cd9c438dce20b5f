// The auth tier's internal route for the MCP door of proxy-only instances: POST
// /internal/v1/mcp/approvals/gate decides whether a tool call that needs an approval passes (its
// approval used, once) or is held (mcp/mcp-approvals-proxy.ts) — a proxy may not write approval
// records itself. Only a joined proxy's credential (or the deprecated shared token where allowed)
// gets in, as for every internal call. Kept apart from internal.routes.ts. Not part of /v1 nor OpenAPI.
import type { FastifyInstance } from 'fastify';
import { type PeerCheck, requirePeer } from '../../cluster/cluster-peers.js';
import { forbidden, GatehouseError } from '../../lib/errors.js';
import { MCP_APPROVAL_GATE_PATH, type ProxyGateRequest, type ProxyGateResult } from '../../mcp/mcp-approvals-proxy.js';

export function mcpInternalRoutes(
  app: FastifyInstance,
  deps: { peers: PeerCheck; gate: (req: ProxyGateRequest) => Promise<ProxyGateResult> },
): void {
  app.post<{ Body: Record<string, unknown> }>(MCP_APPROVAL_GATE_PATH, async (request) => {
    await requirePeer(deps.peers, request.headers);
    const b = request.body ?? {};
    const str = (v: unknown, max: number) => typeof v === 'string' && v.length <= max;
    if (!str(b.app_id, 128) || !str(b.token_id, 128) || !str(b.tool, 128) || !str(b.remote_addr, 64))
      throw new GatehouseError('invalid_request', 'app_id, token_id, tool and remote_addr must be strings');
    if (b.revision !== undefined && !str(b.revision, 32))
      throw new GatehouseError('invalid_request', 'revision must be a string');
    const result = await deps.gate(b as unknown as ProxyGateRequest);
    if ('refused' in result) throw forbidden(`no approval gate: ${result.refused}`);
    return result;
  });
}
