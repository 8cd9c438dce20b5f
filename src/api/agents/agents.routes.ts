import type { App } from '../app-types.js';
import { authenticatedContext } from '../request-context.js';
import { responses } from '../schemas.js';
import {
  Agent,
  AgentList,
  AgentParams,
  AgentQuery,
  CreateAgent,
  CredentialRequest,
  Credentials,
} from './agents.schema.js';
import { type AgentService, toAgentResponse } from './agents.service.js';

const tags = ['agents'];

export function agentRoutes(app: App, deps: { agents: AgentService }): void {
  const { agents } = deps;

  app.post(
    '/v1/agents',
    {
      config: { permission: { resource: 'agents', verb: 'create' } },
      schema: { tags, summary: 'Create an AI agent', body: CreateAgent, response: responses({ 201: Agent }) },
    },
    async (request, reply) => {
      const agent = await agents.create(authenticatedContext(request), request.body);
      return reply.code(201).header('location', `/v1/agents/${agent.id}`).send(toAgentResponse(agent));
    },
  );

  app.get(
    '/v1/agents',
    {
      config: { permission: { resource: 'agents', verb: 'list' } },
      schema: { tags, summary: 'List agents', querystring: AgentQuery, response: responses({ 200: AgentList }) },
    },
    async (request) => {
      const { items, pagination } = agents.list(request.query);
      return { agents: items.map(toAgentResponse), pagination };
    },
  );

  app.get(
    '/v1/agents/:id',
    {
      config: { permission: { resource: 'agents', verb: 'read' } },
      schema: { tags, summary: 'Get one agent', params: AgentParams, response: responses({ 200: Agent }) },
    },
    async (request) => toAgentResponse(agents.get(request.params.id)),
  );

  app.post(
    '/v1/agents/:id/credentials',
    {
      config: { permission: { resource: 'agents', verb: 'update' } },
      schema: {
        tags,
        summary: 'Issue credentials to an agent: a new API key (shown once) and a short-lived token pair',
        params: AgentParams,
        body: CredentialRequest,
        response: responses({ 201: Credentials }),
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const creds = await agents.issueCredentials(authenticatedContext(request), request.params.id, request.body);
      return reply.code(201).send(creds);
    },
  );
}
