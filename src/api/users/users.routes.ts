import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { toUserResponse, type UserService } from '../../users/user-service.js';
import type { App } from '../app-types.js';
import { collectionRoutes } from '../collection-routes.js';
import { declareRoutes } from '../declare-routes.js';
import { listAnswer } from '../list-answer.js';
import { authenticatedContext } from '../request-context.js';
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

export function userRoutes(app: App, deps: { users: UserService }): void {
  const { users } = deps;
  const route = declareRoutes(app, { tags: ['users'], resource: 'users' });
  const sendUsers = listAnswer('users', User, toUserResponse);
  addressUsersByName(app, users);

  const items = collectionRoutes(route, '/v1/users', IdParams);

  items.list({ summary: 'List users', querystring: UserQuery, 200: UserList }, (query, reply) =>
    sendUsers(reply, users.list(query)),
  );

  items.create(
    { summary: 'Create a user', grants: ['assigned-roles'], body: CreateUser, 201: User },
    async (ctx, body) => toUserResponse(await users.create(ctx, body)),
  );

  items.get({ summary: 'Get a user', 200: User }, users.getItem, toUserResponse);

  items.update(
    {
      summary: 'Change a user’s roles or traits (you must cover the user as it is and as it becomes)',
      grants: ['assigned-roles', 'target-principal'],
      body: UpdateUser,
      200: User,
    },
    async (ctx, id, body) => toUserResponse(await users.update(ctx, id, body)),
  );

  items.remove(
    {
      summary:
        'Delete a user, their API keys and tokens; their agents are revoked and their live sessions ended (the answer says which the proxies confirmed)',
      grants: ['target-principal'],
      200: DeletedUser,
    },
    (ctx, id) => users.remove(ctx, id),
  );

  route.post(
    '/v1/users/:id/api-keys',
    {
      permission: 'update',
      grants: ['target-principal'],
      summary: 'Create an API key for a user (the secret is shown once)',
      params: IdParams,
      body: CreateApiKey,
      201: NewApiKey,
    },
    async (request) => users.createApiKey(authenticatedContext(request), request.params.id, request.body),
  );

  route.get(
    '/v1/users/:id/api-keys',
    { permission: 'read', summary: "List a user's API keys (metadata only)", params: IdParams, 200: ApiKeyList },
    async (request) => ({ api_keys: users.listApiKeys(request.params.id) }),
  );

  route.delete(
    '/v1/users/:id/api-keys/:key_id',
    {
      permission: 'update',
      grants: ['target-principal'],
      summary: 'Delete an API key and revoke the tokens issued from it',
      params: UserKeyParams,
      204: Type.Null(),
    },
    async (request) => {
      await users.deleteApiKey(authenticatedContext(request), request.params.id, request.params.key_id);
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
