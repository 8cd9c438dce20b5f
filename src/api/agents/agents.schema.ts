import { Type } from '@sinclair/typebox';
import { idPattern } from '../../lib/ids.js';
import { CreatedBy, Description, Labels, Name, Timestamp } from '../../lib/shapes.js';
import { LabelFilter, listQuery, listResponse, pathId } from '../schemas.js';

export const AgentStatus = Type.Union([Type.Literal('active'), Type.Literal('suspended'), Type.Literal('revoked')], {
  description: 'active ⇄ suspended (reversible); revoked is terminal',
});

const Nullable = <T extends ReturnType<typeof Type.Integer>>(t: T) => Type.Union([t, Type.Null()]);

const MaxCredentialTtl = Nullable(
  Type.Integer({
    minimum: 60,
    maximum: 2_592_000,
    description: "Longest lifetime of this agent's credentials in seconds; null: the cluster's maximum",
  }),
);

const RateLimit = Type.Object(
  {
    requests_per_minute: Type.Optional(
      Nullable(Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'null: the cluster default' })),
    ),
    credentials_per_minute: Type.Optional(
      Nullable(Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'null: the cluster default' })),
    ),
  },
  {
    additionalProperties: false,
    description: 'Per-agent limits; breaching one is a 429 and an agent.rate_limited event',
  },
);

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
    max_credential_ttl: Type.Union([Type.Integer(), Type.Null()]),
    rate_limit: Type.Object({
      requests_per_minute: Type.Union([Type.Integer(), Type.Null()]),
      credentials_per_minute: Type.Union([Type.Integer(), Type.Null()]),
    }),
    last_used_at: Type.Union([Timestamp, Type.Null()], { description: 'Last request with one of its tokens (±1 s)' }),
    created_by: CreatedBy,
    updated_at: Timestamp,
  },
  { additionalProperties: false },
);

const Roles = Type.Array(Name, { maxItems: 32 });

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
    max_credential_ttl: Type.Optional(MaxCredentialTtl),
    rate_limit: Type.Optional(RateLimit),
  },
  { additionalProperties: false },
);

export const UpdateAgent = Type.Object(
  {
    name: Type.Optional(Name),
    description: Type.Optional(Description),
    labels: Type.Optional(Labels),
    roles: Type.Optional(Roles),
    status: Type.Optional(AgentStatus),
    max_credential_ttl: Type.Optional(MaxCredentialTtl),
    rate_limit: Type.Optional(RateLimit),
  },
  { additionalProperties: false, minProperties: 1 },
);

const Ended = {
  revoked_tokens: Type.Integer({ description: 'Tokens (access and refresh) revoked by this change' }),
  revoked_credentials: Type.Integer({ description: 'Credentials revoked by this change' }),
  ended_sessions: Type.Array(Type.String(), { description: 'Live sessions ended (sess_…)' }),
  confirmed_ended_sessions: Type.Array(Type.String(), {
    description:
      'Of ended_sessions, those whose proxy confirmed within 3 s that it ended them; the others are marked terminated and end when their proxy sees it',
  }),
  revoked_issued_for_others: Type.Object(
    {
      api_keys: Type.Integer(),
      ssh_keys: Type.Integer(),
      credentials: Type.Integer(),
      tokens: Type.Integer({ description: 'Tokens that came from those API keys and credentials' }),
    },
    {
      additionalProperties: false,
      description: 'What the agent had created for other users and agents, taken back with it',
    },
  ),
  ended_agents: Type.Array(Type.String(), {
    description:
      'Agents below it (created by it, by those, …) suspended or revoked with it; reactivating it does not reactivate them',
  }),
  descendants: Type.Object(
    { agents: Type.Integer(), credentials: Type.Integer(), tokens: Type.Integer(), sessions: Type.Integer() },
    {
      additionalProperties: false,
      description: 'What those agents held and this change ended (included in the totals above)',
    },
  ),
};

export const UpdatedAgent = Type.Object(
  {
    ...Agent.properties,
    revoked_tokens: Type.Optional(Ended.revoked_tokens),
    revoked_credentials: Type.Optional(Ended.revoked_credentials),
    ended_sessions: Type.Optional(Ended.ended_sessions),
    confirmed_ended_sessions: Type.Optional(Ended.confirmed_ended_sessions),
    revoked_issued_for_others: Type.Optional(Ended.revoked_issued_for_others),
    ended_agents: Type.Optional(Ended.ended_agents),
    descendants: Type.Optional(Ended.descendants),
  },
  {
    additionalProperties: false,
    description: 'The agent; after a suspension or revocation, also what the kill switch ended',
  },
);

export const DeletedAgent = Type.Object({ id: Type.String(), ...Ended }, { additionalProperties: false });

export const AgentQuery = listQuery({
  status: Type.Optional(AgentStatus),
  owner: Type.Optional(Type.String({ maxLength: 40 })),
  name: Type.Optional(Type.String({ maxLength: 64 })),
  label: Type.Optional(LabelFilter),
});

export const AgentList = listResponse('agents', Agent);

const AgentId = pathId('agent');

export const AgentParams = Type.Object({ id: AgentId }, { additionalProperties: false });

export const CredentialParams = Type.Object(
  { id: AgentId, credential_id: pathId('credential') },
  { additionalProperties: false },
);

export const DelegationParams = Type.Object({ id: AgentId, user_id: pathId('user') }, { additionalProperties: false });

const credentialTypes = () => [Type.Literal('api_key'), Type.Literal('token'), Type.Literal('jwt')];
const CREDENTIAL_TYPES_TEXT =
  'api_key: a key for POST /v1/auth/token; token: a short-lived access token for this API; jwt: a signed JWT for third-party services';
export const CredentialType = Type.Union(credentialTypes(), { description: CREDENTIAL_TYPES_TEXT });

export const CredentialRequest = Type.Object(
  {
    type: Type.Union(credentialTypes(), { default: 'token', description: CREDENTIAL_TYPES_TEXT }),
    ttl: Type.Optional(
      Type.Integer({
        minimum: 60,
        maximum: 2_592_000,
        description:
          "Lifetime in seconds; at most the agent's max_credential_ttl and agents.max_credential_ttl; default min(1 h, those)",
      }),
    ),
    roles: Type.Optional(
      Type.Array(Name, { maxItems: 32, description: "A subset of the agent's roles; default: all of them" }),
    ),
    audience: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 512,
        description: 'The service a jwt is for (its aud); required for jwt',
      }),
    ),
  },
  { additionalProperties: false },
);

export const IssuedCredential = Type.Object(
  {
    id: Type.String({ description: 'cred_…' }),
    agent_id: Type.String(),
    type: CredentialType,
    roles: Type.Array(Type.String(), { description: 'The roles the credential carries' }),
    audience: Type.Union([Type.String(), Type.Null()]),
    created_at: Timestamp,
    expires_at: Timestamp,
    expires_in: Type.Integer({ description: 'Seconds' }),
    api_key: Type.Optional(Type.String({ description: 'type api_key: a key for POST /v1/auth/token, shown once' })),
    access_token: Type.Optional(Type.String({ description: 'type token: a bearer token for this API, shown once' })),
    token_type: Type.Optional(Type.Literal('Bearer')),
    jwt: Type.Optional(
      Type.String({ description: 'type jwt: an EdDSA-signed JWT, verifiable with /.well-known/jwks.json' }),
    ),
    kid: Type.Optional(Type.String({ description: 'type jwt: the id of the signing key' })),
  },
  { additionalProperties: false },
);

export const CredentialQuery = listQuery({ type: Type.Optional(CredentialType) });

export const CredentialList = listResponse(
  'credentials',
  Type.Object(
    {
      id: Type.String(),
      type: CredentialType,
      roles: Type.Union([Type.Array(Type.String()), Type.Null()], { description: "null: all of the agent's roles" }),
      audience: Type.Union([Type.String(), Type.Null()]),
      on_behalf_of: Type.Union([Type.String(), Type.Null()], {
        description: 'The user a delegated credential acts for',
      }),
      created_by: CreatedBy,
      created_at: Timestamp,
      expires_at: Timestamp,
      last_used_at: Type.Union([Timestamp, Type.Null()]),
      revoked_at: Type.Union([Timestamp, Type.Null()]),
    },
    { additionalProperties: false },
  ),
);

export const DelegationRequest = Type.Object(
  {
    user: Type.Optional(
      Type.String({ pattern: idPattern('user'), description: 'The user who allows it; defaults to the caller' }),
    ),
    ttl: Type.Optional(
      Type.Integer({
        minimum: 60,
        maximum: 31_536_000,
        description: 'Seconds until the consent lapses; default never',
      }),
    ),
  },
  { additionalProperties: false },
);

export const Delegation = Type.Object(
  {
    agent_id: Type.String(),
    user_id: Type.String(),
    created_at: Timestamp,
    expires_at: Type.Union([Timestamp, Type.Null()]),
  },
  { additionalProperties: false },
);

export const DelegationList = listResponse('delegations', Delegation);

export const DelegationQuery = listQuery({});

export const Revoked = Type.Object(
  {
    revoked_tokens: Type.Integer(),
    revoked_credentials: Type.Optional(Type.Integer()),
  },
  { additionalProperties: false },
);

export const IntrospectionRequest = Type.Object(
  { token: Type.String({ minLength: 1, maxLength: 8192, description: 'An access token (gha_…) or an agent JWT' }) },
  { additionalProperties: false },
);

export const IntrospectionResponse = Type.Object(
  {
    active: Type.Boolean({ description: 'false for anything revoked, expired, unknown or not verifiable' }),
    token_type: Type.Optional(Type.Union([Type.Literal('access_token'), Type.Literal('jwt')])),
    sub: Type.Optional(Type.String({ description: 'The principal; for a delegated token, the user' })),
    act: Type.Optional(
      Type.Object({ sub: Type.String() }, { description: 'Delegated: the agent acting for sub (RFC 8693)' }),
    ),
    scope: Type.Optional(Type.String({ description: 'Space-separated roles' })),
    iss: Type.Optional(Type.String()),
    aud: Type.Optional(Type.String()),
    exp: Type.Optional(Type.Integer()),
    iat: Type.Optional(Type.Integer()),
    jti: Type.Optional(Type.String()),
  },
  { additionalProperties: false, description: 'RFC 7662 token introspection' },
);

export const Jwks = Type.Object(
  {
    keys: Type.Array(
      Type.Object({
        kty: Type.String(),
        crv: Type.String(),
        x: Type.String(),
        kid: Type.String(),
        alg: Type.String(),
        use: Type.String(),
      }),
    ),
  },
  { description: 'RFC 7517 JSON Web Key Set: the public keys of agent JWTs' },
);
