import { Type } from '@sinclair/typebox';
import { Resource, ResourceKindSchema } from '../../resources/resource-shapes.js';
import { LabelFilter, listQuery, listResponse, pathId } from '../schemas.js';

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

export const ServerParams = Type.Object({ id: pathId('server') }, { additionalProperties: false });

export const KubeconfigParams = Type.Object(
  {
    id: Type.String({
      minLength: 1,
      maxLength: 80,
      pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$',
      description: 'kube_… id or the cluster’s name',
    }),
  },
  { additionalProperties: false },
);

export const ResourceParams = Type.Object(
  {
    id: pathId(['database', 'server', 'app', 'kubeCluster'], 'db_…, srv_…, app_… or kube_…'),
  },
  { additionalProperties: false },
);
