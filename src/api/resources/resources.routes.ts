import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { Kubeconfigs } from '../../kube/kubeconfig.js';
import { type ProtectedKind, type ResourceService, toResourceResponse } from '../../resources/resource-service.js';
import type { App } from '../app-types.js';
import { authenticatedContext } from '../request-context.js';
import { responses } from '../schemas.js';
import {
  AppList,
  DatabaseList,
  KindQuery,
  Resource,
  ResourceInput,
  ResourceList,
  ResourceParams,
  ResourcePatch,
  ResourceQuery,
  ServerList,
  ServerParams,
} from './resources.schema.js';

const tags = ['resources'];
const LIST = { permission: { resource: 'resources', verb: 'list' } } as const;

export function resourceRoutes(app: App, deps: { resources: ResourceService; kubeconfigs: Kubeconfigs }): void {
  const { resources, kubeconfigs } = deps;

  app.get(
    '/v1/resources',
    {
      config: LIST,
      schema: {
        tags,
        summary: 'List the databases, servers and apps you may see',
        querystring: ResourceQuery,
        response: responses({ 200: ResourceList }),
      },
    },
    async (request) => {
      const { items, pagination } = resources.list(authenticatedContext(request), request.query);
      return { resources: items.map(toResourceResponse), pagination };
    },
  );

  const kindList = { config: LIST, schema: { tags, querystring: KindQuery } };
  const listOf = (request: FastifyRequest, kind: ProtectedKind) => {
    const { items, pagination } = resources.list(authenticatedContext(request), {
      ...(request.query as typeof KindQuery.static),
      kind,
    });
    return { items: items.map(toResourceResponse), pagination };
  };

  app.get(
    '/v1/databases',
    {
      ...kindList,
      schema: {
        ...kindList.schema,
        summary: 'List the databases you may see',
        response: responses({ 200: DatabaseList }),
      },
    },
    async (request) => {
      const { items, pagination } = listOf(request, 'database');
      return { databases: items, pagination };
    },
  );
  app.get(
    '/v1/servers',
    {
      ...kindList,
      schema: { ...kindList.schema, summary: 'List the servers you may see', response: responses({ 200: ServerList }) },
    },
    async (request) => {
      const { items, pagination } = listOf(request, 'server');
      return { servers: items, pagination };
    },
  );
  app.get(
    '/v1/apps',
    {
      ...kindList,
      schema: { ...kindList.schema, summary: 'List the apps you may see', response: responses({ 200: AppList }) },
    },
    async (request) => {
      const { items, pagination } = listOf(request, 'app');
      return { apps: items, pagination };
    },
  );

  app.post(
    '/v1/resources',
    {
      config: { permission: { resource: 'resources', verb: 'create' }, grants: ['resource-visible'] },
      schema: {
        tags,
        summary: 'Register a database, server or app',
        body: ResourceInput,
        response: responses({ 201: Resource }),
      },
    },
    async (request, reply) => {
      const created = await resources.create(authenticatedContext(request), request.body);
      return reply.code(201).header('location', `/v1/resources/${created.id}`).send(toResourceResponse(created));
    },
  );

  app.get(
    '/v1/resources/:id',
    {
      config: { permission: { resource: 'resources', verb: 'read' } },
      schema: { tags, summary: 'Get a resource', params: ResourceParams, response: responses({ 200: Resource }) },
    },
    async (request) => toResourceResponse(resources.get(authenticatedContext(request), request.params.id)),
  );

  app.get(
    '/v1/resources/:id/kubeconfig',
    {
      // Hands out a token, but only of the caller itself and within its own rights.
      config: { permission: { resource: 'resources', verb: 'read' }, grants: ['self'] },
      schema: {
        tags,
        summary:
          'A kubeconfig for a Kubernetes cluster you may see: the proxy (pinned to its CA) and a short-lived token of yours (YAML)',
        params: ResourceParams,
        produces: ['application/yaml'],
        response: responses({ 200: Type.String({ description: 'kubeconfig (YAML)' }) }),
      },
    },
    async (request, reply) => {
      const yaml = await kubeconfigs.issue(authenticatedContext(request), request.params.id);
      return reply.type('application/yaml').header('cache-control', 'no-store').send(yaml);
    },
  );

  app.patch(
    '/v1/resources/:id',
    {
      config: { permission: { resource: 'resources', verb: 'update' }, grants: ['resource-visible'] },
      schema: {
        tags,
        summary:
          'Change a resource’s description, labels or address (uri, protocol); it must stay visible to you. A new address of a database or cluster holding credentials needs db or kube sent again (409 otherwise)',
        params: ResourceParams,
        body: ResourcePatch,
        response: responses({ 200: Resource }),
      },
    },
    async (request) =>
      toResourceResponse(await resources.update(authenticatedContext(request), request.params.id, request.body)),
  );

  app.delete(
    '/v1/resources/:id',
    {
      config: { permission: { resource: 'resources', verb: 'delete' }, grants: [] },
      schema: { tags, summary: 'Remove a resource', params: ResourceParams, response: responses({ 204: Type.Null() }) },
    },
    async (request, reply) => {
      await resources.remove(authenticatedContext(request), request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.delete(
    '/v1/resources/:id/ssh-host-key',
    {
      config: { permission: { resource: 'resources', verb: 'update' }, grants: [] },
      schema: {
        tags,
        summary: "Forget a server's pinned SSH host key (after a rebuild); the next connection pins the key it sees",
        params: ServerParams,
        response: responses({ 204: Type.Null() }),
      },
    },
    async (request, reply) => {
      await resources.resetHostKey(authenticatedContext(request), request.params.id);
      return reply.code(204).send(null);
    },
  );
}
