import type { AgentService } from '../../agents/agent-service.js';
import type { CredentialService } from '../../agents/credential-service.js';
import type { DelegationService } from '../../agents/delegation-service.js';
import type { TokenIntrospection } from '../../agents/introspection.js';
import type { SigningKeys } from '../../agents/signing-keys.js';
import type { App } from '../app-types.js';
import { type ListAnswer, listAnswer } from '../list-answer.js';
import { authenticatedContext } from '../request-context.js';
import { responses } from '../schemas.js';
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

const tags = ['agents'];

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
  const sendAgents = listAnswer('agents', Agent, agents.toResponse, (a) => agents.lastUsed(a.id));

  app.post(
    '/v1/agents',
    {
      config: { permission: { resource: 'agents', verb: 'create' }, grants: ['assigned-roles'] },
      schema: { tags, summary: 'Create an AI agent', body: CreateAgent, response: responses({ 201: Agent }) },
    },
    async (request, reply) => {
      const agent = await agents.create(authenticatedContext(request), request.body);
      return reply.code(201).header('location', `/v1/agents/${agent.id}`).send(agents.toResponse(agent));
    },
  );

  app.get(
    '/v1/agents',
    {
      config: { permission: { resource: 'agents', verb: 'list' } },
      schema: { tags, summary: 'List agents', querystring: AgentQuery, response: responses({ 200: AgentList }) },
    },
    (request, reply) => sendAgents(reply as unknown as ListAnswer, agents.list(request.query)),
  );

  app.get(
    '/v1/agents/:id',
    {
      config: { permission: { resource: 'agents', verb: 'read' } },
      schema: { tags, summary: 'Get one agent', params: AgentParams, response: responses({ 200: Agent }) },
    },
    async (request) => agents.toResponse(agents.get(request.params.id)),
  );

  app.patch(
    '/v1/agents/:id',
    {
      config: { permission: { resource: 'agents', verb: 'update' }, grants: ['assigned-roles', 'target-principal'] },
      schema: {
        tags,
        summary: 'Change an agent; status suspended or revoked ends every token, credential and session it holds',
        params: AgentParams,
        body: UpdateAgent,
        response: responses({ 200: UpdatedAgent }),
      },
    },
    async (request) => {
      const { agent, ended } = await agents.update(authenticatedContext(request), request.params.id, request.body);
      return { ...agents.toResponse(agent), ...(ended ?? {}) };
    },
  );

  app.delete(
    '/v1/agents/:id',
    {
      config: { permission: { resource: 'agents', verb: 'delete' }, grants: [] },
      schema: {
        tags,
        summary: 'Revoke everything an agent holds and remove it; answers what was ended',
        params: AgentParams,
        response: responses({ 200: DeletedAgent }),
      },
    },
    async (request) => agents.remove(authenticatedContext(request), request.params.id),
  );

  app.post(
    '/v1/agents/:id/credentials',
    {
      config: { permission: { resource: 'agents', verb: 'update' }, grants: ['credential-roles'] },
      schema: {
        tags,
        summary: 'Issue a short-lived, scoped credential to an agent: api_key, token or jwt (shown once)',
        params: AgentParams,
        body: CredentialRequest,
        response: responses({ 201: IssuedCredential }),
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const issued = await agentCredentials.issue(authenticatedContext(request), request.params.id, request.body);
      return reply.code(201).send(issued);
    },
  );

  app.get(
    '/v1/agents/:id/credentials',
    {
      config: { permission: { resource: 'agents', verb: 'read' } },
      schema: {
        tags,
        summary: "List an agent's credentials (metadata only)",
        params: AgentParams,
        querystring: CredentialQuery,
        response: responses({ 200: CredentialList }),
      },
    },
    async (request) => agentCredentials.list(request.params.id, request.query),
  );

  app.delete(
    '/v1/agents/:id/credentials/:credential_id',
    {
      config: { permission: { resource: 'agents', verb: 'update' }, grants: [] },
      schema: {
        tags,
        summary: 'Revoke one credential and every token that came from it',
        params: CredentialParams,
        response: responses({ 200: Revoked }),
      },
    },
    async (request) =>
      agentCredentials.revoke(authenticatedContext(request), request.params.id, request.params.credential_id),
  );

  // Consent is the user's own business: any authenticated user may give or withdraw it for
  // themselves (the service refuses agents and other users without users:update).
  app.post(
    '/v1/agents/:id/delegations',
    {
      config: { permission: 'authenticated', grants: ['target-principal'] },
      schema: {
        tags,
        summary: 'Allow an agent to act for you (token exchange, RFC 8693)',
        params: AgentParams,
        body: DelegationRequest,
        response: responses({ 201: Delegation }),
      },
    },
    async (request, reply) => {
      const grant = await delegations.grant(authenticatedContext(request), request.params.id, request.body);
      return reply.code(201).send(grant);
    },
  );

  app.get(
    '/v1/agents/:id/delegations',
    {
      config: { permission: { resource: 'agents', verb: 'read' } },
      schema: {
        tags,
        summary: 'List the users who allow an agent to act for them',
        params: AgentParams,
        querystring: DelegationQuery,
        response: responses({ 200: DelegationList }),
      },
    },
    async (request) => delegations.list(request.params.id, request.query),
  );

  app.delete(
    '/v1/agents/:id/delegations/:user_id',
    {
      config: { permission: 'authenticated', grants: [] },
      schema: {
        tags,
        summary: 'Withdraw the consent; every token the agent holds for that user is revoked',
        params: DelegationParams,
        response: responses({ 200: Revoked }),
      },
    },
    async (request) => delegations.withdraw(authenticatedContext(request), request.params.id, request.params.user_id),
  );

  // For services that must not wait for a JWT to expire to hear that its agent was stopped.
  app.post(
    '/v1/auth/introspect',
    {
      config: { permission: { resource: 'tokens', verb: 'read' }, grants: [] },
      schema: {
        tags: ['auth'],
        summary: 'Is this token active now? (RFC 7662; a JWT is inactive once its credential or agent is revoked)',
        body: IntrospectionRequest,
        response: responses({ 200: IntrospectionResponse }),
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return deps.tokenIntrospection.introspect(request.body.token);
    },
  );
}

/** The public keys of agent JWTs, for third parties to verify them (RFC 7517). On both listeners. */
export function jwksRoute(app: App, deps: { signingKeys: SigningKeys }): void {
  app.get(
    '/.well-known/jwks.json',
    {
      config: { permission: 'public' },
      schema: { tags, summary: 'Public keys of agent JWTs (JWKS)', response: responses({ 200: Jwks }) },
    },
    async (_request, reply) => {
      // Short enough that a verifier picks up the next key long before it signs (a generation ahead).
      reply.header('cache-control', 'public, max-age=300');
      return deps.signingKeys.jwks();
    },
  );
}
