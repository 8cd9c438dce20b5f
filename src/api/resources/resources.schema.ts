import { Type } from '@sinclair/typebox';
import { Resource, ResourceKindSchema } from '../../resources/resource-shapes.js';
import { LabelFilter, listQuery, listResponse } from '../schemas.js';

export { Resource, ResourceInput, ResourcePatch } from '../../resources/resource-shapes.js';

const filters = {
  name: Type.Optional(Type.String({ maxLength: 64, description: 'Exact name' })),
  label: Type.Optional(LabelFilter),
  search: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'Text the name, description, address, URI or a label (key=value) contains, any case',
    }),
  ),
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
    id: Type.String({
      maxLength: 80,
      pattern: '^(db|srv|app|kube)_[0-9a-z]{26}$',
      description: 'db_…, srv_…, app_… or kube_…',
    }),
  },
  { additionalProperties: false },
);
