// The audit store: append-only events, read newest first. Implementations: SQLite (embedded);
// PostgreSQL follows the same contract.

export type ActorKind = 'user' | 'agent' | 'system' | 'anonymous';

export interface AuditActor {
  kind: ActorKind;
  id?: string;
  name?: string;
}

export interface AuditTarget {
  kind: string;
  id: string;
  name?: string;
}

export interface AuditEvent {
  id: string;
  type: string;
  code: string;
  time: string;
  actor: AuditActor;
  target?: AuditTarget;
  session_id?: string;
  success: boolean;
  remote_addr?: string;
  request_id?: string;
  data?: Record<string, unknown>;
}

export interface AuditQuery {
  /** Exact types, or prefixes written as `session.*`. */
  types?: string[];
  actor?: string;
  target?: string;
  success?: boolean;
  /** Inclusive bounds, epoch ms. */
  from?: number;
  to?: number;
  limit: number;
  offset: number;
}

export interface AuditStore {
  /** Resolves once the events are durable. */
  append(events: AuditEvent[]): Promise<void>;
  query(q: AuditQuery): Promise<{ events: AuditEvent[]; total: number }>;
  ping(): Promise<void>;
  close(): Promise<void>;
}
