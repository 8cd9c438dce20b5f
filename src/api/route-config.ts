// What every route declares about who may call it. A route without a declaration cannot be
// registered (see plugins/security.ts), and a test walks the table to prove it.

import type { Principal } from '../auth/principal.js';
import type { ApiResource, Verb } from '../rbac/types.js';

export type Permission = 'public' | 'authenticated' | { resource: ApiResource; verb: Verb };

declare module 'fastify' {
  interface FastifyContextConfig {
    permission?: Permission;
  }
  interface FastifyRequest {
    principal?: Principal;
  }
}

export interface RegisteredRoute {
  method: string;
  url: string;
  permission: Permission | undefined;
}

export const describePermission = (p: Permission): string => (typeof p === 'string' ? p : `${p.resource}:${p.verb}`);
