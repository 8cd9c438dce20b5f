// One client connection to the SSH proxy: authentication (a registered key, or a token or one-time
// ticket typed as the password, through the door kit), the access decision for `login@server`, the
// upstream connection, and its channels — each session channel a Gatehouse session
// (session-channel.ts), each ssh -L/-W channel one too (port-forward.ts). A connection whose grounds
// are gone (its key deleted, its token revoked: sessions/session-guard.ts) is ended once none of its
// channels is left.
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import ssh2, { type AuthContext, type Client, type Connection, type ParsedKey, type ServerChannel } from 'ssh2';
import type { AuditLog } from '../../audit/audit-log.js';
import { actorOfPrincipal, type Principal } from '../../auth/principal.js';
import type { PrincipalRef } from '../../auth/records.js';
import type { Clock } from '../../lib/clock.js';
import type { DoorOptions } from '../../net/listener-limits.js';
import type { DenialClass, Metrics } from '../../observability/metrics.js';
import type { RecordingService } from '../../recordings/recording-service.js';
import type { SessionRegistry } from '../../sessions/session-registry.js';
import { sessionPrincipal } from '../../sessions/session-registry.js';
import type { TicketService } from '../../sessions/tickets.js';
import { authenticateDoorCredential, type DoorCredentialDeps } from '../common/door-credential.js';
import type { DoorListener } from '../common/door-listener.js';
import { recordDoorRejection } from '../common/door-session.js';
import type { SshAccess } from './access.js';
import { type AccessDecision, parseTarget } from './access.js';
import { runPortForward } from './port-forward.js';
import { type RunningSession, refuseChannel, runSession } from './session-channel.js';
import { onSessionChannel } from './session-requests.js';
import { connectUpstream, UpstreamError } from './upstream.js';

const { utils } = ssh2; // CommonJS: no named exports under Node's ESM loader

export interface SshProxyDeps {
  hostKey: string;
  access: SshAccess;
  pipeline: DoorCredentialDeps['pipeline'];
  tokens: DoorCredentialDeps['tokens'];
  tickets: Pick<TicketService, 'redeem'>;
  /** The owner of a registered SSH public key (raw wire-format blob), if any. */
  findKeyOwner(blob: Buffer): (PrincipalRef & { keyId?: string }) | undefined;
  /** Login certificates (ssh-keys/login-certificates.ts): recognized, then resolved to the login's principal. */
  certificates?: {
    recognizes(blob: Buffer): boolean;
    authenticate(blob: Buffer, signature: Buffer, data: Buffer): Principal | undefined;
  };
  /** Gatehouse's private key for a server (OpenSSH text), or undefined if it has none. */
  upstreamKey(serverId: string): string | undefined;
  /** A short-lived certificate from the user CA for login (offered after the server's own key). */
  issueCertificate?(opts: { login: string; keyId: string; permitPortForwarding: boolean }): ParsedKey;
  checkHostKey(serverId: string, key: Buffer): Promise<'pinned' | 'match' | 'mismatch'>;
  sessions: SessionRegistry;
  recordings: RecordingService;
  audit: AuditLog;
  clock: Clock;
  logger: Logger;
  metrics?: Metrics;
  upstreamTimeoutMs?: number;
  /** Caps and the handshake deadline of the listener (banner and authentication must be done in time). */
  door: DoorOptions;
}

const METHODS: Array<'publickey' | 'keyboard-interactive' | 'password'> = [
  'publickey',
  'keyboard-interactive',
  'password',
];

/** What the proxy shares with each of its connections. */
export interface ConnectionEnv {
  deps: SshProxyDeps;
  door: DoorListener;
  /** Open client connections, each with its running sessions. */
  connections: Map<Connection, Set<RunningSession>>;
  readonly shuttingDown: boolean;
}

/** One connection's state: who, where to, and what is open on it. */
interface Conn {
  client: Connection;
  remoteAddr: string;
  running: Set<RunningSession>;
  principal?: Principal;
  target?: { login: string; server: string };
  decision?: AccessDecision;
  upstream?: Promise<Client>;
  failedAttempts: number;
  /** Channels asked for or open (sessions, forwards): the connection ends after them when its grounds are gone. */
  channels: number;
  groundsLost: boolean;
  unwatch?: () => void;
}

export function handleConnection(env: ConnectionEnv, client: Connection, remoteAddr: string, socket?: Socket): void {
  const c: Conn = { client, remoteAddr, running: new Set(), failedAttempts: 0, channels: 0, groundsLost: false };
  env.connections.set(client, c.running);
  client.on('authentication', (ctx: AuthContext) => authenticate(env, c, ctx));
  client.on('ready', () => {
    if (!c.principal || !c.decision) return client.end();
    if (socket) env.door.passed(socket); // authenticated: the handshake deadline no longer applies
    if (!c.decision.allowed) return void rejected(env, c, 'access', c.decision.reason);
    watchGrounds(env, c);
    c.upstream = openUpstream(env, c, c.decision);
  });
  client.on('session', (acceptSession) =>
    onSessionChannel(acceptSession(), (request, accept) => startSession(env, c, request, accept)),
  );
  // ssh -L and -W: a direct-tcpip channel, a session of its own, opened on the target's side only
  // if a role allows forwarding now (port-forward.ts asks again as each one opens).
  client.on('tcpip', (accept, reject, info) => forward(env, c, { accept, reject }, info));
  // ssh -R and friends: remote listeners on the target are not brokered.
  client.on('request', (_accept, reject) => reject?.());
  client.on('error', (err: Error) => env.deps.logger.debug({ err }, 'ssh: client connection error'));
  client.on('close', () => {
    env.connections.delete(client);
    c.unwatch?.();
    for (const session of c.running) session.terminate('gatehouse: connection closed');
    c.upstream?.then(
      (up) => up.end(),
      () => undefined,
    );
    if (!c.principal && c.failedAttempts > 0)
      void rejected(env, c, 'authentication', 'authentication failed', { attempts: c.failedAttempts });
  });
}

function rejected(
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

function authenticate(env: ConnectionEnv, c: Conn, ctx: AuthContext) {
  const { access } = env.deps;
  c.target ??= parseTarget(ctx.username);
  const fail = () => {
    c.failedAttempts++;
    ctx.reject(METHODS);
  };
  const accepted = (who: Principal) => {
    c.principal = who;
    c.decision = c.target
      ? access.authorize(who, c.target.server, c.target.login)
      : { allowed: false, reason: 'connect as <login>@<server>, e.g. ssh -l ubuntu@web-1' };
    ctx.accept();
  };
  /** A token or a ticket typed as the password (keyboard-interactive or password). */
  const secretLogin = (secret: string) => {
    const server = c.target ? access.findServer(c.target.server) : undefined;
    void authenticateDoorCredential(env.deps, {
      door: 'ssh',
      secret,
      remoteAddr: c.remoteAddr,
      ticketFits: (grant) => server !== undefined && grant.server_id === server.id && grant.login === c.target?.login,
    }).then((r) => ('principal' in r ? accepted(r.principal) : fail()));
  };
  switch (ctx.method) {
    case 'publickey': {
      if (ctx.key.algo.endsWith('-cert-v01@openssh.com')) {
        const certs = env.deps.certificates;
        if (!certs?.recognizes(ctx.key.data)) return fail();
        if (!ctx.signature || !ctx.blob) return ctx.accept(); // would the certificate do: yes
        // The login's token must still stand: a logout or revocation refuses the certificate.
        const who = certs.authenticate(ctx.key.data, ctx.signature, ctx.blob);
        return who ? accepted(who) : fail();
      }
      const owner = env.deps.findKeyOwner(ctx.key.data);
      if (!owner) return fail();
      if (!ctx.signature) return ctx.accept(); // the client asks whether the key would do
      const key = utils.parseKey(ctx.key.data);
      if (key instanceof Error || Array.isArray(key) || !ctx.blob) return fail();
      if (key.verify(ctx.blob, ctx.signature, ctx.hashAlgo) !== true) return fail();
      // The key is the session's origin: removing it ends what it opened (sessions/session-guard.ts).
      const who = access.principal(owner, 'publickey', owner.keyId ? { ssh_key_id: owner.keyId } : {});
      return who ? accepted(who) : fail(); // suspended, revoked or deleted: fail
    }
    case 'keyboard-interactive':
      return ctx.prompt([{ prompt: 'Gatehouse token or ticket: ', echo: false }], 'Gatehouse', '', (answers) =>
        secretLogin(answers[0] ?? ''),
      );
    case 'password':
      return secretLogin(ctx.password);
    default:
      return ctx.reject(METHODS);
  }
}

const endIfGroundless = (c: Conn) => {
  if (c.groundsLost && c.channels === 0) c.client.end();
};

/** Counts a channel until it closes. */
function held(c: Conn, channel: ServerChannel): ServerChannel {
  c.channels++;
  channel.once('close', () => {
    c.channels--;
    endIfGroundless(c);
  });
  return channel;
}

/**
 * Its channels are each checked as they open; the connection itself is ended once what it
 * authenticated with no longer allows it here (and its sessions, ended by the guard, are gone).
 */
function watchGrounds(env: ConnectionEnv, c: Conn): void {
  const { server } = c.decision as Extract<AccessDecision, { allowed: true }>;
  c.unwatch = env.deps.sessions.watchConnection(
    {
      kind: 'ssh',
      ...sessionPrincipal(c.principal as Principal),
      resource: { kind: 'server', id: server.id, name: server.name },
      login: c.target?.login ?? '',
    },
    (why) => {
      env.deps.logger.debug({ reason: why.reason }, 'ssh: connection no longer allowed');
      c.groundsLost = true;
      c.unwatch?.();
      endIfGroundless(c);
    },
  );
}

/** The target's connection, with Gatehouse's key for it and a short-lived certificate. */
function openUpstream(env: ConnectionEnv, c: Conn, decision: Extract<AccessDecision, { allowed: true }>) {
  const { deps } = env;
  const { server } = decision;
  const login = c.target?.login ?? '';
  const who = c.principal as Principal;
  const keys: Array<string | ParsedKey> = [];
  const own = deps.upstreamKey(server.id);
  if (own) keys.push(own);
  if (deps.issueCertificate) {
    keys.push(
      deps.issueCertificate({
        login,
        keyId: `gatehouse ${who.kind}:${who.name} ${login}@${server.name}`,
        permitPortForwarding: decision.options.portForwarding,
      }),
    );
  }
  const upstream = keys.length
    ? connectUpstream({
        address: server.address,
        serverName: server.name,
        login,
        keys,
        checkHostKey: (key) => deps.checkHostKey(server.id, key),
        ...(deps.upstreamTimeoutMs ? { timeoutMs: deps.upstreamTimeoutMs } : {}),
      })
    : Promise.reject(new UpstreamError(`Gatehouse holds no key for ${server.name}`, 'no_credential'));
  upstream.then(
    (up) => {
      up.on('close', () => c.client.end());
      up.on('error', (err) => deps.logger.debug({ err }, 'ssh: upstream error'));
    },
    (error: UpstreamError) => {
      deps.metrics?.accessDenials.inc({ door: 'ssh', reason: 'upstream' });
      void deps.audit
        .record({
          type: 'session.upstream_failed',
          actor: actorOfPrincipal(who),
          target: { kind: 'server', id: server.id, name: server.name },
          success: false,
          remote_addr: c.remoteAddr,
          data: { login, reason: error.reason, detail: error.message },
        })
        .catch((err) => deps.logger.warn({ err }, 'ssh: cannot record an upstream failure'));
    },
  );
  return upstream;
}

/** Keeps a running session (a shell, an exec, a forward) on the connection until its channel closes. */
function keep(env: ConnectionEnv, c: Conn, live: RunningSession, channel: ServerChannel): void {
  c.running.add(live);
  channel.once('close', () => {
    c.running.delete(live);
    if (env.shuttingDown && c.running.size === 0) c.client.end();
  });
}

function startSession(
  env: ConnectionEnv,
  c: Conn,
  request: Parameters<typeof runSession>[3],
  accept: () => ServerChannel,
): Promise<RunningSession | undefined> {
  const channel = held(c, accept());
  const decision = c.decision;
  if (!decision?.allowed) {
    refuseChannel(channel, `access denied: ${decision?.reason ?? 'not authenticated'}`);
    return Promise.resolve(undefined);
  }
  const { deps } = env;
  return (c.upstream as Promise<Client>).then(
    async (up) => {
      const live = await runSession(
        { ...sessionContext(env, c, decision), recordings: deps.recordings },
        up,
        channel,
        request,
      );
      if (live) keep(env, c, live, channel);
      return live;
    },
    (error: Error) => {
      refuseChannel(channel, error.message);
      return undefined;
    },
  );
}

function sessionContext(env: ConnectionEnv, c: Conn, decision: Extract<AccessDecision, { allowed: true }>) {
  const { deps } = env;
  return {
    principal: c.principal as Principal,
    server: decision.server,
    login: c.target?.login ?? '',
    options: decision.options,
    remoteAddr: c.remoteAddr,
    sessions: deps.sessions,
    audit: deps.audit,
    clock: deps.clock,
    logger: deps.logger,
    ...(deps.metrics ? { metrics: deps.metrics } : {}),
  };
}

function forward(
  env: ConnectionEnv,
  c: Conn,
  ask: { accept(): ServerChannel; reject(): void },
  info: Parameters<typeof runPortForward>[2],
): void {
  const decision = c.decision;
  if (!decision?.allowed || !decision.options.portForwarding) {
    ask.reject();
    void rejected(env, c, 'access', 'port forwarding is not allowed by any role', {
      forward: `${info.destIP}:${info.destPort}`,
    });
    return;
  }
  c.channels++; // until it is accepted (then counted until it closes) or rejected
  let channel: ServerChannel | undefined;
  const accept = () => {
    channel = held(c, ask.accept());
    return channel;
  };
  runPortForward(sessionContext(env, c, decision), c.upstream as Promise<Client>, info, { accept, reject: ask.reject })
    .then((live) => {
      if (live && channel) keep(env, c, live, channel);
    })
    .catch((err: unknown) => {
      env.deps.logger.error({ err }, 'ssh: cannot open a port forward');
      if (!channel) ask.reject();
    })
    .finally(() => {
      c.channels--;
      endIfGroundless(c);
    });
}
