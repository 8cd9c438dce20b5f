// What every route declares about who may call it. A route without a declaration cannot be
// registered (see plugins/security.ts), and a test walks the table to prove it.

import type { Principal } from '../auth/principal.js';
import type { ApiResource, Verb } from '../rbac/types.js';

export type Permission = 'public' | 'authenticated' | { resource: ApiResource; verb: Verb };

/**
 * What a mutating route hands out, and so which covering check (rbac/coverage.ts, enforced by
 * auth/covering.ts in the route's service) guards it. Every POST, PUT, PATCH and DELETE route
 * declares its list; `[]` says it creates or changes no role, role assignment or credential.
 */
export const GRANT_CHECKS = {
  self: 'tokens or tickets for the caller itself, within its own rights',
  'assigned-roles': 'the roles (with the holder’s traits) given to a user or agent are within the caller’s rights',
  'role-definition': 'a role’s allows, and whatever a dropped deny stops denying, are within the caller’s rights',
  'target-principal': 'the caller covers the user or agent whose credentials or consent it creates or removes',
  'credential-roles': 'the caller covers every role an agent credential carries',
  'resource-visible': 'the caller could see the resource it registers',
  'events-readable': 'a webhook feeds audit events: the caller may read them',
  'connector-roles': 'every role a single sign-on connector’s claims_to_roles can give is within the caller’s rights',
} as const;
export type GrantCheck = keyof typeof GRANT_CHECKS;

export const MUTATING_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

declare module 'fastify' {
  interface FastifyContextConfig {
    permission?: Permission;
    grants?: GrantCheck[];
  }
  interface FastifyRequest {
    principal?: Principal;
  }
}

export interface RegisteredRoute {
  method: string;
  url: string;
  permission: Permission | undefined;
  grants: GrantCheck[] | undefined;
}

export const describePermission = (p: Permission): string => (typeof p === 'string' ? p : `${p.resource}:${p.verb}`);
