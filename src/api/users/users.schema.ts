import { Type } from '@sinclair/typebox';
import { idPattern } from '../../lib/ids.js';
import { CreatedBy, Name, PLAIN_TEXT_PATTERN, Timestamp } from '../../lib/shapes.js';
import { listQuery, listResponse, pathId } from '../schemas.js';

export const UserId = Type.String({ pattern: idPattern('user'), description: 'user_…' });

const Traits = Type.Record(
  Type.String({ pattern: '^[a-z][a-z0-9_]{0,31}$' }),
  Type.Array(Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9._@-]+$' }), { maxItems: 32 }),
  { maxProperties: 16, description: 'Values roles can refer to, e.g. {"logins": ["ubuntu"]}' },
);

export const User = Type.Object(
  {
    id: UserId,
    name: Name,
    roles: Type.Array(Name),
    traits: Traits,
    status: Type.Union([Type.Literal('active'), Type.Literal('suspended')]),
    auth: Type.Optional(
      Type.String({
        description:
          'The single sign-on connector this user signs in through; its roles are then what the provider maps, set at every sign-in',
      }),
    ),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { additionalProperties: false },
);

export const CreateUser = Type.Object(
  {
    name: Name,
    roles: Type.Array(Name, { maxItems: 32, default: [] }),
    traits: Type.Optional(Traits),
  },
  { additionalProperties: false },
);

/** What PATCH changes: roles and traits (the name and status stay). */
export const UpdateUser = Type.Object(
  {
    roles: Type.Optional(Type.Array(Name, { maxItems: 32 })),
    traits: Type.Optional(Traits),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const UserQuery = listQuery({
  name: Type.Optional(Type.String({ maxLength: 64, description: 'Exact user name' })),
  role: Type.Optional(Type.String({ maxLength: 64, description: 'Users holding this role' })),
});

export const UserList = listResponse('users', User);

export const DeletedUser = Type.Object(
  {
    id: UserId,
    ended_sessions: Type.Array(Type.String(), {
      description: "Live sessions ended with the user: its own and its agents' (sess_…)",
    }),
    confirmed_ended_sessions: Type.Array(Type.String(), {
      description:
        'Of ended_sessions, those whose proxy confirmed within 3 s that it ended them; the others are marked terminated and end when their proxy sees it',
    }),
  },
  { additionalProperties: false },
);

export const CreateApiKey = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 64, pattern: PLAIN_TEXT_PATTERN, default: 'default' }),
    ttl: Type.Optional(
      Type.Integer({ minimum: 60, maximum: 31_536_000, description: 'Lifetime in seconds; none means no expiry' }),
    ),
  },
  { additionalProperties: false },
);

export const ApiKey = Type.Object(
  {
    id: Type.String({ pattern: idPattern('apiKey') }),
    name: Type.String(),
    hint: Type.String({ description: 'The first characters of the key, to tell keys apart' }),
    created_at: Timestamp,
    expires_at: Type.Union([Timestamp, Type.Null()]),
    created_by: CreatedBy,
  },
  { additionalProperties: false },
);

export const NewApiKey = Type.Object(
  {
    ...ApiKey.properties,
    api_key: Type.String({ description: 'The secret, shown only in this response' }),
  },
  { additionalProperties: false },
);

export const ApiKeyList = Type.Object({ api_keys: Type.Array(ApiKey) }, { additionalProperties: false });

/** A user in a path: its id or, like roles, its name (resolved by plugins/user-names.ts). */
export const UserRef = Type.String({
  minLength: 1,
  maxLength: 80,
  pattern: '^[A-Za-z0-9][A-Za-z0-9._@-]*$',
  description: 'The user id (user_…) or its name',
});

export const UserKeyParams = Type.Object({ id: UserRef, key_id: pathId('apiKey') }, { additionalProperties: false });

/** A login's id: its token family (never a secret: ending it needs the owner's own token). */
export const LoginId = Type.String({ pattern: '^[A-Za-z0-9_-]{16}$', description: 'A login (token family) id' });

export const Login = Type.Object(
  {
    id: LoginId,
    via: Type.Union([Type.Literal('api_key'), Type.Literal('sso'), Type.Literal('passkey'), Type.Literal('unknown')], {
      description:
        'The first factor: an API key, a single sign-on, a passkey (unknown: a login from before this was kept)',
    }),
    address: Type.Optional(Type.String({ description: 'The address the login came from' })),
    connector: Type.Optional(Type.String({ description: 'The single sign-on connector' })),
    api_key_id: Type.Optional(Type.String({ description: 'The API key it was made with' })),
    console: Type.Boolean({ description: 'A console sign-in (else the API or the command line)' }),
    started_at: Timestamp,
    last_refreshed_at: Timestamp,
    expires_at: Timestamp,
    pending: Type.Boolean({ description: 'Waiting for its second factor: it opens nothing yet' }),
    current: Type.Boolean({ description: 'The login this request came with' }),
  },
  { additionalProperties: false },
);

export const LoginList = Type.Object({ logins: Type.Array(Login) }, { additionalProperties: false });

export const LoginParams = Type.Object({ login_id: LoginId }, { additionalProperties: false });
