// The audit trail, newest first, filtered in the store (never on the client).
import { Type } from '@sinclair/typebox';
import type { AuditLog } from '../../audit/audit-log.js';
import type { App } from '../app-types.js';
import { invalidField } from '../errors.js';
import { listQuery, listResponse, responses, Timestamp } from '../schemas.js';

const tags = ['events'];

const Actor = Type.Object({
  kind: Type.Union([Type.Literal('user'), Type.Literal('agent'), Type.Literal('system'), Type.Literal('anonymous')]),
  id: Type.Optional(Type.String()),
  name: Type.Optional(Type.String()),
});

export const AuditEventSchema = Type.Object(
  {
    id: Type.String({ description: 'evt_…' }),
    type: Type.String({ description: 'e.g. auth.token.issued; see docs/events.md' }),
    code: Type.String({ description: 'Stable code, e.g. GH1000I' }),
    time: Timestamp,
    actor: Actor,
    target: Type.Optional(Type.Object({ kind: Type.String(), id: Type.String(), name: Type.Optional(Type.String()) })),
    session_id: Type.Optional(Type.String()),
    success: Type.Boolean(),
    remote_addr: Type.Optional(Type.String()),
    request_id: Type.Optional(Type.String()),
    data: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { additionalProperties: false },
);

const EventQuery = listQuery({
  type: Type.Optional(
    Type.Array(Type.String({ maxLength: 64, pattern: '^[a-z_.]+\\*?$' }), {
      maxItems: 16,
      description: 'Event type, or a prefix like auth.*; repeat for several',
    }),
  ),
  actor: Type.Optional(Type.String({ maxLength: 80, description: 'Actor id' })),
  target: Type.Optional(Type.String({ maxLength: 80, description: 'Target id' })),
  success: Type.Optional(Type.Boolean()),
  from: Type.Optional(Type.String({ format: 'date-time', description: 'Inclusive lower time bound' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'Inclusive upper time bound' })),
});

export function eventRoutes(app: App, deps: { audit: AuditLog }): void {
  app.get(
    '/v1/events',
    {
      config: { permission: { resource: 'events', verb: 'list' } },
      schema: {
        tags,
        summary: 'List audit events, newest first',
        querystring: EventQuery,
        response: responses({ 200: listResponse('events', AuditEventSchema) }),
      },
    },
    async (request) => {
      const q = request.query;
      const from = q.from === undefined ? undefined : Date.parse(q.from);
      const to = q.to === undefined ? undefined : Date.parse(q.to);
      if (from !== undefined && to !== undefined && from > to)
        throw invalidField('/query/from', 'must not be after to');
      const { events, total } = await deps.audit.query({
        ...(q.type ? { types: q.type } : {}),
        ...(q.actor ? { actor: q.actor } : {}),
        ...(q.target ? { target: q.target } : {}),
        ...(q.success !== undefined ? { success: q.success } : {}),
        ...(from !== undefined ? { from } : {}),
        ...(to !== undefined ? { to } : {}),
        limit: q.per_page,
        offset: (q.page - 1) * q.per_page,
      });
      return { events, pagination: { total, page: q.page, per_page: q.per_page } };
    },
  );
}
