// The audit trail API: /v1/events (the seed's listing) and /v1/audit/{events,access,sessions}.
import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import type { AuditReadService } from '../../events/audit-read.js';
import type { App } from '../app-types.js';
import { declareRoutes } from '../declare-routes.js';
import { authenticatedContext } from '../request-context.js';
import { AccessList, AccessQuery, EventList, EventQuery, SessionList, SessionQuery } from './audit.schema.js';

// How far behind the read replica that answered was, in seconds; absent when the primary answered.
const LAG_HEADER = 'gatehouse-replica-lag';
const lagValue = (seconds: number) => seconds.toFixed(3);

/** A page as the store answered it, its replica's lag in a header. */
function withLag<P extends { replica_lag_seconds?: number }>(reply: FastifyReply, page: P): P {
  if (page.replica_lag_seconds !== undefined) reply.header(LAG_HEADER, lagValue(page.replica_lag_seconds));
  return page;
}

export function auditRoutes(app: App, deps: { auditRead: AuditReadService }): void {
  const { auditRead } = deps;
  const route = declareRoutes(app, { tags: ['audit'], resource: 'events' });

  for (const url of ['/v1/events', '/v1/audit/events']) {
    route.get(
      url,
      {
        permission: 'list',
        summary: 'List audit events, newest first (format=ndjson streams them all)',
        querystring: EventQuery,
        // JSON pages, or with format=ndjson one event per line (the document says both).
        produces: ['application/json', 'application/x-ndjson'],
        200: EventList,
      },
      async (request, reply) => {
        if (request.query.format === 'ndjson') {
          const lines = auditRead.exportEvents(authenticatedContext(request), request.query, (lag) => {
            if (lag !== undefined) reply.header(LAG_HEADER, lagValue(lag));
          });
          // Pull the first batch before answering, so bad filters still get a proper 400.
          const first = await lines.next();
          async function* rest() {
            if (!first.done) yield first.value;
            yield* lines;
          }
          return (
            reply
              .type('application/x-ndjson; charset=utf-8')
              .header('content-disposition', 'attachment; filename="gatehouse-events.ndjson"')
              // A stream bypasses the JSON serializer; the 200 schema describes the paged form.
              .send(Readable.from(rest()) as never)
          );
        }
        return withLag(reply, await auditRead.listEvents(request.query));
      },
    );
  }

  route.get(
    '/v1/audit/access',
    {
      permission: 'list',
      summary: 'Access decisions: who tried what, allowed or denied, and which role decided',
      querystring: AccessQuery,
      200: AccessList,
    },
    async (request, reply) => withLag(reply, await auditRead.listAccess(request.query)),
  );

  route.get(
    '/v1/audit/sessions',
    {
      permission: { resource: 'sessions', verb: 'list' },
      summary: 'One row per session: start, end, duration, principal, resource, recording status',
      querystring: SessionQuery,
      200: SessionList,
    },
    async (request, reply) => withLag(reply, await auditRead.listSessions(request.query)),
  );
}
