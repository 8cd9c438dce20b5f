import { Type } from '@sinclair/typebox';
import { idPattern } from '../../lib/ids.js';
import { Description, Labels, listQuery, listResponse, Name, Timestamp } from '../schemas.js';

export const AgentStatus = Type.Union([Type.Literal('active'), Type.Literal('suspended'), Type.Literal('revoked')]);

export const Agent = Type.Object(
  {
    id: Type.String({ pattern: idPattern('agent'), description: 'agent_ followed by an opaque suffix' }),
    name: Name,
    status: AgentStatus,
    created_at: Timestamp,
    owner: Type.String({ description: 'The accountable user (user_…)' }),
    roles: Type.Array(Name),
    description: Type.String(),
    labels: Labels,
    updated_at: Timestamp,
  },
  { additionalProperties: false },
);

export const CreateAgent = Type.Object(
  {
    name: Name,
    description: Type.Optional(Description),
    labels: Type.Optional(Labels),
    roles: Type.Array(Name, { maxItems: 32, default: [] }),
    owner: Type.Optional(
      Type.String({
        pattern: idPattern('user'),
        description: 'Defaults to the caller; another user needs users:update',
      }),
    ),
  },
  { additionalProperties: false },
);

export const AgentQuery = listQuery({
  status: Type.Optional(AgentStatus),
  owner: Type.Optional(Type.String({ maxLength: 40 })),
  name: Type.Optional(Type.String({ maxLength: 64 })),
});

export const AgentList = listResponse('agents', Agent);

export const AgentParams = Type.Object(
  { id: Type.String({ pattern: idPattern('agent'), maxLength: 40 }) },
  { additionalProperties: false },
);

export const CredentialRequest = Type.Object(
  {
    ttl: Type.Integer({
      minimum: 60,
      maximum: 3600,
      default: 3600,
      description: 'Lifetime of the access token in seconds (at most 1 h)',
    }),
    api_key_ttl: Type.Integer({
      minimum: 3600,
      maximum: 2_592_000,
      default: 86_400,
      description: 'Lifetime of the new API key in seconds (default 1 day, at most 30 days)',
    }),
  },
  { additionalProperties: false },
);

export const Credentials = Type.Object(
  {
    agent_id: Type.String(),
    api_key_id: Type.String(),
    api_key: Type.String({ description: 'A new API key for POST /v1/auth/token, shown once' }),
    api_key_expires_at: Timestamp,
    access_token: Type.String(),
    token_type: Type.Literal('Bearer'),
    expires_in: Type.Integer(),
    refresh_token: Type.String(),
    refresh_expires_in: Type.Integer(),
  },
  { additionalProperties: false },
);
