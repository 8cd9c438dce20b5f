import { Type } from '@sinclair/typebox';
import { Name, Timestamp } from '../../lib/shapes.js';
import { listQuery, listResponse } from '../schemas.js';

/** A connector by id (conn_…) or by name. */
export const ConnectorParams = Type.Object(
  { id: Type.String({ minLength: 1, maxLength: 80, pattern: '^[A-Za-z0-9][A-Za-z0-9._@-]*$' }) },
  { additionalProperties: false },
);

const ClaimName = Type.String({
  minLength: 1,
  maxLength: 128,
  pattern: '^[A-Za-z0-9_:./-]+$',
  description: 'A claim name, or a dotted path into nested claims (realm_access.roles); a name held as it is wins',
});

const ClaimMapping = Type.Object(
  {
    claim: ClaimName,
    value: Type.String({ minLength: 1, maxLength: 256, description: 'A `*` glob over the claim’s value(s)' }),
    roles: Type.Array(
      Type.String({
        minLength: 1,
        maxLength: 128,
        pattern: '^[A-Za-z0-9._@{}: -]+$',
        description: 'A role name, or a template: {{value}} (the matched value), {{claims.<name>}}',
      }),
      { minItems: 1, maxItems: 32 },
    ),
  },
  { additionalProperties: false },
);

const Issuer = Type.String({
  minLength: 1,
  maxLength: 512,
  pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^\\s]+$',
  description: 'The OpenID Provider’s issuer URL (https; http only on loopback)',
});

const fields = {
  kind: Type.Literal('oidc'),
  name: Name,
  display_name: Type.String({ minLength: 1, maxLength: 64, description: 'Shown on the button: "Sign in with …"' }),
  issuer: Issuer,
  client_id: Type.String({ minLength: 1, maxLength: 512 }),
  scopes: Type.Array(Type.String({ minLength: 1, maxLength: 128, pattern: '^[\\x21\\x23-\\x5B\\x5D-\\x7E]+$' }), {
    maxItems: 32,
    description: 'Default openid, profile, email; openid is always asked',
  }),
  claims_to_roles: Type.Array(ClaimMapping, { minItems: 1, maxItems: 256 }),
  traits_from_claims: Type.Record(Type.String({ pattern: '^[a-z][a-z0-9_]{0,63}$' }), ClaimName, {
    description: 'Trait name → claim (e.g. {"logins": "unix_username"}); replaced at every sign-in',
  }),
  username_claim: ClaimName,
  enabled: Type.Boolean({ description: 'false: nobody signs in through it, and the logins it made end' }),
  max_session_ttl: Type.Integer({
    minimum: 300,
    maximum: 30 * 86400,
    description: 'Seconds one sign-in lasts, refreshes included (default 43200); then the provider is asked again',
  }),
};

export const ConnectorInput = Type.Object(
  {
    kind: fields.kind,
    name: fields.name,
    display_name: fields.display_name,
    issuer: fields.issuer,
    client_id: fields.client_id,
    client_secret: Type.Optional(
      Type.String({ minLength: 1, maxLength: 1024, description: 'Required on create; on PUT, absent keeps it' }),
    ),
    scopes: Type.Optional(fields.scopes),
    claims_to_roles: fields.claims_to_roles,
    traits_from_claims: Type.Optional(fields.traits_from_claims),
    username_claim: Type.Optional(
      Type.String({ ...ClaimName, description: 'The claim whose value is the user name (default preferred_username)' }),
    ),
    enabled: Type.Optional(fields.enabled),
    max_session_ttl: Type.Optional(fields.max_session_ttl),
  },
  { additionalProperties: false },
);

export const Connector = Type.Object(
  {
    id: Type.String({ description: 'conn_…' }),
    ...fields,
    redirect_uri: Type.String({ description: 'Register this at the provider (made from web_public_url)' }),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { additionalProperties: false, description: 'A single sign-on connector; its client secret is never answered' },
);

export const ConnectorQuery = listQuery({});
export const ConnectorList = listResponse('connectors', Connector);
