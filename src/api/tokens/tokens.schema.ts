import { Type } from '@sinclair/typebox';

export const TokenRequest = Type.Object(
  { api_key: Type.String({ minLength: 1, maxLength: 512, description: 'An API key (ghk_…) or the bootstrap key' }) },
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
    refresh_token: Type.String({ description: 'Single-use refresh token (ghr_…)' }),
    refresh_expires_in: Type.Integer({ description: 'Lifetime of the refresh token in seconds' }),
  },
  { additionalProperties: false },
);

export const RevokeResponse = Type.Object(
  { revoked: Type.Integer({ description: 'How many tokens (access and refresh) were revoked' }) },
  { additionalProperties: false },
);
