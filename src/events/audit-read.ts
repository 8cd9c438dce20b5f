// Reading the audit trail: events (paged by page or cursor, or streamed as NDJSON), access decisions
// and sessions, all filtered in the store. Counting stops at TOTAL_LIMIT so a page stays fast over
// millions of events.

import type { AuditLog } from '../audit/audit-log.js';
import { type AuditEvent, type AuditQuery, InvalidCursorError } from '../audit/types.js';
import { actorOf, eventContext, type RequestContext } from '../auth/principal.js';
import { invalidField } from '../lib/errors.js';

export const TOTAL_LIMIT = 10_000;
const EXPORT_BATCH = 1000;

export interface EventFilters {
  page: number;
  per_page: number;
  cursor?: string;
  type?: string[];
  actor?: string;
  actor_kind?: AuditQuery['actor_kind'];
  target?: string;
  session_id?: string;
  success?: boolean;
  from?: string;
  to?: string;
  consistency?: 'eventual' | 'strong';
}

function toStoreQuery(f: EventFilters): AuditQuery {
  const from = f.from === undefined ? undefined : Date.parse(f.from);
  const to = f.to === undefined ? undefined : Date.parse(f.to);
  // date-time admits a leap second (…T23:59:60Z) that Date cannot represent.
  if (Number.isNaN(from)) throw invalidField('/query/from', 'is not a representable time');
  if (Number.isNaN(to)) throw invalidField('/query/to', 'is not a representable time');
  if (from !== undefined && to !== undefined && from > to) throw invalidField('/query/from', 'must not be after to');
  if (f.cursor !== undefined && f.page !== 1) throw invalidField('/query/page', 'use either page or cursor, not both');
  const q: AuditQuery = { limit: f.per_page };
  if (f.type && !f.type.includes('*')) q.types = f.type;
  if (f.actor !== undefined) q.actor = f.actor;
  if (f.actor_kind !== undefined) q.actor_kind = f.actor_kind;
  if (f.target !== undefined) q.target = f.target;
  if (f.session_id !== undefined) q.session_id = f.session_id;
  if (f.success !== undefined) q.success = f.success;
  if (from !== undefined) q.from = from;
  if (to !== undefined) q.to = to;
  if (f.consistency !== undefined) q.consistency = f.consistency;
  if (f.cursor !== undefined) q.cursor = f.cursor;
  else q.offset = (f.page - 1) * f.per_page;
  return q;
}

export type AuditReadService = ReturnType<typeof createAuditReadService>;

export function createAuditReadService(deps: { audit: AuditLog }) {
  async function queryPage(f: EventFilters, overrides: Partial<AuditQuery> = {}) {
    const q = { ...toStoreQuery(f), ...overrides, countUpTo: TOTAL_LIMIT };
    try {
      const result = await deps.audit.query(q);
      return {
        events: result.events,
        pagination: { total: result.total ?? 0, page: f.page, per_page: f.per_page, total_limit: TOTAL_LIMIT },
        next_cursor: result.nextCursor ?? null,
        // Not part of the body (the response schema drops it): the route answers it as a header.
        ...(result.replicaLagSeconds === undefined ? {} : { replica_lag_seconds: result.replicaLagSeconds }),
      };
    } catch (error) {
      if (error instanceof InvalidCursorError)
        throw invalidField('/query/cursor', 'is not a cursor this server issued');
      throw error;
    }
  }

  return {
    listEvents: (f: EventFilters) => queryPage(f),

    /**
     * Every matching event, newest first, one JSON object per line, read in batches by cursor.
     * onFirstPage learns the replica lag of the first batch (undefined when the primary answered).
     */
    async *exportEvents(
      ctx: RequestContext,
      f: EventFilters,
      onFirstPage?: (replicaLagSeconds: number | undefined) => void,
    ): AsyncGenerator<string> {
      // A cursor given resumes an export after that event; paging (page, per_page) is ignored.
      const base = { ...toStoreQuery({ ...f, page: 1 }), limit: EXPORT_BATCH };
      delete base.offset;
      // The first batch is read before the export is recorded, so a cursor no store issued is a
      // 400 naming the field (it was a 500), and a refused request records no export.
      let page: Awaited<ReturnType<AuditLog['query']>>;
      try {
        page = await deps.audit.query(base);
      } catch (error) {
        if (error instanceof InvalidCursorError)
          throw invalidField('/query/cursor', 'is not a cursor this server issued');
        throw error;
      }
      onFirstPage?.(page.replicaLagSeconds);
      await deps.audit.record({
        type: 'audit.exported',
        actor: actorOf(ctx),
        ...eventContext(ctx),
        data: { filters: { ...f, page: undefined, per_page: undefined } },
      });
      for (;;) {
        if (page.events.length > 0) yield `${page.events.map((e) => JSON.stringify(e)).join('\n')}\n`;
        if (page.nextCursor === undefined) return;
        page = await deps.audit.query({ ...base, cursor: page.nextCursor });
      }
    },

    async listAccess(f: EventFilters & { allowed?: boolean }) {
      const page = await queryPage(
        { ...f, type: ['access.*', 'session.rejected'] },
        f.allowed === undefined ? {} : { success: f.allowed },
      );
      return { ...page, decisions: page.events.map(toDecision), events: undefined };
    },

    async listSessions(f: EventFilters) {
      const page = await queryPage({ ...f, type: ['session.start', 'db.session.start'] });
      const sessions = await Promise.all(
        page.events.map(async (start) => {
          const later = await deps.audit.query({
            session_id: start.session_id ?? '',
            // Only the events that change the row: reading a recording writes recording.read,
            // which is neither an upload outcome nor bounded in number.
            types: [...SESSION_ENDS, ...UPLOAD_OUTCOMES],
            limit: 20,
            ...(f.consistency ? { consistency: f.consistency } : {}),
          });
          return toSessionRow(start, later.events);
        }),
      );
      return { ...page, sessions, events: undefined };
    },
  };
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

function toDecision(e: AuditEvent) {
  const d = e.data ?? {};
  return {
    event_id: e.id,
    time: e.time,
    actor: e.actor,
    action: str(d.permission) ?? str(d.action) ?? e.type,
    target: e.target?.id ?? str(d.route),
    allowed: e.success,
    decided_by: str(d.denied_by) ?? str(d.allowed_by),
    reason: str(d.reason),
  };
}

const SESSION_ENDS = ['session.end', 'db.session.end', 'session.terminated'];
const UPLOAD_OUTCOMES = ['recording.uploaded', 'recording.upload_failed'];

/** `later`: the session's ends and upload outcomes, newest first (a retried upload's success wins). */
function toSessionRow(start: AuditEvent, later: AuditEvent[]) {
  const end = later.find((e) => SESSION_ENDS.includes(e.type));
  const recording = later.find((e) => UPLOAD_OUTCOMES.includes(e.type));
  const startedAt = Date.parse(start.time);
  return {
    session_id: start.session_id ?? start.id,
    kind: start.type === 'db.session.start' ? 'db' : str(start.data?.kind),
    principal: start.actor,
    resource: start.target ?? null,
    login: str(start.data?.login) ?? str(start.data?.db_user),
    started_at: start.time,
    ended_at: end?.time ?? null,
    duration_seconds: end ? (Date.parse(end.time) - startedAt) / 1000 : null,
    status: !end
      ? ('active' as const)
      : end.type === 'session.terminated'
        ? ('terminated' as const)
        : ('ended' as const),
    recording: !recording
      ? end
        ? ('pending' as const)
        : ('none' as const)
      : recording.type === 'recording.uploaded'
        ? ('uploaded' as const)
        : ('upload_failed' as const),
  };
}
