// Approvals on a proxy-only instance: the MCP door's gate asks the auth tier
// (src/mcp/mcp-approvals-proxy.ts), which checks the call again and writes the approval; the held
// answer is built here, in the revision the client speaks.
import { heldAnswer, type McpApprovals } from '../../mcp/mcp-approvals.js';
import { MCP_APPROVAL_GATE_PATH, type ProxyGateResult } from '../../mcp/mcp-approvals-proxy.js';
import type { AuthPool } from '../../net/auth-client.js';

export function remoteApprovalGate(pool: Pick<AuthPool, 'fetch'>): Pick<McpApprovals, 'gate'> {
  return {
    async gate(call) {
      const tokenId = call.principal.token?.id;
      if (!tokenId) throw new Error('a tool call without a token');
      const res = await pool.fetch(MCP_APPROVAL_GATE_PATH, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          app_id: call.app.id,
          token_id: tokenId,
          tool: call.tool,
          arguments: call.arguments,
          ...(call.revision !== undefined ? { revision: call.revision } : {}),
          remote_addr: call.remoteAddr,
        }),
      });
      const body = (await res.json().catch(() => ({}))) as ProxyGateResult & { detail?: string };
      if (!res.ok) throw new Error(`the auth tier answered ${res.status} ${body.detail ?? ''}`.trim());
      if ('pass' in body) return { pass: body.pass };
      if (!('held' in body)) throw new Error('the auth tier answered neither pass nor held');
      const held = body.held;
      return { held: { ...held, answer: (rpcId: unknown) => heldAnswer(rpcId, call.revision, held) } };
    },
  };
}
