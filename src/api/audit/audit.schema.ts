import { type TArray, type TSchema, Type } from '@sinclair/typebox';
import { Timestamp } from '../../lib/shapes.js';
import { PageQueryProperties } from '../schemas.js';

const ActorKind = Type.Union([
  Type.Literal('user'),
  Type.Literal('agent'),
  Type.Literal('system'),
  Type.Literal('anonymous'),
]);

export const AuditEventSchema = Type.Object(
  {
    id: Type.String({ description: 'evt_…' }),
    type: Type.String({ description: 'e.g. auth.token.issued; see docs/events.md' }),
    code: Type.String({ description: 'Stable code, e.g. GH1000I' }),
    time: Timestamp,
    actor: Type.Object({ kind: ActorKind, id: Type.Optional(Type.String()), name: Type.Optional(Type.String()) }),
    target: Type.Optional(Type.Object({ kind: Type.String(), id: Type.String(), name: Type.Optional(Type.String()) })),
    session_id: Type.Optional(Type.String()),
    success: Type.Boolean(),
    remote_addr: Type.Optional(Type.String()),
    request_id: Type.Optional(Type.String()),
    data: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { additionalProperties: false },
);

const TimeBounds = {
  from: Type.Optional(Type.String({ format: 'date-time', description: 'Inclusive lower time bound (ISO 8601)' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'Inclusive upper time bound (ISO 8601)' })),
  consistency: Type.Optional(
    Type.Union([Type.Literal('eventual'), Type.Literal('strong')], {
      description:
        'With a read replica (audit_read_url): eventual (default) reads the replica and answers its lag in ' +
        'Gatehouse-Replica-Lag; strong reads the primary',
    }),
  ),
};

const Cursor = Type.Optional(
  Type.String({
    maxLength: 200,
    pattern: '^[A-Za-z0-9_-]+$',
    description: 'next_cursor of the previous page: continue after it (use instead of page for deep paging)',
  }),
);

export const EventQuery = Type.Object(
  {
    ...PageQueryProperties,
    cursor: Cursor,
    type: Type.Optional(
      Type.Array(Type.String({ maxLength: 64, pattern: '^[a-z0-9_.]+\\*?$|^\\*$' }), {
        maxItems: 16,
        description: 'Event type, or a prefix like session.*; repeat for several',
      }),
    ),
    actor: Type.Optional(Type.String({ maxLength: 80, description: 'Actor id (user_…, agent_…)' })),
    actor_kind: Type.Optional(ActorKind),
    target: Type.Optional(Type.String({ maxLength: 80, description: 'Target id' })),
    session_id: Type.Optional(Type.String({ maxLength: 80 })),
    success: Type.Optional(Type.Boolean()),
    ...TimeBounds,
    format: Type.Optional(
      Type.Union([Type.Literal('json'), Type.Literal('ndjson')], {
        description: 'ndjson streams every matching event, one per line, ignoring paging',
      }),
    ),
  },
  { additionalProperties: false },
);

export const AuditPagination = Type.Object(
  {
    total: Type.Integer({ minimum: 0, description: 'Matching events, counted up to total_limit' }),
    page: Type.Integer({ minimum: 1 }),
    per_page: Type.Integer({ minimum: 1, maximum: 100 }),
    total_limit: Type.Integer({ description: 'Counting stops here; a total equal to it means "at least"' }),
  },
  { additionalProperties: false },
);

/** A page of audit rows, `{<name>: [...], pagination, next_cursor}`: paged, and resumable by cursor. */
function auditPage<K extends string, T extends TSchema>(name: K, row: T, cursorDescription?: string) {
  const rows = { [name]: Type.Array(row) } as Record<K, TArray<T>>;
  const nextCursor = Type.Union(
    [Type.String(), Type.Null()],
    cursorDescription ? { description: cursorDescription } : {},
  );
  return Type.Object(
    { ...rows, pagination: AuditPagination, next_cursor: nextCursor },
    { additionalProperties: false },
  );
}

export const EventList = auditPage('events', AuditEventSchema, 'Pass as cursor for the next page');

export const AccessQuery = Type.Object(
  {
    ...PageQueryProperties,
    cursor: Cursor,
    actor: Type.Optional(Type.String({ maxLength: 80 })),
    allowed: Type.Optional(Type.Boolean()),
    ...TimeBounds,
  },
  { additionalProperties: false },
);

export const AccessDecision = Type.Object(
  {
    event_id: Type.String(),
    time: Timestamp,
    actor: AuditEventSchema.properties.actor,
    action: Type.String({ description: 'What was attempted: a permission (users:list) or a connection' }),
    target: Type.Union([Type.String(), Type.Null()]),
    allowed: Type.Boolean(),
    decided_by: Type.Union([Type.String(), Type.Null()], { description: 'The role whose rule decided, if any' }),
    reason: Type.Union([Type.String(), Type.Null()]),
  },
  { additionalProperties: false },
);

export const AccessList = auditPage('decisions', AccessDecision);

export const SessionQuery = Type.Object(
  {
    ...PageQueryProperties,
    cursor: Cursor,
    actor: Type.Optional(Type.String({ maxLength: 80, description: 'Principal id' })),
    target: Type.Optional(Type.String({ maxLength: 80, description: 'Resource id' })),
    ...TimeBounds,
  },
  { additionalProperties: false },
);

export const AuditSession = Type.Object(
  {
    session_id: Type.String(),
    kind: Type.Union([Type.String(), Type.Null()]),
    principal: AuditEventSchema.properties.actor,
    resource: Type.Union([AuditEventSchema.properties.target, Type.Null()]),
    login: Type.Union([Type.String(), Type.Null()]),
    started_at: Timestamp,
    ended_at: Type.Union([Timestamp, Type.Null()]),
    duration_seconds: Type.Union([Type.Number(), Type.Null()]),
    status: Type.Union([Type.Literal('active'), Type.Literal('ended'), Type.Literal('terminated')]),
    recording: Type.Union([
      Type.Literal('none'),
      Type.Literal('pending'),
      Type.Literal('uploaded'),
      Type.Literal('upload_failed'),
    ]),
  },
  { additionalProperties: false },
);

export const SessionList = auditPage('sessions', AuditSession);
