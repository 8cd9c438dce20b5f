// Sessions as the API sees them: who may see which (their own always; everyone's if their roles may
// read recordings, since session metadata is what a recording is about), terminating a live one,
// one-time tickets to connect, watching a live session, and reading a finished session's recording —
// each with its event.

import type { AccessChecker } from '../access/access-checker.js';
import type { AuditLog } from '../audit/audit-log.js';
import { actorOf, eventContext, type Principal, type RequestContext } from '../auth/principal.js';
import { scopeOf } from '../auth/principal-pipeline.js';
import { keys } from '../auth/records.js';
import type { StateStore } from '../backend/state.js';
import { conflict, forbidden, GatehouseError, notFound } from '../lib/errors.js';
import type { AsValue } from '../rbac/policy.js';
import type { RecordingService } from '../recordings/recording-service.js';
import type { SessionRecord, SessionRegistry, SessionType } from './session-registry.js';
import type { TicketRecord, TicketService } from './tickets.js';

export interface SessionFilter {
  status?: SessionRecord['status'];
  principal?: string;
  server?: string;
  login?: string;
  type?: SessionType;
  /** Substring of the exec command line or subsystem, any case. */
  command?: string;
  /** Substring of the recorded text (recordings/text-index.ts), any case. */
  text?: string;
}

export type RecordingView =
  | { status: 'recording' | 'pending' | 'uploaded' | 'upload_failed' | 'none' | 'unknown' }
  | { status: string; truncated?: boolean; size?: number; attempts?: number; last_error?: string };

export type SessionService = ReturnType<typeof createSessionService>;

type Ctx = RequestContext & { principal: Principal };

export function createSessionService(deps: {
  state: StateStore;
  audit: AuditLog;
  sessions: SessionRegistry;
  recordings: Pick<
    RecordingService,
    'status' | 'openRecording' | 'openText' | 'watchLive' | 'searchText' | 'storedSha256'
  >;
  tickets: Pick<TicketService, 'issue'>;
  /** The one access decision every door makes, for SSH and database tickets. */
  access: Pick<AccessChecker, 'authorize'>;
}) {
  const { sessions, recordings, audit } = deps;

  const mayReadOthers = (p: Principal) => p.policy.can('recordings', 'read').allowed;
  const own = (p: Principal, s: SessionRecord) => s.principal.kind === p.kind && s.principal.id === p.id;
  const visible = (p: Principal, s: SessionRecord) => own(p, s) || mayReadOthers(p);

  /**
   * The server or database (by id or by name) the caller may reach as whom it asks, now: 404 when its
   * roles do not select it, 403 with the reason when they do but not as whom it asks.
   */
  function reachable(p: Principal, kind: 'server' | 'database', idOrName: string, as: AsValue[]) {
    const byId = idOrName.startsWith(kind === 'server' ? 'srv_' : 'db_')
      ? deps.state.get<{ kind: string; name: string }>(keys.resource(idOrName))?.value
      : undefined;
    const name = byId?.kind === kind ? byId.name : idOrName;
    const decision = deps.access.authorize(p, { kind, name }, as);
    if (!decision.allowed) {
      if (!decision.resource) throw notFound(kind, idOrName);
      throw forbidden(decision.reason);
    }
    return decision.resource;
  }

  /** A ticket that redeems exactly as this caller acts now (same roles, same user acted for), audited. */
  async function ticketFor(
    ctx: Ctx,
    target: { kind: string; id: string; name: string },
    grant: Omit<TicketRecord, 'principal' | 'expires_at'>,
    data: Record<string, unknown>,
  ) {
    const p = ctx.principal;
    const issued = await deps.tickets.issue({ principal: { kind: p.kind, id: p.id }, ...grant, ...scopeOf(p) });
    await audit.record({
      type: 'access.allowed',
      actor: actorOf(ctx),
      target,
      ...eventContext(ctx),
      data: { ...data, via: 'ticket' },
    });
    return issued;
  }

  /** An event the caller caused on one session: its end, a watch, its recording read or refused. */
  function sessionEvent(
    ctx: Ctx,
    record: SessionRecord,
    type: Parameters<AuditLog['record']>[0]['type'],
    data: Record<string, unknown>,
    success?: false,
  ) {
    return audit.record({
      type,
      actor: actorOf(ctx),
      target: record.resource,
      session_id: record.id,
      ...(success === false ? { success } : {}),
      ...eventContext(ctx),
      data,
    });
  }

  function findVisible(p: Principal, id: string): SessionRecord {
    const record = sessions.get(id);
    if (!record || !visible(p, record)) throw notFound('session', id);
    return record;
  }

  /** Marks the session terminated, then waits (bounded) for its holder to confirm it ended. */
  async function terminateRecord(ctx: Ctx, record: SessionRecord) {
    if (record.status !== 'active') throw conflict(`session ${record.id} has already ${record.status}`);
    const reason = `terminated by ${ctx.principal.name}`;
    const terminated = await sessions.terminate(record.id, reason);
    if (terminated?.status !== 'terminated' || terminated.end_reason !== reason) {
      throw conflict(`session ${record.id} ended before it could be terminated`);
    }
    await sessionEvent(ctx, record, 'session.terminated', { principal: record.principal, login: record.login });
    const confirmed = await sessions.confirmEnded([record.id], reason);
    return { ...terminated, confirmed_ended: confirmed.includes(record.id) };
  }

  /**
   * Checks the stored recording against the sha256 its `recording.uploaded` event holds (the audit
   * trail, not the object store's own metadata, which whoever changes the object can change too).
   * 'sha256' when it matches; 'unverifiable' when no such event is left (pruned by audit.retention).
   */
  async function verifyRecording(ctx: Ctx, record: SessionRecord): Promise<'sha256' | 'unverifiable'> {
    const uploaded = await audit.query({
      types: ['recording.uploaded'],
      session_id: record.id,
      limit: 1,
      consistency: 'strong',
    });
    const expected = uploaded.events[0]?.data?.sha256;
    if (typeof expected !== 'string') return 'unverifiable';
    const actual = await recordings.storedSha256(record.id);
    if (actual === undefined || actual === expected) return 'sha256';
    await sessionEvent(
      ctx,
      record,
      'recording.integrity_failed',
      { expected_sha256: expected, stored_sha256: actual },
      false,
    );
    throw new GatehouseError(
      'recording_tampered',
      `the stored recording of ${record.id} is not the one uploaded (sha256 ${actual.slice(0, 12)}…, recorded ${expected.slice(0, 12)}…); it is not served`,
    );
  }

  /** The record with live counters, and where its recording stands. */
  async function view(record: SessionRecord) {
    const current = sessions.withLiveCounters(record);
    let recording: RecordingView = { status: 'none' };
    if (current.recorded) {
      const status = await recordings.status(current.id).catch(() => undefined);
      recording = status
        ? {
            status: status.state,
            ...(status.truncated === undefined ? {} : { truncated: status.truncated }),
            ...(status.size === undefined ? {} : { size: status.size }),
            ...(status.attempts ? { attempts: status.attempts } : {}),
            ...(status.last_error ? { last_error: status.last_error } : {}),
          }
        : { status: current.status === 'active' ? 'recording' : 'unknown' };
    }
    return { ...current, recording };
  }

  return {
    view,
    /** Newest first, only what the caller may see. */
    list(p: Principal, q: SessionFilter): SessionRecord[] {
      const command = q.command?.toLowerCase();
      const withText = q.text === undefined ? undefined : (recordings.searchText(q.text) ?? new Set<string>());
      const matches = (s: SessionRecord) =>
        visible(p, s) &&
        (q.status === undefined || s.status === q.status) &&
        (q.principal === undefined || s.principal.id === q.principal || s.principal.name === q.principal) &&
        (q.server === undefined || s.resource.id === q.server || s.resource.name === q.server) &&
        (q.login === undefined || s.login === q.login) &&
        (q.type === undefined || s.type === q.type) &&
        (command === undefined || (s.command ?? '').toLowerCase().includes(command)) &&
        (withText === undefined || withText.has(s.id));
      return sessions.list().filter(matches).reverse();
    },

    get: (p: Principal, id: string) => findVisible(p, id),

    /** Ends a live session the caller may see (its own, or any with recordings:read). */
    async terminate(ctx: Ctx, id: string): Promise<SessionRecord & { confirmed_ended: boolean }> {
      return terminateRecord(ctx, findVisible(ctx.principal, id));
    },

    /**
     * The caller's own sessions, newest first: a profile's list, the same for an auditor as for anyone
     * (what her roles let her read of others' is the sessions page's, not this).
     */
    listOwn(p: Principal, q: Pick<SessionFilter, 'status'>): SessionRecord[] {
      return sessions
        .list()
        .filter((s) => own(p, s) && (q.status === undefined || s.status === q.status))
        .reverse();
    },

    /** Ends one of the caller's own live sessions; another's is not found, whatever the caller's roles. */
    async terminateOwn(ctx: Ctx, id: string): Promise<SessionRecord & { confirmed_ended: boolean }> {
      const record = sessions.get(id);
      if (!record || !own(ctx.principal, record)) throw notFound('session', id);
      return terminateRecord(ctx, record);
    },

    /** A one-time ticket for the caller itself, for a server and login its rights reach now. */
    async issueTicket(ctx: Ctx, input: { server: string; login: string }) {
      const server = reachable(ctx.principal, 'server', input.server, [{ field: 'logins', value: input.login }]);
      const target = { kind: 'server', id: server.id, name: server.name };
      const grant = { server_id: server.id, login: input.login };
      const { ticket, expiresAt } = await ticketFor(ctx, target, grant, { login: input.login });
      return { ticket, expiresAt, server };
    },

    /**
     * A one-time ticket for the caller itself, for a PostgreSQL database, user and name its rights
     * reach now. The proxy checks the same decision again when the ticket is used.
     */
    async issueDbTicket(ctx: Ctx, input: { database: string; db_user: string; db_name: string }) {
      const database = reachable(ctx.principal, 'database', input.database, [
        { field: 'db_users', value: input.db_user },
        { field: 'db_names', value: input.db_name },
      ]);
      if (database.protocol !== 'postgres') throw conflict(`${database.name} is not a PostgreSQL database`);
      const target = { kind: 'database', id: database.id, name: database.name };
      const grant = { database_id: database.id, login: input.db_user, db_name: input.db_name };
      const { ticket, expiresAt } = await ticketFor(ctx, target, grant, {
        db_user: input.db_user,
        db_name: input.db_name,
      });
      return { ticket, expiresAt, database };
    },

    /**
     * Follows a live session's recording as it is written (read-only), recorded as
     * `session.observed`. Only the proxy instance that holds the session can serve it.
     */
    async watchLive(ctx: Ctx, id: string) {
      const record = findVisible(ctx.principal, id);
      if (record.status !== 'active') throw conflict(`session ${record.id} has ${record.status}: play its recording`);
      if (!record.recorded) throw notFound('live recording of session', record.id);
      const tail = recordings.watchLive(record.id);
      if (!tail) {
        throw new GatehouseError('unavailable', `session ${record.id} is not recorded on this instance`, {
          headers: { 'retry-after': '5' },
        });
      }
      try {
        await sessionEvent(ctx, record, 'session.observed', { principal: record.principal, login: record.login });
      } catch (e) {
        tail.stop();
        throw e;
      }
      return { record, tail };
    },

    /** The finished session's recording (asciicast, or text), recorded as read. */
    async readRecording(ctx: Ctx, id: string, format: 'asciicast' | 'text') {
      const record = findVisible(ctx.principal, id);
      if (!record.recorded) throw notFound('recording of session', record.id);
      if (record.status === 'active' || sessions.isLive(record.id)) {
        throw new GatehouseError('recording_not_ready', `session ${record.id} is still running`);
      }
      const status = await recordings.status(record.id);
      if (status && status.state !== 'uploaded') {
        throw new GatehouseError(
          'recording_not_ready',
          `the recording of ${record.id} is ${status.state === 'upload_failed' ? 'waiting for an upload retry' : 'being uploaded'}; try again shortly`,
          { headers: { 'retry-after': '5' } },
        );
      }
      const verified = await verifyRecording(ctx, record);
      const text = format === 'text';
      const body = text ? await recordings.openText(record.id) : await recordings.openRecording(record.id);
      if (!body) {
        throw new GatehouseError('recording_not_ready', `the recording of ${record.id} is not in storage yet`, {
          headers: { 'retry-after': '5' },
        });
      }
      await sessionEvent(ctx, record, 'recording.read', { format, verified });
      return { record, body, verified };
    },
  };
}
