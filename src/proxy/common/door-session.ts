// The door kit's session lifetime: what every door (SSH, PostgreSQL, Kubernetes, and the doors to
// come) does the same way once a principal may open a session on a resource. The door keeps only
// what is its protocol's: how bytes flow, how a user is told, how its transport closes.
//
//   admitDoorSession   asked before the target sees anything (opening an exec already runs it)
//   openDoorSession    recording, max_session_ttl, the idle limit, the durable start in the registry (where
//                      DELETE /v1/sessions/{id}, the kill switch and the session guard reach it)
//   handle             touch() counts bytes, recorded() obeys the recording limit, terminate()
//                      ends it with a reason, end() records the end once (registry, audit, metrics)
//
// Every start, end and refusal is one info line in the process log (principal, resource, kind,
// reason) and counted in /metrics; a command or a query never reaches the log (it is in the audit
// trail and the recording only).
import type { Logger } from 'pino';
import type { AuditLog } from '../../audit/audit-log.js';
import type { Principal } from '../../auth/principal.js';
import type { Clock } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import type { Metrics } from '../../observability/metrics.js';
import type { SessionOptions } from '../../rbac/policy.js';
import type { RecordingService } from '../../recordings/recording-service.js';
import type { BeginOptions, RecordResult, SessionRecording } from '../../recordings/spool.js';
import {
  type SessionRecord,
  SessionRefused,
  type SessionRegistry,
  type SessionType,
  sessionPrincipal,
} from '../../sessions/session-registry.js';
import { recordDoorRejection } from './door-refusals.js';

export { noteDoorRefusal, recordDoorRejection } from './door-refusals.js';

export const MAX_TTL_REACHED = 'gatehouse: session ended: max_session_ttl reached';
export const RECORDING_LIMIT = 'gatehouse: session ended at the recording limit (record_session: strict)';

/** What a door's sessions need from the composition root. */
export interface DoorKitDeps {
  sessions: SessionRegistry;
  recordings?: Pick<RecordingService, 'begin'>;
  audit: AuditLog;
  clock: Clock;
  logger: Logger;
  metrics?: Metrics;
  /** Every session of the door ends after this long without traffic (proxy.session_idle_timeout); absent: none. */
  idleTimeoutMs?: number;
}

/** The kit's part of a door's deps, for a door that hands its sessions a context of their own. */
export const kitDepsOf = (deps: DoorKitDeps): DoorKitDeps => ({
  sessions: deps.sessions,
  ...(deps.recordings ? { recordings: deps.recordings } : {}),
  audit: deps.audit,
  clock: deps.clock,
  logger: deps.logger,
  ...(deps.metrics ? { metrics: deps.metrics } : {}),
  ...(deps.idleTimeoutMs === undefined ? {} : { idleTimeoutMs: deps.idleTimeoutMs }),
});

export type DoorResource = SessionRecord['resource'];

/** One session a door wants to open. */
export interface DoorSessionSpec {
  /** The id its upstream credential was issued for (sessions/upstream-credentials.ts); absent: a new one. */
  id?: string;
  kind: SessionRecord['kind'];
  type: SessionType;
  principal: Principal;
  resource: DoorResource;
  /** As whom: the SSH login, the database user (and db_name), the Kubernetes user. */
  as: { login: string; db_name?: string };
  /** What it runs (an exec command, a forward's destination): in the record and audit only. */
  command?: string;
  origin: { remoteAddr: string };
  options: SessionOptions;
  /** Recorded as asciicast with these settings (the role's record_session applies); absent: not recorded. */
  recording?: Omit<BeginOptions, 'policy' | 'onLimit'>;
  /** The door's own fields of its session.rejected events (SSH: login; db: protocol, db_user, db_name). */
  rejection: Record<string, unknown>;
  /** More fields for the start event (db: tls, protocol). */
  startData?: Record<string, unknown>;
  /**
   * Tells the user why the session did not start, and closes what the door opened for it. `why`:
   * no room to record it, what allowed the connection is gone, or the start could not be made durable.
   */
  refuse(message: string, why: 'recording' | 'revoked' | 'unavailable'): void;
  /** Ends a running session: tells the user `message` (when the protocol can) and closes both sides. */
  close(message: string): void;
  /** Ends the session after this long without touch() (ms); absent: the door's (DoorKitDeps.idleTimeoutMs). */
  idleTimeoutMs?: number;
}

/** A running session, as its door holds it. */
export interface DoorSession {
  readonly id: string;
  /** Its recording, when recorded. */
  readonly recording: SessionRecording | undefined;
  /** Aborted when the session is terminated (reason: the message), for what the door runs beside it. */
  readonly signal: AbortSignal;
  /** Why it was terminated (without the `gatehouse: ` prefix), or undefined. */
  readonly terminatedBy: string | undefined;
  /** Whether end() was called: nothing more reaches the target. */
  readonly ended: boolean;
  /** Counts bytes from the client and to it; any traffic resets the idle timer. */
  touch(bytesIn?: number, bytesOut?: number): void;
  /** Hands a recording write's result on: at the strict recording limit the session ends. */
  recorded(result: RecordResult): void;
  /** Ends it (idempotent): the door's close() runs, the reason is kept for its end. */
  terminate(message: string): void;
  /** Records the end once: recording closed, registry and audit, duration and live gauge, log line. */
  end(outcome?: { exitCode?: number | null; data?: Record<string, unknown> }): Promise<void>;
}

/** The log line's fields: who, where, as whom; never the command or query text. */
function logFields(spec: Pick<DoorSessionSpec, 'kind' | 'type' | 'principal' | 'resource' | 'as' | 'origin'>) {
  return {
    kind: spec.kind,
    type: spec.type,
    principal: `${spec.principal.kind}:${spec.principal.name}`,
    resource: `${spec.resource.kind}:${spec.resource.name}`,
    as: spec.as.db_name === undefined ? spec.as.login : `${spec.as.login}/${spec.as.db_name}`,
    remote_addr: spec.origin.remoteAddr,
  };
}

const startInput = (spec: DoorSessionSpec) => ({
  kind: spec.kind,
  type: spec.type,
  ...sessionPrincipal(spec.principal),
  resource: spec.resource,
  login: spec.as.login,
  ...(spec.as.db_name === undefined ? {} : { db_name: spec.as.db_name }),
  ...(spec.command === undefined ? {} : { command: spec.command.slice(0, 4096) }),
  remote_addr: spec.origin.remoteAddr,
  recorded: spec.recording !== undefined,
});

const refusedBy = (deps: DoorKitDeps, spec: DoorSessionSpec, error: SessionRefused) =>
  recordDoorRejection(deps, {
    door: spec.kind,
    denial: 'revoked',
    principal: spec.principal,
    resource: spec.resource,
    remoteAddr: spec.origin.remoteAddr,
    data: spec.rejection,
    reason: error.reason,
    detail: error.detail,
  }).then(() => spec.refuse(`access denied: ${error.detail}`, 'revoked'));

/**
 * Whether the session may start now (the session guard's admission: what allowed the connection
 * may be gone since it authenticated). Asked before the door asks the target for anything; a
 * refusal is recorded and the user told (spec.refuse). openDoorSession asks again.
 */
export async function admitDoorSession(deps: DoorKitDeps, spec: DoorSessionSpec): Promise<boolean> {
  try {
    deps.sessions.admit(startInput(spec));
    return true;
  } catch (error) {
    if (!(error instanceof SessionRefused)) throw error;
    await refusedBy(deps, spec, error);
    return false;
  }
}

/**
 * Opens a session: its recording, its max_session_ttl, its durable start in the registry. Resolves
 * with the running session, or undefined once it was refused (recorded, and the user told through
 * spec.refuse). A door lets bytes flow only after this resolves.
 */
export async function openDoorSession(deps: DoorKitDeps, spec: DoorSessionSpec): Promise<DoorSession | undefined> {
  const id = spec.id ?? newId('session', deps.clock());
  let recording: SessionRecording | undefined;
  if (spec.recording) {
    try {
      recording = (deps.recordings as Pick<RecordingService, 'begin'>).begin(id, {
        ...spec.recording,
        policy: spec.options.recordSession,
      });
    } catch (error) {
      // Strict recording with no room in the spool: the session may not run unrecorded.
      spec.refuse(`the session cannot be recorded (${(error as Error).message})`, 'recording');
      await recordDoorRejection(deps, {
        door: spec.kind,
        denial: 'recording',
        principal: spec.principal,
        resource: spec.resource,
        remoteAddr: spec.origin.remoteAddr,
        data: spec.rejection,
        reason: 'recording_unavailable',
      });
      return undefined;
    }
  }
  const session = createHandle(deps, spec, id, recording);
  try {
    await deps.sessions.start(startInput(spec), () => session.live, id, spec.startData);
  } catch (error) {
    session.stopTimers();
    await recording?.close().catch((err) => deps.logger.error({ err }, `${spec.kind}: cannot close a recording`));
    if (error instanceof SessionRefused) await refusedBy(deps, spec, error);
    else {
      deps.logger.error({ err: error }, `${spec.kind}: cannot record the session start`);
      spec.refuse('the session could not be started (the audit trail is unavailable)', 'unavailable');
    }
    return undefined;
  }
  session.started();
  return session.handle;
}

function createHandle(deps: DoorKitDeps, spec: DoorSessionSpec, id: string, recording: SessionRecording | undefined) {
  const { logger, metrics } = deps;
  const startedAt = deps.clock();
  const aborter = new AbortController();
  let bytesIn = 0;
  let bytesOut = 0;
  let terminatedBy: string | undefined;
  let live = false;
  let ending: Promise<void> | undefined;

  const terminate = (message: string): void => {
    if (terminatedBy !== undefined || ending) return;
    terminatedBy = message.replace(/^gatehouse: /, '');
    aborter.abort(message);
    spec.close(message);
  };
  const ttl = spec.options.maxSessionTtlMs;
  const ttlTimer = ttl === undefined ? undefined : setTimeout(() => terminate(MAX_TTL_REACHED), ttl);
  ttlTimer?.unref();
  const idleMs = spec.idleTimeoutMs ?? deps.idleTimeoutMs;
  let idleTimer: NodeJS.Timeout | undefined;
  const armIdle = () => {
    if (idleMs === undefined) return;
    clearTimeout(idleTimer);
    idleTimer = setTimeout(() => terminate('gatehouse: session ended: idle too long'), idleMs);
    idleTimer.unref();
  };
  armIdle();
  const stopTimers = () => {
    clearTimeout(ttlTimer);
    clearTimeout(idleTimer);
  };

  const handle: DoorSession = {
    id,
    recording,
    signal: aborter.signal,
    get terminatedBy() {
      return terminatedBy;
    },
    get ended() {
      return ending !== undefined;
    },
    touch(inBytes = 0, outBytes = 0) {
      bytesIn += inBytes;
      bytesOut += outBytes;
      armIdle();
    },
    recorded(result) {
      if (result === 'end_session') terminate(RECORDING_LIMIT);
    },
    terminate,
    end(outcome = {}) {
      ending ??= (async () => {
        stopTimers();
        await recording?.close().catch((err) => logger.error({ err }, `${spec.kind}: cannot close a recording`));
        if (live) {
          metrics?.sessionDuration.observe({ kind: spec.kind }, (deps.clock() - startedAt) / 1000);
          metrics?.liveSessions.dec({ kind: spec.kind });
        }
        logger.info(
          { ...logFields(spec), session: id, ...(terminatedBy === undefined ? {} : { reason: terminatedBy }) },
          `${spec.kind}: session ended`,
        );
        await deps.sessions
          .end(id, {
            bytesIn,
            bytesOut,
            ...(outcome.exitCode === undefined ? {} : { exitCode: outcome.exitCode }),
            ...(terminatedBy === undefined ? {} : { reason: terminatedBy, terminated: true }),
            ...(outcome.data ? { data: outcome.data } : {}),
          })
          .catch((err) => logger.error({ err }, `${spec.kind}: cannot record the session end`));
      })();
      return ending;
    },
  };
  return {
    handle,
    live: { id, bytesIn: () => bytesIn, bytesOut: () => bytesOut, terminate },
    stopTimers,
    started() {
      live = true;
      metrics?.liveSessions.inc({ kind: spec.kind });
      logger.info({ ...logFields(spec), session: id }, `${spec.kind}: session started`);
    },
  };
}
