// From a Fastify request to what services need to know about it (services never see Fastify).
import type { FastifyRequest } from 'fastify';
import type { Principal, RequestContext } from '../auth/principal.js';
import { GatehouseError } from '../lib/errors.js';

export function contextOf(request: FastifyRequest): RequestContext {
  return request.principal
    ? { principal: request.principal, remoteAddr: request.ip, requestId: request.id }
    : { remoteAddr: request.ip, requestId: request.id };
}

export function authenticatedContext(request: FastifyRequest): RequestContext & { principal: Principal } {
  if (!request.principal) throw new GatehouseError('unauthenticated', 'send Authorization: Bearer <access token>');
  return { principal: request.principal, remoteAddr: request.ip, requestId: request.id };
}
