// The MCP gateway's approvals as the API answers them (src/mcp/mcp-approvals.ts): what is asked,
// by whom on whose behalf, bound to which call digest; never the arguments unless a role records them.
import { Type } from '@sinclair/typebox';
import { Timestamp } from '../../lib/shapes.js';
import { listQuery, listResponse, pathId } from '../schemas.js';

const Who = Type.Object(
  { kind: Type.String(), id: Type.String(), name: Type.String() },
  { additionalProperties: false },
);

const Status = Type.Union([
  Type.Literal('pending'),
  Type.Literal('approved'),
  Type.Literal('denied'),
  Type.Literal('used'),
]);

export const Approval = Type.Object(
  {
    id: Type.String({ description: 'apr_…' }),
    status: Status,
    app: Type.Object({ id: Type.String(), name: Type.String() }, { additionalProperties: false }),
    tool: Type.String(),
    digest: Type.String({ description: 'SHA-256 (hex) of the canonical JSON of {tool, arguments, principal}' }),
    requester: Who,
    owner: Type.Optional(Type.String({ description: "An agent's owner (user id)" })),
    on_behalf_of: Type.Optional(Who),
    shown: Type.Record(Type.String(), Type.Unknown(), {
      description: 'argument_names, or the arguments themselves when a role sets mcp_record_arguments',
    }),
    created_at: Timestamp,
    expires_at: Timestamp,
    decided_by: Type.Optional(Who),
    decided_at: Type.Optional(Timestamp),
  },
  { additionalProperties: false },
);

export const ApprovalQuery = listQuery({ status: Type.Optional(Status) });
export const ApprovalList = listResponse('approvals', Approval);
export const ApprovalParams = Type.Object({ id: pathId('approval') }, { additionalProperties: false });
