// The signed-in user's own SSH keys, API keys and logins, under /v1/users/me/…: what a profile page needs
// without users:read or users:update, which are an admin's. Each acts on the caller only (the same
// services and covering checks as the /v1/users/{id}/… routes, the target being the caller itself);
// an agent has no profile here (its owner manages it under /v1/agents/{id}/…).
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { LoginService } from '../../auth/logins.js';
import type { Principal, RequestContext } from '../../auth/principal.js';
import { GatehouseError } from '../../lib/errors.js';
import type { SshKeyService } from '../../ssh-keys/ssh-key-service.js';
import type { UserService } from '../../users/user-service.js';
import type { App } from '../app-types.js';
import { declareRoutes } from '../declare-routes.js';
import { authenticatedContext } from '../request-context.js';
import { pathId } from '../schemas.js';
import { CreateSshKey, SshKey, SshKeyList, SshKeyQuery } from '../ssh-keys/ssh-keys.schema.js';
import { ApiKeyList, CreateApiKey, LoginList, LoginParams, NewApiKey } from './users.schema.js';

const SshKeyParams = Type.Object({ key_id: pathId('sshKey') }, { additionalProperties: false });
const ApiKeyParams = Type.Object({ key_id: pathId('apiKey') }, { additionalProperties: false });

/** The caller as a user, or 403: these routes are a person's own (sessions/my-sessions.routes.ts too). */
export function me(request: FastifyRequest): RequestContext & { principal: Principal; userId: string } {
  const ctx = authenticatedContext(request);
  if (ctx.principal.kind !== 'user')
    throw new GatehouseError('forbidden', 'only a user has a profile; an agent’s keys are its owner’s to manage');
  return { ...ctx, userId: ctx.principal.id };
}

export function meRoutes(app: App, deps: { users: UserService; sshKeys: SshKeyService; logins: LoginService }): void {
  const { users, sshKeys, logins } = deps;
  const route = declareRoutes(app, { tags: ['users'] });

  route.get(
    '/v1/users/me/ssh-keys',
    { permission: 'authenticated', summary: 'Your SSH public keys', querystring: SshKeyQuery, 200: SshKeyList },
    async (request) => sshKeys.list({ kind: 'user', id: me(request).userId }, request.query),
  );

  route.post(
    '/v1/users/me/ssh-keys',
    {
      permission: 'authenticated',
      grants: ['self'],
      summary: 'Register an SSH public key of yours (ed25519, ecdsa, rsa ≥ 2048): ssh through the proxy with it',
      body: CreateSshKey,
      201: SshKey,
    },
    async (request) => {
      const ctx = me(request);
      return sshKeys.add(ctx, { kind: 'user', id: ctx.userId }, request.body);
    },
  );

  route.delete(
    '/v1/users/me/ssh-keys/:key_id',
    {
      permission: 'authenticated',
      grants: ['self'],
      summary: 'Remove an SSH public key of yours (sessions it opened end)',
      params: SshKeyParams,
      204: Type.Null(),
    },
    async (request) => {
      const ctx = me(request);
      await sshKeys.remove(ctx, { kind: 'user', id: ctx.userId }, request.params.key_id);
    },
  );

  route.get(
    '/v1/users/me/api-keys',
    { permission: 'authenticated', summary: 'Your API keys (metadata only)', 200: ApiKeyList },
    async (request) => ({ api_keys: users.listApiKeys(me(request).userId) }),
  );

  route.post(
    '/v1/users/me/api-keys',
    {
      permission: 'authenticated',
      grants: ['self'],
      summary: 'Create an API key of yours, within your own rights (the secret is shown once)',
      body: CreateApiKey,
      201: NewApiKey,
    },
    async (request) => {
      const ctx = me(request);
      return users.createApiKey(ctx, ctx.userId, request.body);
    },
  );

  route.delete(
    '/v1/users/me/api-keys/:key_id',
    {
      permission: 'authenticated',
      grants: ['self'],
      summary: 'Delete an API key of yours and revoke the tokens issued from it',
      params: ApiKeyParams,
      204: Type.Null(),
    },
    async (request) => {
      const ctx = me(request);
      await users.deleteApiKey(ctx, ctx.userId, request.params.key_id);
    },
  );

  route.get(
    '/v1/users/me/logins',
    {
      permission: 'authenticated',
      summary: 'Your live logins: how each began (API key, single sign-on, passkey), from where, and when',
      200: LoginList,
    },
    async (request) => ({ logins: await logins.list(me(request)) }),
  );

  route.delete(
    '/v1/users/me/logins/:login_id',
    {
      permission: 'authenticated',
      grants: [],
      summary: 'End one login of yours: its access and refresh tokens are revoked at once',
      params: LoginParams,
      204: Type.Null(),
    },
    async (request) => {
      await logins.revoke(me(request), request.params.login_id);
    },
  );

  route.delete(
    '/v1/users/me/logins',
    {
      permission: 'authenticated',
      grants: [],
      summary: 'Sign out everywhere: every login of yours ends, this one included',
      204: Type.Null(),
    },
    async (request) => {
      await logins.revokeAll(me(request));
    },
  );
}
