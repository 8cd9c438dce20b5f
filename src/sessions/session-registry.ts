// Sessions brokered by the proxy: their records in the state backend (sessions/<id>, every instance
// sees them) and the live ones this process holds. Terminating is a write: the session's record turns
// `terminated`, and the instance holding it sees that through the watch and ends it — so DELETE
// /v1/sessions/{id} and the agent kill switch reach a session on any proxy instance the same way.
// The session bus (src/cluster/session-bus.ts) knows which instance holds which session and lets a
// caller ask for, and wait for, the holder's confirmation that a session ended.
import type { AuditLog } from '../audit/audit-log.js';
import { eventOnCommit } from '../audit/on-commit.js';
import { actorOfPrincipal, type Principal, type PrincipalName } from '../auth/principal.js';
import { keys, prefixes } from '../auth/records.js';
import type { StateStore } from '../backend/state.js';
import type { Operation } from '../backend/types.js';
import { createSessionBus, type SessionBus } from '../cluster/session-bus.js';
import { type Clock, isoTime } from '../lib/clock.js';
import { newId } from '../lib/ids.js';
import { originOf, type SessionOrigin } from './session-origin.js';

/** Each door's session events: the database and app doors have their own. */
const startEvent = (kind: SessionRecord['kind']) =>
  kind === 'db' ? 'db.session.start' : kind === 'app' ? 'app.session.start' : 'session.start';
const endEvent = (kind: SessionRecord['kind']) =>
  kind === 'db' ? 'db.session.end' : kind === 'app' ? 'app.session.end' : 'session.end';

/** The session's principal as an audit actor; a delegated agent's events name the user too. */
const actorOf = (r: SessionRecord) =>
  actorOfPrincipal({ ...r.principal, ...(r.on_behalf_of ? { onBehalfOf: r.on_behalf_of } : {}) });

export type SessionStatus = 'active' | 'ended' | 'terminated';
export type SessionType = 'shell' | 'exec' | 'subsystem' | 'sql' | 'port_forward' | 'app';

export interface SessionRecord {
  id: string;
  /**
   * ssh: through the SSH proxy; kube: a kubectl exec, attach or port-forward through the Kubernetes
   * proxy; app: an app session on the web listener (a browser's cookie, or a bearer token's requests).
   */
  kind: 'ssh' | 'kube' | 'db' | 'app';
  type: SessionType;
  principal: PrincipalName;
  /** An agent acting for a user (token exchange): that user. */
  on_behalf_of?: PrincipalName;
  resource: { kind: 'server' | 'kube_cluster' | 'database' | 'app'; id: string; name: string };
  /** db: the database name opened (login is the database user). */
  db_name?: string;
  /** SSH: the login; kube: the Kubernetes user impersonated. */
  login: string;
  /** The exec command or subsystem name. */
  command?: string;
  remote_addr: string;
  status: SessionStatus;
  started_at: string;
  ended_at: string | null;
  bytes_in: number;
  bytes_out: number;
  exit_code?: number | null;
  /** Why it ended, when not by the user: e.g. `terminated by admin`, `max_session_ttl`, `agent_suspended`. */
  end_reason?: string;
  /** Whether a recording was made (sftp sessions are recorded as metadata events instead). */
  recorded: boolean;
  /** The instance holding it (its instance lease's id): if that instance dies, the reaper ends it. */
  instance?: string;
  /** What opened it, checked again while it lives (session-guard.ts); absent on older records. */
  origin?: SessionOrigin;
}

/**
 * Who a session is for, as its record names them: the principal, the user a delegated agent acts
 * for, and what it came with (the guard checks that again while the session lives).
 */
export const sessionPrincipal = (p: Principal): Pick<SessionRecord, 'principal' | 'on_behalf_of' | 'origin'> => ({
  principal: { kind: p.kind, id: p.id, name: p.name },
  ...(p.onBehalfOf ? { on_behalf_of: p.onBehalfOf } : {}),
  origin: originOf(p),
});

/** Why a session may not start or go on now; thrown by the admission check before a session starts. */
export class SessionRefused extends Error {
  constructor(
    readonly reason: string,
    readonly detail: string,
  ) {
    super(`${reason}: ${detail}`);
  }
}

type SessionStart = Omit<SessionRecord, 'id' | 'status' | 'started_at' | 'ended_at' | 'bytes_in' | 'bytes_out'>;

/** What a live connection stands on (as a session of it would): checked again when that changes. */
export type ConnectionGrounds = Pick<
  SessionRecord,
  'kind' | 'principal' | 'on_behalf_of' | 'resource' | 'login' | 'db_name' | 'origin'
>;

/** A connection held here, and what to do when its grounds no longer allow it (session-guard.ts). */
export interface WatchedConnection {
  grounds: ConnectionGrounds;
  lost(why: { reason: string; detail: string }): void;
}

/** What the holder of a live session exposes, so reads show live counters and writes can end it. */
export interface LiveSession {
  readonly id: string;
  bytesIn(): number;
  bytesOut(): number;
  /** Ends the session: the user sees `message`, the recording is closed properly. */
  terminate(message: string): void;
}

/**
 * The writes that end every live session of a principal (marked terminated for the proxy holding
 * each to end it), for a caller's atomic write such as the agent kill switch.
 */
export function sessionTerminationOps(
  state: Pick<StateStore, 'list'>,
  principalId: string,
  now: number,
  reason: string,
): { ids: string[]; operations: Operation[] } {
  const ids: string[] = [];
  const operations: Operation[] = [];
  for (const s of state.list<SessionRecord>(prefixes.sessions)) {
    if (s.value.status !== 'active' || s.value.principal?.id !== principalId) continue;
    ids.push(s.value.id);
    const ended: SessionRecord = { ...s.value, status: 'terminated', ended_at: isoTime(now), end_reason: reason };
    operations.push({ type: 'put', key: s.key, value: JSON.stringify(ended) });
  }
  return { ids, operations };
}

export type SessionRegistry = ReturnType<typeof createSessionRegistry>;

export function createSessionRegistry(deps: { state: StateStore; audit: AuditLog; clock: Clock; bus?: SessionBus }) {
  const { state, audit, clock } = deps;
  const live = new Map<string, LiveSession>();
  /** Connections that open sessions long after they authenticated (SSH), while they are open. */
  const connections = new Set<WatchedConnection>();
  const bus = deps.bus ?? createSessionBus();
  /** Asked before each session starts (session-guard.ts): a connection authorized earlier may have lost it since. */
  let admission: (input: SessionStart) => void = () => {};
  bus.setEnder((id, reason) => {
    const session = live.get(id);
    session?.terminate(`gatehouse: session terminated (${reason})`);
    return session !== undefined;
  });

  // A session record turning `terminated` (API, kill switch, another instance) ends it here.
  const unsubscribe = state.cache.onChange((key, item) => {
    if (!key.startsWith(prefixes.sessions)) return;
    const id = key.slice(prefixes.sessions.length);
    const session = live.get(id);
    if (!session) return;
    const record = item?.value as SessionRecord | undefined;
    if (record === undefined || record.status === 'terminated') {
      session.terminate(`gatehouse: session terminated (${record?.end_reason ?? 'removed'})`);
    }
  });

  async function start(
    input: SessionStart,
    session: (id: string) => LiveSession,
    id: string = newId('session', clock()),
    /** More fields for the start event (db: tls, protocol). */
    eventData: Record<string, unknown> = {},
  ): Promise<SessionRecord> {
    // An SSH connection opens channels long after it authenticated: each starts only if still allowed.
    admission(input);
    const now = clock();
    const record: SessionRecord = {
      ...input,
      id,
      status: 'active',
      started_at: isoTime(now),
      ended_at: null,
      bytes_in: 0,
      bytes_out: 0,
      instance: bus.instanceId,
    };
    live.set(record.id, session(record.id));
    bus.held(record.id);
    // The start event is appended once the record is committed, while the state store syncs it.
    const started = eventOnCommit(audit, {
      type: startEvent(record.kind),
      actor: actorOf(record),
      target: record.resource,
      session_id: record.id,
      remote_addr: record.remote_addr,
      data:
        record.kind === 'db'
          ? { db_user: record.login, db_name: record.db_name, ...eventData }
          : {
              login: record.login,
              type: record.type,
              ...(record.command === undefined ? {} : { command: record.command }),
              ...eventData,
            },
    });
    try {
      await state.insert(keys.session(record.id), record, started);
      await started.done();
    } catch (error) {
      live.delete(record.id);
      bus.released(record.id);
      throw error;
    }
    return record;
  }

  /**
   * Writes the end of a session (its counters, exit code, and whether it was terminated). If the
   * record already says terminated (the API or the kill switch wrote it), that status and reason stay.
   */
  async function end(
    id: string,
    outcome: {
      bytesIn: number;
      bytesOut: number;
      exitCode?: number | null;
      reason?: string;
      terminated?: boolean;
      /** More fields for the end event (db: statement count). */
      data?: Record<string, unknown>;
      /** Only a session still active (a crashed holder's), checked at each try: never two ends. */
      onlyIfActive?: boolean;
    },
  ): Promise<SessionRecord | undefined> {
    // Held (and its live counters shown) until the record has them: released before the write, a
    // read in between saw a terminated session with the counters of its start (0 bytes).
    try {
      return await writeEnd(id, outcome);
    } finally {
      live.delete(id);
      bus.released(id);
    }
  }

  async function writeEnd(id: string, outcome: Parameters<typeof end>[1]): Promise<SessionRecord | undefined> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const item = state.get<SessionRecord>(keys.session(id));
      if (!item) return undefined;
      const current = item.value;
      if (outcome.onlyIfActive && current.status !== 'active') return undefined;
      const terminated = current.status === 'terminated' || outcome.terminated === true;
      const reason = current.end_reason ?? outcome.reason;
      const record: SessionRecord = {
        ...current,
        status: terminated ? 'terminated' : 'ended',
        ended_at: current.ended_at ?? isoTime(clock()),
        bytes_in: outcome.bytesIn,
        bytes_out: outcome.bytesOut,
        ...(outcome.exitCode === undefined ? {} : { exit_code: outcome.exitCode }),
        ...(reason === undefined ? {} : { end_reason: reason }),
      };
      try {
        await state.replace(item.key, item.revision, record);
      } catch (error) {
        if (attempt === 4) throw error;
        continue; // the record changed under us (a termination): read it again
      }
      if (outcome.terminated && current.status !== 'terminated') {
        // Ended by the proxy itself (max_session_ttl, strict recording limit), not through the API.
        await audit.record({
          type: 'session.terminated',
          actor: { kind: 'system', name: 'proxy' },
          target: record.resource,
          session_id: record.id,
          data: { reason: record.end_reason ?? 'terminated', principal: record.principal },
        });
      }
      await audit.record({
        type: endEvent(record.kind),
        actor: actorOf(record),
        target: record.resource,
        session_id: record.id,
        remote_addr: record.remote_addr,
        data: {
          ...(record.kind === 'db'
            ? {
                db_user: record.login,
                db_name: record.db_name,
                duration_ms: Date.parse(record.ended_at ?? '') - Date.parse(record.started_at),
              }
            : {}),
          ...outcome.data,
          status: record.status,
          bytes_in: record.bytes_in,
          bytes_out: record.bytes_out,
          ...(record.exit_code === undefined ? {} : { exit_code: record.exit_code }),
          ...(record.end_reason === undefined ? {} : { reason: record.end_reason }),
        },
      });
      return record;
    }
    return undefined;
  }

  /**
   * After a restart: ends sessions this process held when it died (a crash gave them no end). `ids`
   * are the sessions whose unfinished recordings the spool recovered; the spool is this instance's
   * own (one process per spool), so no other instance holds them. A record still `active` and not
   * live here turns `ended` with `reason` (and a session.end event); its counters stay as last written.
   */
  async function endOrphaned(ids: string[], reason: string): Promise<SessionRecord[]> {
    const ended: SessionRecord[] = [];
    for (const id of ids) {
      const current = state.get<SessionRecord>(keys.session(id))?.value;
      if (current?.status !== 'active' || live.has(id)) continue;
      const record = await end(id, {
        bytesIn: current.bytes_in,
        bytesOut: current.bytes_out,
        reason,
        onlyIfActive: true,
      });
      if (record) ended.push(record);
    }
    return ended;
  }

  /** Marks a live session terminated; its holder (here or on another instance) ends it. */
  async function terminate(id: string, reason: string): Promise<SessionRecord | undefined> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const item = state.get<SessionRecord>(keys.session(id));
      if (item?.value.status !== 'active') return item?.value;
      const record: SessionRecord = {
        ...item.value,
        status: 'terminated',
        ended_at: isoTime(clock()),
        end_reason: reason,
      };
      try {
        await state.replace(item.key, item.revision, record);
        return record;
      } catch (error) {
        if (attempt === 4) throw error;
      }
    }
    return undefined;
  }

  /**
   * The record with live counters, when this process holds the session: while it is active, and
   * once it is marked terminated until its holder has written the end (with the final counters).
   */
  function withLiveCounters(record: SessionRecord): SessionRecord {
    const session = live.get(record.id);
    if (!session || record.status === 'ended') return record;
    return { ...record, bytes_in: session.bytesIn(), bytes_out: session.bytesOut() };
  }

  return {
    start,
    end,
    endOrphaned,
    terminate,
    /**
     * After sessions were marked terminated: asks their holders (here or on other instances) to end
     * them now, and answers the ids whose holder confirmed they ended.
     */
    confirmEnded: (ids: string[], reason: string): Promise<string[]> =>
      ids.length === 0 ? Promise.resolve([]) : bus.confirmEnded(ids, reason),
    withLiveCounters,
    get: (id: string): SessionRecord | undefined => state.get<SessionRecord>(keys.session(id))?.value,
    list: (): SessionRecord[] => state.list<SessionRecord>(prefixes.sessions).map((i) => i.value),
    isLive: (id: string): boolean => live.has(id),
    /** The sessions this process holds now. */
    liveIds: (): string[] => [...live.keys()],
    /** Ends a session held here at once (when its termination cannot be written); false if not held. */
    terminateLive(id: string, message: string): boolean {
      const session = live.get(id);
      session?.terminate(message);
      return session !== undefined;
    },
    /** The check every session start passes (throws SessionRefused); one per registry. */
    setAdmission(check: (input: SessionStart) => void): void {
      admission = check;
    },
    /**
     * Throws SessionRefused if a session may not start now: for a door to ask before it reaches the
     * target (start asks again).
     */
    admit(input: SessionStart): void {
      admission(input);
    },
    /**
     * Keeps a connection's grounds under watch while it is open: `lost` is called once they no
     * longer allow it (a deleted key, a revoked token, a role removed). Returns the release.
     */
    watchConnection(grounds: ConnectionGrounds, lost: WatchedConnection['lost']): () => void {
      const watched: WatchedConnection = { grounds, lost };
      connections.add(watched);
      return () => connections.delete(watched);
    },
    /** The connections under watch now. */
    watchedConnections: (): WatchedConnection[] => [...connections],
    get liveCount(): number {
      return live.size;
    },
    /** Whether anything held here (a live session, a watched connection) stands on the current state. */
    get holdsAny(): boolean {
      return live.size > 0 || connections.size > 0;
    },
    /** Ends every live session of this process (shutdown); each closes its recording properly. */
    terminateAllLive(message: string): void {
      for (const session of live.values()) session.terminate(message);
    },
    close(): void {
      unsubscribe();
    },
  };
}
