import { Type } from '@sinclair/typebox';
import { Description, LabelFilter, Labels, listQuery, listResponse, Name, Timestamp } from '../schemas.js';
import { publicKeyLine } from '../ssh-keys/ssh-keys.schema.js';

export const ResourceKindSchema = Type.Union([Type.Literal('database'), Type.Literal('server'), Type.Literal('app')]);
export const DATABASE_PROTOCOLS = ['postgres', 'mysql', 'mongodb', 'redis'] as const;

const Address = Type.String({
  minLength: 1,
  maxLength: 261,
  pattern: '^(\\[[0-9a-fA-F:.]+\\]|[A-Za-z0-9._-]+)(:\\d{1,5})?$',
  description: 'host or host:port (database, server)',
});
const Protocol = Type.Union(
  DATABASE_PROTOCOLS.map((p) => Type.Literal(p)),
  { description: 'Wire protocol (database only)' },
);
const Uri = Type.String({
  maxLength: 2048,
  pattern: '^https?://[^\\s]+$',
  description: 'http(s) URL of the app (app only)',
});

export const ResourceInput = Type.Object(
  {
    kind: ResourceKindSchema,
    name: Name,
    description: Type.Optional(Description),
    labels: Type.Optional(Labels),
    address: Type.Optional(Address),
    protocol: Type.Optional(Protocol),
    uri: Type.Optional(Uri),
    ssh_host_key: Type.Optional(
      publicKeyLine('Server only: its SSH host key (OpenSSH line); without it the proxy pins the key seen first'),
    ),
  },
  { additionalProperties: false },
);

export const HostKeyPinned = Type.Union([Type.Literal('registered'), Type.Literal('first_use'), Type.Null()], {
  description: 'How the host key was pinned: given at registration, or seen on first connection; null: not yet',
});

export const Resource = Type.Object(
  {
    id: Type.String({ description: 'db_…, srv_… or app_…' }),
    kind: ResourceKindSchema,
    name: Name,
    description: Type.String(),
    labels: Labels,
    address: Type.Optional(Address),
    protocol: Type.Optional(Protocol),
    uri: Type.Optional(Uri),
    ssh_public_key: Type.Optional(
      Type.Union([Type.String(), Type.Null()], {
        description: "Server only: Gatehouse's public key for this server, to add to the target's authorized_keys",
      }),
    ),
    ssh_host_key_fingerprint: Type.Optional(
      Type.Union([Type.String(), Type.Null()], {
        description: "Server only: the pinned host key's SHA256 fingerprint",
      }),
    ),
    ssh_host_key_pinned: Type.Optional(HostKeyPinned),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { additionalProperties: false },
);

const filters = {
  name: Type.Optional(Type.String({ maxLength: 64, description: 'Exact name' })),
  label: Type.Optional(LabelFilter),
};
export const ResourceQuery = listQuery({ ...filters, kind: Type.Optional(ResourceKindSchema) });
export const KindQuery = listQuery(filters);

export const ResourceList = listResponse('resources', Resource);
export const DatabaseList = listResponse('databases', Resource);
export const ServerList = listResponse('servers', Resource);
export const AppList = listResponse('apps', Resource);

export const ServerParams = Type.Object(
  { id: Type.String({ maxLength: 80, pattern: '^srv_[0-9a-z]{26}$', description: 'srv_…' }) },
  { additionalProperties: false },
);

export const ResourceParams = Type.Object(
  {
    id: Type.String({ maxLength: 80, pattern: '^(db|srv|app)_[0-9a-z]{26}$', description: 'db_…, srv_… or app_…' }),
  },
  { additionalProperties: false },
);
