// What the SSH proxy is built with, what it shares with each connection, one connection's state, and
// how a refused connection is recorded (the door kit's rejection record, with login@server).

import type { Logger } from 'pino';
import type { Client, Connection } from 'ssh2';
import type { AuditLog } from '../../audit/audit-log.js';
import type { Principal } from '../../auth/principal.js';
import type { PrincipalRef } from '../../auth/records.js';
import type { Clock } from '../../lib/clock.js';
import type { DoorOptions } from '../../net/listener-limits.js';
import type { DenialClass, Metrics } from '../../observability/metrics.js';
import type { RecordingService } from '../../recordings/recording-service.js';
import type { PrincipalProof } from '../../sessions/principal-proof.js';
import type { SessionRegistry } from '../../sessions/session-registry.js';
import type { TicketService } from '../../sessions/tickets.js';
import type { UpstreamCredentials } from '../../sessions/upstream-credentials.js';
import type { DoorCredentialDeps } from '../common/door-credential.js';
import type { DoorListener } from '../common/door-listener.js';
import { recordDoorRejection } from '../common/door-session.js';
import type { AccessDecision, SshAccess } from './access.js';
import type { RunningSession } from './session-channel.js';

export interface SshProxyDeps {
  hostKey: string;
  access: SshAccess;
  pipeline: DoorCredentialDeps['pipeline'];
  tokens: DoorCredentialDeps['tokens'];
  tickets: Pick<TicketService, 'redeem'>;
  /** The owner of a registered SSH public key (raw wire-format blob), if any. */
  findKeyOwner(blob: Buffer): (PrincipalRef & { keyId?: string }) | undefined;
  /**
   * A key login's principal (sessions/principal-proof.ts): a login certificate or a registered key, with
   * the client's signature over this login; the auth tier checks the same signature, forwarded, before
   * it issues the upstream credential.
   */
  keyLogin(key: Buffer, signature: Buffer, data: Buffer, hashAlgo?: string): Principal | undefined;
  /** Login certificates (ssh-keys/login-certificates.ts): recognized, then resolved to the login's principal. */
  certificates?: {
    recognizes(blob: Buffer): boolean;
    authenticate(blob: Buffer, signature: Buffer, data: Buffer): Principal | undefined;
  };
  /**
   * The connection's upstream credential (sessions/upstream-credentials.ts): a certificate for a key
   * made here for it, and the server's own key where one is registered; refused unless allowed.
   */
  upstreamCredential: UpstreamCredentials['ssh'];
  checkHostKey(serverId: string, key: Buffer): Promise<'pinned' | 'match' | 'mismatch'>;
  sessions: SessionRegistry;
  recordings: RecordingService;
  audit: AuditLog;
  clock: Clock;
  logger: Logger;
  metrics?: Metrics;
  /** proxy.session_idle_timeout (ms): a session without traffic this long ends. */
  idleTimeoutMs?: number;
  upstreamTimeoutMs?: number;
  /** Caps and the handshake deadline of the listener (banner and authentication must be done in time). */
  door: DoorOptions;
}

/** What the proxy shares with each of its connections. */
export interface ConnectionEnv {
  deps: SshProxyDeps;
  door: DoorListener;
  /** Open client connections, each with its running sessions. */
  connections: Map<Connection, Set<RunningSession>>;
  readonly shuttingDown: boolean;
}

/** One connection's state: who, where to, and what is open on it. */
export interface Conn {
  client: Connection;
  remoteAddr: string;
  running: Set<RunningSession>;
  principal?: Principal;
  /** What the principal presented (a token, a ticket, a key's signature), for the credential ask. */
  proof?: PrincipalProof;
  target?: { login: string; server: string };
  decision?: AccessDecision;
  upstream?: Promise<Client>;
  failedAttempts: number;
  /** Channels asked for or open (sessions, forwards): the connection ends after them when its grounds are gone. */
  channels: number;
  groundsLost: boolean;
  unwatch?: () => void;
}

export function rejected(
  env: ConnectionEnv,
  c: Conn,
  denial: DenialClass,
  reason: string,
  extra: Record<string, unknown> = {},
): Promise<void> {
  const server = c.decision?.allowed === false ? c.decision.server : undefined;
  return recordDoorRejection(env.deps, {
    door: 'ssh',
    denial,
    principal: c.principal,
    ...(server ? { resource: { kind: 'server', id: server.id, name: server.name } } : {}),
    remoteAddr: c.remoteAddr,
    data: { ...(c.target ?? {}), ...extra },
    reason,
  });
}
