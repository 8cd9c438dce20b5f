// SSH public keys under /v1/users/{id}/ssh-keys and /v1/agents/{id}/ssh-keys: the same routes for
// both kinds of principal, guarded by that collection's permissions.
import { Type } from '@sinclair/typebox';
import type { PrincipalKind } from '../../auth/records.js';
import type { SshKeyService } from '../../ssh-keys/ssh-key-service.js';
import type { App } from '../app-types.js';
import { authenticatedContext } from '../request-context.js';
import { pathId, responses } from '../schemas.js';
import { UserRef } from '../users/users.schema.js';
import {
  AgentSshKeyParams,
  CreateSshKey,
  SshKey,
  SshKeyList,
  SshKeyQuery,
  UserSshKeyParams,
} from './ssh-keys.schema.js';

const COLLECTION = { user: 'users', agent: 'agents' } as const;

export function sshKeyRoutes(app: App, deps: { sshKeys: SshKeyService }): void {
  for (const kind of ['user', 'agent'] as const) routesFor(app, deps.sshKeys, kind);
}

function routesFor(app: App, sshKeys: SshKeyService, kind: PrincipalKind): void {
  const collection = COLLECTION[kind];
  const base = `/v1/${collection}/:id/ssh-keys`;
  const tags = [collection];
  const IdParams = Type.Object({ id: kind === 'user' ? UserRef : pathId('agent') }, { additionalProperties: false });
  const KeyParams = kind === 'user' ? UserSshKeyParams : AgentSshKeyParams;

  app.post(
    base,
    {
      config: { permission: { resource: collection, verb: 'update' }, grants: ['target-principal'] },
      schema: {
        tags,
        summary: `Register an SSH public key for ${kind === 'user' ? 'a user' : 'an agent'} (ed25519, ecdsa, rsa ≥ 2048)`,
        params: IdParams,
        body: CreateSshKey,
        response: responses({ 201: SshKey }),
      },
    },
    async (request, reply) => {
      const created = await sshKeys.add(authenticatedContext(request), { kind, id: request.params.id }, request.body);
      return reply.code(201).send(created);
    },
  );

  app.get(
    base,
    {
      config: { permission: { resource: collection, verb: 'read' } },
      schema: {
        tags,
        summary: `List the SSH public keys of ${kind === 'user' ? 'a user' : 'an agent'}`,
        params: IdParams,
        querystring: SshKeyQuery,
        response: responses({ 200: SshKeyList }),
      },
    },
    async (request) => sshKeys.list({ kind, id: request.params.id }, request.query),
  );

  app.delete(
    `${base}/:key_id`,
    {
      config: { permission: { resource: collection, verb: 'update' }, grants: ['target-principal'] },
      schema: {
        tags,
        summary: 'Remove an SSH public key',
        params: KeyParams,
        response: responses({ 204: Type.Null() }),
      },
    },
    async (request, reply) => {
      await sshKeys.remove(authenticatedContext(request), { kind, id: request.params.id }, request.params.key_id);
      return reply.code(204).send(null);
    },
  );
}
