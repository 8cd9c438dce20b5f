import { Type } from '@sinclair/typebox';
import { type RoleService, toRoleResponse } from '../../roles/role-service.js';
import type { App } from '../app-types.js';
import { type ListAnswer, listAnswer } from '../list-answer.js';
import { authenticatedContext } from '../request-context.js';
import { responses } from '../schemas.js';
import { Role, RoleInput, RoleList, RoleParams, RoleQuery } from './roles.schema.js';

const tags = ['roles'];

export function roleRoutes(app: App, deps: { roles: RoleService }): void {
  const { roles } = deps;
  const sendRoles = listAnswer('roles', Role, toRoleResponse);

  app.get(
    '/v1/roles',
    {
      config: { permission: { resource: 'roles', verb: 'list' } },
      schema: { tags, summary: 'List roles', querystring: RoleQuery, response: responses({ 200: RoleList }) },
    },
    (request, reply) => sendRoles(reply as unknown as ListAnswer, roles.list(request.query)),
  );

  app.post(
    '/v1/roles',
    {
      config: { permission: { resource: 'roles', verb: 'create' }, grants: ['role-definition'] },
      schema: { tags, summary: 'Create a role', body: RoleInput, response: responses({ 201: Role }) },
    },
    async (request, reply) => {
      const role = await roles.create(authenticatedContext(request), request.body);
      return reply.code(201).header('location', `/v1/roles/${role.id}`).send(toRoleResponse(role));
    },
  );

  app.get(
    '/v1/roles/:id',
    {
      config: { permission: { resource: 'roles', verb: 'read' } },
      schema: { tags, summary: 'Get a role by id or name', params: RoleParams, response: responses({ 200: Role }) },
    },
    async (request) => toRoleResponse(roles.get(request.params.id)),
  );

  app.put(
    '/v1/roles/:id',
    {
      config: { permission: { resource: 'roles', verb: 'update' }, grants: ['role-definition'] },
      schema: {
        tags,
        summary: 'Replace a role (built-in roles cannot be changed)',
        params: RoleParams,
        body: RoleInput,
        response: responses({ 200: Role }),
      },
    },
    async (request) =>
      toRoleResponse(await roles.replace(authenticatedContext(request), request.params.id, request.body)),
  );

  app.delete(
    '/v1/roles/:id',
    {
      config: { permission: { resource: 'roles', verb: 'delete' }, grants: [] },
      schema: {
        tags,
        summary: 'Delete a role (not a built-in one, not one in use)',
        params: RoleParams,
        response: responses({ 204: Type.Null() }),
      },
    },
    async (request, reply) => {
      await roles.remove(authenticatedContext(request), request.params.id);
      return reply.code(204).send(null);
    },
  );
}
