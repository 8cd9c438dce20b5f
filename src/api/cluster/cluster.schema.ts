// The shapes of /v1/cluster: join tokens for new proxies, and the proxies' identities.
import { Type } from '@sinclair/typebox';
import { DURATION_PATTERN } from '../../lib/duration.js';

export const CreateJoinToken = Type.Object(
  {
    role: Type.Literal('proxy', { description: 'What the joining instance will be (proxy)' }),
    ttl: Type.Optional(
      Type.String({ pattern: DURATION_PATTERN, description: 'How long the token may be used (1m to 7d; default 1h)' }),
    ),
    uses: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 100, description: 'How many proxies may join with it (default 1)' }),
    ),
  },
  { additionalProperties: false },
);

export const JoinToken = Type.Object(
  {
    id: Type.String(),
    token: Type.String({
      description: 'Shown once: only its hash is kept. Give it to the new proxy (GATEHOUSE_JOIN_TOKEN).',
    }),
    role: Type.Literal('proxy'),
    expires_at: Type.String({ format: 'date-time' }),
    uses: Type.Integer(),
  },
  { additionalProperties: false },
);

export const Instance = Type.Object(
  {
    id: Type.String({
      description: 'The proxy identity (prx_…); its processes are <id>-<8 hex> in sessions and leases',
    }),
    role: Type.Literal('proxy'),
    joined_at: Type.String({ format: 'date-time' }),
    join_token_id: Type.String(),
  },
  { additionalProperties: false },
);

export const InstanceList = Type.Object({ instances: Type.Array(Instance) }, { additionalProperties: false });

export const InstanceParams = Type.Object(
  { id: Type.String({ pattern: '^prx_[0-9a-f]{16}$' }) },
  { additionalProperties: false },
);
