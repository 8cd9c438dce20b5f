// Approvals of held MCP tool calls (docs/mcp.md): list them, approve or deny one. Any signed-in
// principal may ask; the service shows each only to whom it concerns and lets only a principal
// covering the requester's rights (never the requester) decide, so the permission here is
// 'authenticated' and the covering rule is the service's.
import type { McpApprovals } from '../../mcp/mcp-approvals.js';
import type { App } from '../app-types.js';
import { declareRoutes } from '../declare-routes.js';
import { authenticatedContext } from '../request-context.js';
import { Approval, ApprovalList, ApprovalParams, ApprovalQuery } from './approvals.schema.js';

export function approvalRoutes(app: App, deps: { mcpApprovals: McpApprovals }): void {
  const route = declareRoutes(app, { tags: ['approvals'] });

  route.get(
    '/v1/approvals',
    {
      permission: 'authenticated',
      summary:
        'Approvals of held MCP tool calls that concern you (yours, your agents’, or ones you may decide), newest first',
      querystring: ApprovalQuery,
      200: ApprovalList,
    },
    async (request) => {
      const { items, pagination } = deps.mcpApprovals.list(authenticatedContext(request), request.query);
      return { approvals: items, pagination };
    },
  );

  route.get(
    '/v1/approvals/:id',
    {
      permission: 'authenticated',
      summary: 'One approval of a held MCP tool call, if it concerns you (404 otherwise, as for one that expired)',
      params: ApprovalParams,
      200: Approval,
    },
    async (request) => deps.mcpApprovals.show(authenticatedContext(request), request.params.id),
  );

  for (const verdict of ['approve', 'deny'] as const) {
    route.post(
      `/v1/approvals/:id/${verdict}`,
      {
        permission: 'authenticated',
        grants: [],
        summary:
          verdict === 'approve'
            ? 'Approve a held tool call: the same call (tool, arguments, principal) then passes once, within its TTL'
            : 'Deny a held tool call',
        params: ApprovalParams,
        200: Approval,
      },
      async (request) => deps.mcpApprovals[verdict](authenticatedContext(request), request.params.id),
    );
  }
}
