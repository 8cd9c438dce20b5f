import type { AgentService } from '../../agents/agent-service.js';
import type { CredentialService } from '../../agents/credential-service.js';
import type { DelegationService } from '../../agents/delegation-service.js';
import type { TokenIntrospection } from '../../agents/introspection.js';
import type { SigningKeys } from '../../agents/signing-keys.js';
import type { App } from '../app-types.js';
import { collectionRoutes } from '../collection-routes.js';
import { declareRoutes } from '../declare-routes.js';
import { listAnswer } from '../list-answer.js';
import { authenticatedContext } from '../request-context.js';
import {
  Agent,
  AgentList,
  AgentParams,
  AgentQuery,
  CreateAgent,
  CredentialList,
  CredentialParams,
  CredentialQuery,
  CredentialRequest,
  Delegation,
  DelegationList,
  DelegationParams,
  DelegationQuery,
  DelegationRequest,
  DeletedAgent,
  IntrospectionRequest,
  IntrospectionResponse,
  IssuedCredential,
  Jwks,
  Revoked,
  UpdateAgent,
  UpdatedAgent,
} from './agents.schema.js';

export function agentRoutes(
  app: App,
  deps: {
    agents: AgentService;
    agentCredentials: CredentialService;
    delegations: DelegationService;
    tokenIntrospection: TokenIntrospection;
  },
): void {
  const { agents, agentCredentials, delegations } = deps;
  const route = declareRoutes(app, { tags: ['agents'], resource: 'agents' });
  const sendAgents = listAnswer('agents', Agent, agents.toResponse, (a) => agents.lastUsed(a.id));

  const items = collectionRoutes(route, '/v1/agents', AgentParams);

  items.create(
    { summary: 'Create an AI agent', grants: ['assigned-roles'], body: CreateAgent, 201: Agent },
    async (ctx, body) => agents.toResponse(await agents.create(ctx, body)),
  );

  items.list({ summary: 'List agents', querystring: AgentQuery, 200: AgentList }, (query, reply) =>
    sendAgents(reply, agents.list(query)),
  );

  items.get({ summary: 'Get one agent', 200: Agent }, agents.getItem, (a) => agents.toResponse(a));

  items.update(
    {
      summary: 'Change an agent; status suspended or revoked ends every token, credential and session it holds',
      grants: ['assigned-roles', 'target-principal'],
      body: UpdateAgent,
      200: UpdatedAgent,
    },
    async (ctx, id, body) => {
      const { agent, ended } = await agents.update(ctx, id, body);
      return { ...agents.toResponse(agent), ...(ended ?? {}) };
    },
  );

  items.remove(
    {
      summary: 'Revoke everything an agent holds and remove it; answers what was ended',
      grants: [],
      200: DeletedAgent,
    },
    (ctx, id) => agents.remove(ctx, id),
  );

  route.post(
    '/v1/agents/:id/credentials',
    {
      permission: 'update',
      grants: ['credential-roles'],
      summary: 'Issue a short-lived, scoped credential to an agent: api_key, token or jwt (shown once)',
      params: AgentParams,
      body: CredentialRequest,
      201: IssuedCredential,
      noStore: true,
    },
    async (request) => agentCredentials.issue(authenticatedContext(request), request.params.id, request.body),
  );

  route.get(
    '/v1/agents/:id/credentials',
    {
      permission: 'read',
      summary: "List an agent's credentials (metadata only)",
      params: AgentParams,
      querystring: CredentialQuery,
      200: CredentialList,
    },
    async (request) => agentCredentials.list(request.params.id, request.query),
  );

  route.delete(
    '/v1/agents/:id/credentials/:credential_id',
    {
      permission: 'update',
      grants: [],
      summary: 'Revoke one credential and every token that came from it',
      params: CredentialParams,
      200: Revoked,
    },
    async (request) =>
      agentCredentials.revoke(authenticatedContext(request), request.params.id, request.params.credential_id),
  );

  // Consent is the user's own business: any authenticated user may give or withdraw it for
  // themselves (the service refuses agents and other users without users:update).
  route.post(
    '/v1/agents/:id/delegations',
    {
      permission: 'authenticated',
      grants: ['target-principal'],
      summary: 'Allow an agent to act for you (token exchange, RFC 8693)',
      params: AgentParams,
      body: DelegationRequest,
      201: Delegation,
    },
    async (request) => delegations.grant(authenticatedContext(request), request.params.id, request.body),
  );

  route.get(
    '/v1/agents/:id/delegations',
    {
      permission: 'read',
      summary: 'List the users who allow an agent to act for them',
      params: AgentParams,
      querystring: DelegationQuery,
      200: DelegationList,
    },
    async (request) => delegations.list(request.params.id, request.query),
  );

  route.delete(
    '/v1/agents/:id/delegations/:user_id',
    {
      permission: 'authenticated',
      grants: [],
      summary: 'Withdraw the consent; every token the agent holds for that user is revoked',
      params: DelegationParams,
      200: Revoked,
    },
    async (request) => delegations.withdraw(authenticatedContext(request), request.params.id, request.params.user_id),
  );

  // For services that must not wait for a JWT to expire to hear that its agent was stopped.
  route.post(
    '/v1/auth/introspect',
    {
      permission: { resource: 'tokens', verb: 'read' },
      grants: [],
      tags: ['auth'],
      summary: 'Is this token active now? (RFC 7662; a JWT is inactive once its credential or agent is revoked)',
      body: IntrospectionRequest,
      200: IntrospectionResponse,
      noStore: true,
    },
    async (request) => deps.tokenIntrospection.introspect(request.body.token),
  );
}

/** The public keys of agent JWTs, for third parties to verify them (RFC 7517). On both listeners. */
export function jwksRoute(app: App, deps: { signingKeys: SigningKeys }): void {
  const route = declareRoutes(app, { tags: ['agents'] });
  route.get(
    '/.well-known/jwks.json',
    { permission: 'public', summary: 'Public keys of agent JWTs (JWKS)', 200: Jwks },
    async (_request, reply) => {
      // Short enough that a verifier picks up the next key long before it signs (a generation ahead).
      reply.header('cache-control', 'public, max-age=300');
      return deps.signingKeys.jwks();
    },
  );
}
