import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { toUserResponse, type UserService } from '../../users/user-service.js';
import type { App } from '../app-types.js';
import { type ListAnswer, listAnswer } from '../list-answer.js';
import { authenticatedContext } from '../request-context.js';
import { responses } from '../schemas.js';
import {
  ApiKeyList,
  CreateApiKey,
  CreateUser,
  DeletedUser,
  NewApiKey,
  UpdateUser,
  User,
  UserKeyParams,
  UserList,
  UserQuery,
  UserRef,
} from './users.schema.js';

const IdParams = Type.Object({ id: UserRef }, { additionalProperties: false });
const tags = ['users'];

export function userRoutes(app: App, deps: { users: UserService }): void {
  const { users } = deps;
  const sendUsers = listAnswer('users', User, toUserResponse);
  addressUsersByName(app, users);

  app.get(
    '/v1/users',
    {
      config: { permission: { resource: 'users', verb: 'list' } },
      schema: { tags, summary: 'List users', querystring: UserQuery, response: responses({ 200: UserList }) },
    },
    (request, reply) => sendUsers(reply as unknown as ListAnswer, users.list(request.query)),
  );

  app.post(
    '/v1/users',
    {
      config: { permission: { resource: 'users', verb: 'create' }, grants: ['assigned-roles'] },
      schema: { tags, summary: 'Create a user', body: CreateUser, response: responses({ 201: User }) },
    },
    async (request, reply) => {
      const user = await users.create(authenticatedContext(request), request.body);
      return reply.code(201).header('location', `/v1/users/${user.id}`).send(toUserResponse(user));
    },
  );

  app.get(
    '/v1/users/:id',
    {
      config: { permission: { resource: 'users', verb: 'read' } },
      schema: { tags, summary: 'Get a user', params: IdParams, response: responses({ 200: User }) },
    },
    async (request) => toUserResponse(users.get(request.params.id)),
  );

  app.patch(
    '/v1/users/:id',
    {
      config: { permission: { resource: 'users', verb: 'update' }, grants: ['assigned-roles', 'target-principal'] },
      schema: {
        tags,
        summary: 'Change a user’s roles or traits (you must cover the user as it is and as it becomes)',
        params: IdParams,
        body: UpdateUser,
        response: responses({ 200: User }),
      },
    },
    async (request) =>
      toUserResponse(await users.update(authenticatedContext(request), request.params.id, request.body)),
  );

  app.delete(
    '/v1/users/:id',
    {
      config: { permission: { resource: 'users', verb: 'delete' }, grants: ['target-principal'] },
      schema: {
        tags,
        summary:
          'Delete a user, their API keys and tokens; their agents are revoked and their live sessions ended (the answer says which the proxies confirmed)',
        params: IdParams,
        response: responses({ 200: DeletedUser }),
      },
    },
    async (request) => users.remove(authenticatedContext(request), request.params.id),
  );

  app.post(
    '/v1/users/:id/api-keys',
    {
      config: { permission: { resource: 'users', verb: 'update' }, grants: ['target-principal'] },
      schema: {
        tags,
        summary: 'Create an API key for a user (the secret is shown once)',
        params: IdParams,
        body: CreateApiKey,
        response: responses({ 201: NewApiKey }),
      },
    },
    async (request, reply) => {
      const created = await users.createApiKey(authenticatedContext(request), request.params.id, request.body);
      return reply.code(201).send(created);
    },
  );

  app.get(
    '/v1/users/:id/api-keys',
    {
      config: { permission: { resource: 'users', verb: 'read' } },
      schema: {
        tags,
        summary: "List a user's API keys (metadata only)",
        params: IdParams,
        response: responses({ 200: ApiKeyList }),
      },
    },
    async (request) => ({ api_keys: users.listApiKeys(request.params.id) }),
  );

  app.delete(
    '/v1/users/:id/api-keys/:key_id',
    {
      config: { permission: { resource: 'users', verb: 'update' }, grants: ['target-principal'] },
      schema: {
        tags,
        summary: 'Delete an API key and revoke the tokens issued from it',
        params: UserKeyParams,
        response: responses({ 204: Type.Null() }),
      },
    },
    async (request, reply) => {
      await users.deleteApiKey(authenticatedContext(request), request.params.id, request.params.key_id);
      return reply.code(204).send(null);
    },
  );
}

/**
 * Users can be addressed by name, like roles: every `/v1/users/:id…` route registered after this
 * (these, and the user SSH-key routes) resolves a name to the user's id before its handler. An id
 * wins over a name; a name that matches nobody stays as it is, and the service answers 404.
 */
function addressUsersByName(app: App, users: Pick<UserService, 'get' | 'findByName'>): void {
  const exists = (id: string) => {
    try {
      users.get(id);
      return true;
    } catch {
      return false;
    }
  };
  const resolve = (request: FastifyRequest, _reply: FastifyReply, done: () => void) => {
    const params = request.params as { id: string };
    if (!params.id.startsWith('user_') || !exists(params.id)) {
      const user = users.findByName(params.id);
      if (user) params.id = user.id;
    }
    done();
  };
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith('/v1/users/:id')) return;
    const existing = route.preHandler ? [route.preHandler].flat() : [];
    route.preHandler = [resolve, ...existing];
  });
}
