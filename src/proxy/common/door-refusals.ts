// What a door does the same way when it refuses or fails a principal: counts it
// (access_denials_total{door,reason}), logs one info line (principal, resource, reason; never a
// command or query), and records session.rejected or session.upstream_failed in the audit trail.
import type { Logger } from 'pino';
import type { AuditLog } from '../../audit/audit-log.js';
import { actorOfPrincipal, type Principal } from '../../auth/principal.js';
import type { DenialClass, Metrics } from '../../observability/metrics.js';
import type { SessionRecord } from '../../sessions/session-registry.js';

type RefusalDeps = { logger: Logger; metrics?: Metrics | undefined };

/** What every refusal shows an operator: access_denials_total{door,reason} and one info log line. */
export function noteDoorRefusal(
  deps: RefusalDeps,
  r: {
    door: SessionRecord['kind'];
    denial: DenialClass;
    principal?: Principal | undefined;
    resource?: { kind: string; name?: string | undefined; id: string } | undefined;
    remoteAddr: string;
    reason: string;
  },
): void {
  deps.metrics?.accessDenials.inc({ door: r.door, reason: r.denial });
  deps.logger.info(
    {
      kind: r.door,
      principal: r.principal ? `${r.principal.kind}:${r.principal.name}` : 'anonymous',
      ...(r.resource ? { resource: `${r.resource.kind}:${r.resource.name ?? r.resource.id}` } : {}),
      remote_addr: r.remoteAddr,
      reason: r.reason,
    },
    `${r.door}: refused`,
  );
}

/** A refusal of a session or connection: the session.rejected event, counted and logged (noteDoorRefusal). */
export async function recordDoorRejection(
  deps: RefusalDeps & { audit: Pick<AuditLog, 'record'> },
  r: Parameters<typeof noteDoorRefusal>[1] & {
    resource?: SessionRecord['resource'] | undefined;
    data: Record<string, unknown>;
    detail?: string;
  },
): Promise<void> {
  noteDoorRefusal(deps, r);
  await deps.audit
    .record({
      type: 'session.rejected',
      actor: r.principal ? actorOfPrincipal(r.principal) : { kind: 'anonymous' },
      ...(r.resource ? { target: r.resource } : {}),
      success: false,
      remote_addr: r.remoteAddr,
      data: { ...r.data, reason: r.reason, ...(r.detail === undefined ? {} : { detail: r.detail }) },
    })
    .catch((err) => deps.logger.warn({ err }, `${r.door}: cannot record a rejection`));
}

/**
 * A target the door could not reach or log in to for an allowed principal: counted as an upstream
 * denial and recorded as session.upstream_failed (a failure to record is logged, never thrown).
 */
export async function recordUpstreamFailure(
  deps: RefusalDeps & { audit: Pick<AuditLog, 'record'> },
  r: {
    door: SessionRecord['kind'];
    principal: Principal;
    resource: SessionRecord['resource'];
    remoteAddr: string;
    data: Record<string, unknown>;
  },
): Promise<void> {
  deps.metrics?.accessDenials.inc({ door: r.door, reason: 'upstream' });
  await deps.audit
    .record({
      type: 'session.upstream_failed',
      actor: actorOfPrincipal(r.principal),
      target: r.resource,
      success: false,
      remote_addr: r.remoteAddr,
      data: r.data,
    })
    .catch((err) => deps.logger.warn({ err }, `${r.door}: cannot record an upstream failure`));
}
