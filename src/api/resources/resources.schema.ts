import { Type } from '@sinclair/typebox';
import { Description, LabelFilter, Labels, listQuery, listResponse, Name, Timestamp } from '../schemas.js';

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
  },
  { additionalProperties: false },
);

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

export const ResourceParams = Type.Object(
  {
    id: Type.String({ maxLength: 80, pattern: '^(db|srv|app)_[0-9a-z]{26}$', description: 'db_…, srv_… or app_…' }),
  },
  { additionalProperties: false },
);
