import { Type } from '@sinclair/typebox';
import { TOKEN_EXCHANGE_GRANT } from '../../agents/token-exchange.js';

const TokenText = (description: string) => Type.Optional(Type.String({ minLength: 1, maxLength: 512, description }));
const TokenTypeText = (description: string) =>
  Type.Optional(Type.String({ minLength: 1, maxLength: 128, description }));

/**
 * Either `{api_key}`, or an RFC 8693 token exchange (JSON rather than form-encoded, like every
 * Gatehouse body): `{grant_type: "urn:ietf:params:oauth:grant-type:token-exchange", subject_token,
 * actor_token, …}`. Which fields each needs is checked by the handler, so a missing one is named.
 */
export const TokenRequest = Type.Object(
  {
    api_key: TokenText('An API key (ghk_…) or the bootstrap key'),
    grant_type: Type.Optional(
      Type.Literal(TOKEN_EXCHANGE_GRANT, {
        description: 'Token exchange (RFC 8693): an agent acting for a user',
      }),
    ),
    subject_token: TokenText("Token exchange: the user's access token (gha_…)"),
    subject_token_type: TokenTypeText('urn:ietf:params:oauth:token-type:access_token (the default)'),
    actor_token: TokenText("Token exchange: the agent's access token (gha_…)"),
    actor_token_type: TokenTypeText('urn:ietf:params:oauth:token-type:access_token (the default)'),
    requested_token_type: TokenTypeText(
      'urn:ietf:params:oauth:token-type:access_token (an opaque token for this API, the default) or urn:ietf:params:oauth:token-type:jwt (a signed JWT for a third party)',
    ),
    audience: TokenText('The service a requested jwt is for (its aud); required for a jwt'),
    scope: Type.Optional(
      Type.String({ maxLength: 2048, description: "Space-separated roles, a subset of the actor token's" }),
    ),
  },
  { additionalProperties: false },
);

export const RefreshRequest = Type.Object(
  {
    refresh_token: Type.String({
      minLength: 1,
      maxLength: 512,
      description: 'The refresh token (ghr_…); it is single-use',
    }),
  },
  { additionalProperties: false },
);

export const RevokeRequest = Type.Object(
  {
    token: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 512,
        description: 'A token to revoke instead of the presented one (yours, or any with tokens:delete)',
      }),
    ),
  },
  { additionalProperties: false },
);

export const TokenResponse = Type.Object(
  {
    access_token: Type.String({ description: 'Bearer token (gha_…)' }),
    token_type: Type.Literal('Bearer'),
    expires_in: Type.Integer({ description: 'Lifetime of the access token in seconds' }),
    refresh_token: Type.Optional(
      Type.String({ description: 'Single-use refresh token (ghr_…); none for a token exchange' }),
    ),
    refresh_expires_in: Type.Optional(Type.Integer({ description: 'Lifetime of the refresh token in seconds' })),
    issued_token_type: Type.Optional(Type.String({ description: 'Token exchange: what access_token is (RFC 8693)' })),
    scope: Type.Optional(Type.String({ description: 'Token exchange: the roles the token carries' })),
  },
  { additionalProperties: false },
);

export const RevokeResponse = Type.Object(
  { revoked: Type.Integer({ description: 'How many tokens (access and refresh) were revoked' }) },
  { additionalProperties: false },
);

export const WhoAmIResponse = Type.Object(
  {
    kind: Type.Union([Type.Literal('user'), Type.Literal('agent')]),
    id: Type.String(),
    name: Type.String(),
    roles: Type.Array(Type.String(), { description: 'The roles this token acts with (an agent: its scope)' }),
    on_behalf_of: Type.Optional(
      Type.String({ description: 'Token exchange: the name of the user the agent acts for' }),
    ),
    expires_at: Type.Optional(
      Type.String({ format: 'date-time', description: 'When the presented access token expires' }),
    ),
    login: Type.Optional(
      Type.String({ description: 'The login (token family) the presented token belongs to; a logout ends it' }),
    ),
  },
  { additionalProperties: false },
);
