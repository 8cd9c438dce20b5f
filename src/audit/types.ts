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
  actor_kind?: ActorKind;
  target?: string;
  session_id?: string;
  success?: boolean;
  /** Inclusive bounds, epoch ms. */
  from?: number;
  to?: number;
  limit: number;
  /** Matching rows to skip, newest first (page-based paging; fine for the first pages). */
  offset?: number;
  /** A nextCursor from an earlier page: continue after it (deep paging, stays fast at any depth). */
  cursor?: string;
  /** Count the matching rows, stopping at this many (counting millions is not free). */
  countUpTo?: number;
  /** 'strong' reads the primary even when the store has a read replica. */
  consistency?: 'strong' | 'eventual';
}

export interface AuditPage {
  /** Newest first (write order, descending). */
  events: AuditEvent[];
  /** Present when countUpTo was given: min(matching rows, countUpTo). */
  total?: number;
  /** Opaque position after the last event returned; absent when there is nothing more. */
  nextCursor?: string;
  /** Set when a read replica answered: its replay lag at the time of the read, in seconds. */
  replicaLagSeconds?: number;
}

/** What /readyz and the metrics say about a replicated store. */
export interface AuditStoreStatus {
  /** host:port of the host taking writes, or undefined while there is none. */
  primary?: string;
  /** host:port of the read replica and its replay lag (seconds), when one is configured and answers. */
  replica?: string;
  replicaLagSeconds?: number;
  /** Seconds since the last commit of an append (undefined before the first). */
  sinceLastCommitSeconds?: number;
  /** Synchronous standbys the primary requires and how many are streaming in sync. */
  synchronousStandbys?: { required: string; inSync: number };
}

export interface AuditStore {
  /** Resolves once the events are durable. */
  append(events: AuditEvent[]): Promise<void>;
  query(q: AuditQuery): Promise<AuditPage>;
  /**
   * Events in write order (oldest first) after position, for consumers that must see every event
   * once, like the webhook dispatcher; position undefined means from the beginning.
   */
  tail(position: string | undefined, limit: number): Promise<{ events: AuditEvent[]; position: string | undefined }>;
  /**
   * The tail position after the last event committed so far (undefined: none yet), read without
   * reading events: for a consumer with nothing to do with them (the dispatcher with no webhook).
   */
  head?(): Promise<string | undefined>;
  /** Deletes up to batchSize of the oldest events older than timeMs; returns how many. */
  deleteBefore(timeMs: number, batchSize: number): Promise<number>;
  /**
   * Removes at once whatever storage holds only events older than timeMs (PostgreSQL: whole week
   * partitions); returns how many events went. deleteBefore then takes the rest in batches.
   */
  dropBefore?(timeMs: number): Promise<number>;
  ping(): Promise<void>;
  /** Replication details (PostgreSQL only). */
  status?(): Promise<AuditStoreStatus>;
  close(): Promise<void>;
}

/** A cursor or tail position that no store issued (malformed or tampered with); the API answers 400. */
export class InvalidCursorError extends Error {
  constructor(message = 'the cursor is not valid; use a nextCursor from an earlier page') {
    super(message);
    this.name = 'InvalidCursorError';
  }
}
