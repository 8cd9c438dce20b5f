// The auth tier's side of approvals for proxy-only instances: a proxy holds no store credentials
// and may not write approval records (cluster/proxy-writes.ts), so its MCP door asks here
// (POST /internal/v1/mcp/approvals/gate) whether a call passes or is held. The auth tier does not
// take the proxy's word for who calls or whether the call needs an approval: it resolves the
// principal from the token id, asks the one access checker for the call again, and only then gates
// it (mcp-approvals.ts), recording the approval events itself.
import type { AccessChecker } from '../access/access-checker.js';
import type { Principal } from '../auth/principal.js';
import type { TokenService } from '../auth/token-service.js';
import { GatehouseError } from '../lib/errors.js';
import type { ResourceRecord } from '../resources/resource-service.js';
import type { McpApprovals } from './mcp-approvals.js';

export const MCP_APPROVAL_GATE_PATH = '/internal/v1/mcp/approvals/gate';

export interface ProxyGateRequest {
  app_id: string;
  token_id: string;
  tool: string;
  arguments: unknown;
  revision?: string;
  remote_addr: string;
}

export type ProxyGateResult =
  | { pass: string }
  | { held: { id: string; url: string; tool: string } }
  | { refused: string };

export function createProxyApprovalGate(deps: {
  tokens: Pick<TokenService, 'resolveById'>;
  access: Pick<AccessChecker, 'authorize' | 'mcpCall'>;
  approvals: Pick<McpApprovals, 'gate'>;
}) {
  return async (req: ProxyGateRequest): Promise<ProxyGateResult> => {
    let principal: Principal;
    try {
      principal = deps.tokens.resolveById(req.token_id).principal;
    } catch (error) {
      if (error instanceof GatehouseError) return { refused: `the token does not stand: ${error.detail}` };
      throw error;
    }
    const decision = deps.access.authorize(principal, { kind: 'app', id: req.app_id }, []);
    const app = decision.allowed ? (decision.resource as ResourceRecord) : undefined;
    if (!app) return { refused: `${principal.name} may not use app ${req.app_id}` };
    const verdict = deps.access.mcpCall(principal, app, req.tool, req.arguments);
    if (!verdict.allowed) return { refused: verdict.reason };
    if (!verdict.approval) return { refused: `tool ${req.tool} needs no approval` };
    const gate = await deps.approvals.gate({
      principal,
      app,
      tool: req.tool,
      arguments: req.arguments ?? {},
      revision: req.revision,
      recordArguments: verdict.recordArguments,
      remoteAddr: req.remote_addr,
    });
    return 'pass' in gate ? gate : { held: { id: gate.held.id, url: gate.held.url, tool: req.tool } };
  };
}
