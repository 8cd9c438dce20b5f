import { Type } from '@sinclair/typebox';
import { type RoleService, toRoleResponse } from '../../roles/role-service.js';
import type { App } from '../app-types.js';
import { declareRoutes } from '../declare-routes.js';
import { listAnswer } from '../list-answer.js';
import { authenticatedContext } from '../request-context.js';
import { Role, RoleInput, RoleList, RoleParams, RoleQuery } from './roles.schema.js';

export function roleRoutes(app: App, deps: { roles: RoleService }): void {
  const { roles } = deps;
  const route = declareRoutes(app, { tags: ['roles'], resource: 'roles' });
  const sendRoles = listAnswer('roles', Role, toRoleResponse);

  route.get(
    '/v1/roles',
    { permission: 'list', summary: 'List roles', querystring: RoleQuery, 200: RoleList },
    (request, reply) => sendRoles(reply, roles.list(request.query)),
  );

  route.post(
    '/v1/roles',
    {
      permission: 'create',
      grants: ['role-definition'],
      summary: 'Create a role',
      body: RoleInput,
      201: Role,
      location: true,
    },
    async (request) => toRoleResponse(await roles.create(authenticatedContext(request), request.body)),
  );

  route.get(
    '/v1/roles/:id',
    { permission: 'read', summary: 'Get a role by id or name', params: RoleParams, 200: Role },
    async (request) => toRoleResponse(roles.get(request.params.id)),
  );

  route.put(
    '/v1/roles/:id',
    {
      permission: 'update',
      grants: ['role-definition'],
      summary: 'Replace a role (built-in roles cannot be changed)',
      params: RoleParams,
      body: RoleInput,
      200: Role,
    },
    async (request) =>
      toRoleResponse(await roles.replace(authenticatedContext(request), request.params.id, request.body)),
  );

  route.delete(
    '/v1/roles/:id',
    {
      permission: 'delete',
      grants: [],
      summary: 'Delete a role (not a built-in one, not one in use)',
      params: RoleParams,
      204: Type.Null(),
    },
    async (request) => {
      await roles.remove(authenticatedContext(request), request.params.id);
    },
  );
}
