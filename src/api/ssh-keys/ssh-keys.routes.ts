// SSH public keys under /v1/users/{id}/ssh-keys and /v1/agents/{id}/ssh-keys: the same routes for
// both kinds of principal, guarded by that collection's permissions.
import { Type } from '@sinclair/typebox';
import type { PrincipalKind } from '../../auth/records.js';
import type { SshKeyService } from '../../ssh-keys/ssh-key-service.js';
import type { App } from '../app-types.js';
import { declareRoutes } from '../declare-routes.js';
import { authenticatedContext } from '../request-context.js';
import { pathId } from '../schemas.js';
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
  const route = declareRoutes(app, { tags: [collection], resource: collection });
  const base = `/v1/${collection}/:id/ssh-keys`;
  const IdParams = Type.Object({ id: kind === 'user' ? UserRef : pathId('agent') }, { additionalProperties: false });
  const KeyParams = kind === 'user' ? UserSshKeyParams : AgentSshKeyParams;
  const aPrincipal = kind === 'user' ? 'a user' : 'an agent';

  route.post(
    base,
    {
      permission: 'update',
      grants: ['target-principal'],
      summary: `Register an SSH public key for ${aPrincipal} (ed25519, ecdsa, rsa ≥ 2048)`,
      params: IdParams,
      body: CreateSshKey,
      201: SshKey,
    },
    async (request) => sshKeys.add(authenticatedContext(request), { kind, id: request.params.id }, request.body),
  );

  route.get(
    base,
    {
      permission: 'read',
      summary: `List the SSH public keys of ${aPrincipal}`,
      params: IdParams,
      querystring: SshKeyQuery,
      200: SshKeyList,
    },
    async (request) => sshKeys.list({ kind, id: request.params.id }, request.query),
  );

  route.delete(
    `${base}/:key_id`,
    {
      permission: 'update',
      grants: ['target-principal'],
      summary: 'Remove an SSH public key',
      params: KeyParams,
      204: Type.Null(),
    },
    async (request) => {
      await sshKeys.remove(authenticatedContext(request), { kind, id: request.params.id }, request.params.key_id);
    },
  );
}
