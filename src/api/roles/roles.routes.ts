import type { RolePreviewService } from '../../access/role-preview.js';
import { type RoleService, toRoleResponse } from '../../roles/role-service.js';
import { RolePreview } from '../access/access.schema.js';
import type { App } from '../app-types.js';
import { collectionRoutes } from '../collection-routes.js';
import { declareRoutes } from '../declare-routes.js';
import { listAnswer } from '../list-answer.js';
import { authenticatedContext } from '../request-context.js';
import { Role, RoleInput, RoleList, RoleParams, RoleQuery } from './roles.schema.js';

export function roleRoutes(app: App, deps: { roles: RoleService; rolePreview: RolePreviewService }): void {
  const { roles } = deps;
  const route = declareRoutes(app, { tags: ['roles'], resource: 'roles' });
  const sendRoles = listAnswer('roles', Role, toRoleResponse);

  const items = collectionRoutes(route, '/v1/roles', RoleParams);

  items.list({ summary: 'List roles', querystring: RoleQuery, 200: RoleList }, (query, reply) =>
    sendRoles(reply, roles.list(query)),
  );

  items.create(
    { summary: 'Create a role', grants: ['role-definition'], body: RoleInput, 201: Role },
    async (ctx, body) => toRoleResponse(await roles.create(ctx, body)),
  );

  items.get({ summary: 'Get a role by id or name', 200: Role }, roles.getItem, toRoleResponse);

  items.replace(
    {
      summary: 'Replace a role (built-in roles cannot be changed)',
      grants: ['role-definition'],
      body: RoleInput,
      200: Role,
    },
    async (ctx, id, body) => toRoleResponse(await roles.replace(ctx, id, body)),
  );

  route.post(
    '/v1/roles/:id/preview',
    {
      permission: 'update',
      grants: [],
      summary:
        'Preview a change of a role before saving it: who would gain or lose what (resources, and as whom), as the access checker decides; only principals and resources you may see',
      params: RoleParams,
      body: RoleInput,
      200: RolePreview,
    },
    async (request) => {
      const ctx = authenticatedContext(request);
      const role = roles.get(request.params.id);
      return deps.rolePreview.preview(ctx.principal, role.name, request.body);
    },
  );

  items.remove({ summary: 'Delete a role (not a built-in one, not one in use)', grants: [] }, (ctx, id) =>
    roles.remove(ctx, id),
  );
}
