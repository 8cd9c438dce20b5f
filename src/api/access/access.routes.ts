// Effective access (access/effective-access.ts): what a principal reaches and as whom. A principal
// may read its own; another's needs users:read or agents:read, checked here because the route
// serves both (the declared permission is only "authenticated").
import type { EffectiveAccess as Access, EffectiveAccessService } from '../../access/effective-access.js';
import type { AgentService } from '../../agents/agent-service.js';
import type { Apps } from '../../apps/apps.js';
import type { Principal } from '../../auth/principal.js';
import { keys } from '../../auth/records.js';
import type { StateStore } from '../../backend/state.js';
import type { Kubeconfigs } from '../../kube/kubeconfig.js';
import { GatehouseError } from '../../lib/errors.js';
import { mcpUrlOf, type ResourceRecord } from '../../resources/resource-service.js';
import type { UserService } from '../../users/user-service.js';
import type { App } from '../app-types.js';
import { declareRoutes } from '../declare-routes.js';
import { authenticatedContext } from '../request-context.js';
import { AccessQuery, AgentAccessParams, EffectiveAccess, UserAccessParams } from './access.schema.js';

type Endpoint = { host: string; port: number };

function mayRead(principal: Principal, target: { kind: 'user' | 'agent'; id: string }): void {
  if (principal.kind === target.kind && principal.id === target.id) return;
  const collection = target.kind === 'user' ? 'users' : 'agents';
  if (!principal.policy.can(collection, 'read').allowed)
    throw new GatehouseError('forbidden', `your roles do not allow ${collection}:read (you may read your own access)`);
}

export function accessRoutes(
  app: App,
  deps: {
    effectiveAccess: EffectiveAccessService;
    users: Pick<UserService, 'get'>;
    agents: Pick<AgentService, 'get'>;
    sshEndpoint: () => Endpoint | undefined;
    dbEndpoint: () => Endpoint | undefined;
    kubeconfigs: Pick<Kubeconfigs, 'endpoint'>;
    state: Pick<StateStore, 'get'>;
    apps: Pick<Apps, 'addressing'>;
  },
): void {
  const { users, agents } = deps;
  // An app's public_url (and an MCP app's mcp_url) from the addressing the app door matches hosts
  // with (src/apps/app-addressing.ts), as /v1/resources answers it: Launch opens what the door serves.
  const withUrls = (r: Access['resources'][number]) => {
    const record = r.kind === 'app' ? deps.state.get<ResourceRecord>(keys.resource(r.id))?.value : undefined;
    const publicUrl = record && deps.apps.addressing.publicUrlOf(record);
    if (!record || publicUrl === undefined) return r;
    return {
      ...r,
      public_url: publicUrl,
      ...(record.protocol === 'mcp' ? { mcp_url: mcpUrlOf(publicUrl, record) } : {}),
    };
  };
  // Where to connect rides along, so a Connect panel can write the exact command.
  const withProxy = (access: Access) => {
    const ssh = deps.sshEndpoint();
    const postgres = deps.dbEndpoint();
    const kubernetes = deps.kubeconfigs.endpoint?.url;
    return {
      ...access,
      resources: access.resources.map(withUrls),
      proxy: { ...(ssh && { ssh }), ...(postgres && { postgres }), ...(kubernetes && { kubernetes }) },
    };
  };
  const effectiveAccess = {
    of: (...args: Parameters<EffectiveAccessService['of']>) => withProxy(deps.effectiveAccess.of(...args)),
    ofPrincipal: (...args: Parameters<EffectiveAccessService['ofPrincipal']>) =>
      withProxy(deps.effectiveAccess.ofPrincipal(...args)),
  };
  /** A user's or agent's access: your own, or another's with users:read or agents:read. */
  const accessOf = (
    request: Parameters<typeof authenticatedContext>[0],
    target: { kind: 'user' | 'agent'; id: string },
    query: Parameters<EffectiveAccessService['ofPrincipal']>[1],
  ) => {
    mayRead(authenticatedContext(request).principal, target);
    const { id, name } = target.kind === 'user' ? users.get(target.id) : agents.get(target.id);
    return effectiveAccess.ofPrincipal({ kind: target.kind, id, name }, query);
  };
  const route = declareRoutes(app, { tags: ['access'] });

  route.get(
    '/v1/users/me/access',
    {
      permission: 'authenticated',
      summary:
        'Your effective access: every resource you reach and as whom (logins, database users and names, Kubernetes users and groups), with the role that grants each',
      querystring: AccessQuery,
      200: EffectiveAccess,
    },
    async (request) => effectiveAccess.of(authenticatedContext(request).principal, request.query),
  );

  route.get(
    '/v1/users/:id/access',
    {
      permission: 'authenticated',
      summary: "A user's effective access, per role (yours, or anyone's with users:read)",
      params: UserAccessParams,
      querystring: AccessQuery,
      200: EffectiveAccess,
    },
    async (request) => accessOf(request, { kind: 'user', id: request.params.id }, request.query),
  );

  route.get(
    '/v1/agents/:id/access',
    {
      permission: 'authenticated',
      summary:
        "An agent's effective access (its roles within its owner's), per role (its own, or any with agents:read)",
      params: AgentAccessParams,
      querystring: AccessQuery,
      200: EffectiveAccess,
    },
    async (request) => accessOf(request, { kind: 'agent', id: request.params.id }, request.query),
  );
}
