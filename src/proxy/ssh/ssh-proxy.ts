// The SSH proxy (port 3023): users and agents connect with stock OpenSSH as `<login>@<server>`,
// authenticate with a registered public key, an access token or a one-time ticket (as the password),
// and reach the server under RBAC, with every session recorded. One upstream connection per client
// connection; each session channel is a Gatehouse session (session-channel.ts), each ssh -L/-W
// channel one too (port-forward.ts). A connection whose grounds are gone (its key deleted, its token
// revoked: sessions/session-guard.ts) is ended once none of its channels is left.
import { type AddressInfo, createServer, type Socket } from 'node:net';
import type { Logger } from 'pino';
import ssh2, {
  type AuthContext,
  type Client,
  type Connection,
  type ParsedKey,
  type ServerChannel,
  type Session,
} from 'ssh2';
import type { AuditLog } from '../../audit/audit-log.js';
import { actorOfPrincipal, type Principal } from '../../auth/principal.js';
import type { PrincipalRef } from '../../auth/records.js';
import type { TokenService } from '../../auth/token-service.js';
import type { Clock } from '../../lib/clock.js';
import { hashSecret } from '../../lib/secrets.js';
import { type DoorOptions, guardListener } from '../../net/listener-limits.js';
import type { Metrics } from '../../observability/metrics.js';
import type { RecordingService } from '../../recordings/recording-service.js';
import { type SessionRegistry, sessionPrincipal } from '../../sessions/session-registry.js';
import { TICKET_PREFIX, type TicketService, ticketScope } from '../../sessions/tickets.js';
import { type AccessDecision, parseTarget, type SshAccess } from './access.js';
import { CLIENT_LEG_CIPHERS } from './algorithms.js';
import { runPortForward } from './port-forward.js';
import { type PtyRequest, type RunningSession, runSession, type SessionRequest } from './session-channel.js';
import { connectUpstream, UpstreamError } from './upstream.js';

const { Server: SshServer, utils } = ssh2; // CommonJS: no named exports under Node's ESM loader

export interface SshProxyDeps {
  hostKey: string;
  access: SshAccess;
  tokens: Pick<TokenService, 'authenticate' | 'loginFailed'>;
  tickets: TicketService;
  /** The owner of a registered SSH public key (raw wire-format blob), if any. */
  findKeyOwner(blob: Buffer): (PrincipalRef & { keyId?: string }) | undefined;
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

/** Environment variables passed on to the target (as OpenSSH's AcceptEnv default on Debian). */
const PASSED_ENV = /^(LANG|LC_[A-Z_]+|COLORTERM|NO_COLOR)$/;

export type SshProxy = ReturnType<typeof createSshProxy>;

export function createSshProxy(deps: SshProxyDeps) {
  const { access, audit, logger } = deps;
  /** Open client connections, each with its running sessions. */
  const connections = new Map<Connection, Set<RunningSession>>();
  let shuttingDown = false;

  const server = new SshServer(
    {
      hostKeys: [deps.hostKey],
      ident: 'Gatehouse',
      algorithms: { cipher: CLIENT_LEG_CIPHERS },
    } as ConstructorParameters<typeof SshServer>[0],
    (client, info) => handleConnection(client, info.ip, socketsByPeer.get(`${info.ip}|${info.port}`)),
  );
  server.on('error', (err: Error) => logger.error({ err }, 'ssh: listener error'));
  // Our own listener hands ssh2 only the sockets its door admits; ssh2 names a connection by its
  // peer's address and port, which is how its socket is found again once it has authenticated.
  const socketsByPeer = new Map<string, Socket>();
  const listener = createServer((socket) => {
    const key = `${socket.remoteAddress}|${socket.remotePort}`;
    socketsByPeer.set(key, socket);
    socket.once('close', () => socketsByPeer.delete(key));
    server.injectSocket(socket);
  });
  listener.on('error', (err: Error) => logger.error({ err }, 'ssh: listener error'));
  const door = guardListener(listener, {
    name: 'ssh',
    descriptorsPerConnection: 2,
    warn: (message) => logger.warn(message),
    ...deps.door,
  });

  function handleConnection(client: Connection, remoteAddr: string, socket: Socket | undefined): void {
    const running = new Set<RunningSession>();
    connections.set(client, running);
    let principal: Principal | undefined;
    let target: { login: string; server: string } | undefined;
    let decision: AccessDecision | undefined;
    let upstream: Promise<Client> | undefined;
    let failedAttempts = 0;
    const requestCtx = { remoteAddr, requestId: 'ssh' };
    /** Channels asked for or open (sessions, forwards): the connection ends after them when its grounds are gone. */
    let channels = 0;
    let groundsLost = false;
    let unwatch: (() => void) | undefined;
    const endIfGroundless = () => {
      if (groundsLost && channels === 0) client.end();
    };
    /** Counts a channel until it closes. */
    const held = (channel: ServerChannel): ServerChannel => {
      channels++;
      channel.once('close', () => {
        channels--;
        endIfGroundless();
      });
      return channel;
    };

    async function rejected(reason: string, extra: Record<string, unknown> = {}): Promise<void> {
      await audit
        .record({
          type: 'session.rejected',
          actor: principal ? actorOfPrincipal(principal) : { kind: 'anonymous' },
          ...(decision?.allowed === false && decision.server
            ? { target: { kind: 'server', id: decision.server.id, name: decision.server.name } }
            : {}),
          success: false,
          remote_addr: remoteAddr,
          data: { ...(target ?? {}), reason, ...extra },
        })
        .catch((err) => logger.warn({ err }, 'ssh: cannot record a rejection'));
    }

    /**
     * A token or a ticket typed as the password (keyboard-interactive or password). Failures count
     * against the source and the secret (a valid one is never throttled: see auth/login-throttle.ts).
     */
    async function secretLogin(secret: string): Promise<Principal | undefined> {
      const presented = hashSecret(secret);
      if (secret.startsWith(TICKET_PREFIX)) {
        const grant = await deps.tickets.redeem(secret);
        const server = target ? access.findServer(target.server) : undefined;
        if (grant && target && server && grant.server_id === server.id && grant.login === target.login) {
          // The ticket carries the scope it was asked under (credential roles, the user acted for).
          const p = access.principal(grant.principal, 'ticket', ticketScope(grant));
          if (p) return p;
        }
        await deps.tokens.loginFailed(requestCtx, 'ssh: invalid, used or expired ticket', 'invalid_token', presented);
        return undefined;
      }
      try {
        return deps.tokens.authenticate(secret);
      } catch (error) {
        await deps.tokens.loginFailed(requestCtx, `ssh: ${(error as Error).message}`, 'invalid_token', presented);
        return undefined;
      }
    }

    function accepted(ctx: AuthContext, who: Principal): void {
      principal = who;
      decision = target
        ? access.authorize(who, target.server, target.login)
        : { allowed: false, reason: 'connect as <login>@<server>, e.g. ssh -l ubuntu@web-1' };
      ctx.accept();
    }

    client.on('authentication', (ctx: AuthContext) => {
      target ??= parseTarget(ctx.username);
      const methods: Array<'publickey' | 'keyboard-interactive' | 'password'> = [
        'publickey',
        'keyboard-interactive',
        'password',
      ];
      const fail = () => {
        failedAttempts++;
        ctx.reject(methods);
      };
      switch (ctx.method) {
        case 'publickey': {
          const owner = deps.findKeyOwner(ctx.key.data);
          if (!owner) return fail();
          if (!ctx.signature) return ctx.accept(); // the client asks whether the key would do
          const key = utils.parseKey(ctx.key.data);
          if (key instanceof Error || Array.isArray(key) || !ctx.blob) return fail();
          if (key.verify(ctx.blob, ctx.signature, ctx.hashAlgo) !== true) return fail();
          // The key is the session's origin: removing it ends what it opened (sessions/session-guard.ts).
          const who = access.principal(owner, 'publickey', owner.keyId ? { ssh_key_id: owner.keyId } : {});
          if (!who) return fail(); // suspended, revoked or deleted
          return accepted(ctx, who);
        }
        case 'keyboard-interactive':
          ctx.prompt([{ prompt: 'Gatehouse token or ticket: ', echo: false }], 'Gatehouse', '', (answers) => {
            void secretLogin(answers[0] ?? '').then((who) => (who ? accepted(ctx, who) : fail()));
          });
          return;
        case 'password':
          void secretLogin(ctx.password).then((who) => (who ? accepted(ctx, who) : fail()));
          return;
        default:
          return ctx.reject(methods);
      }
    });

    client.on('ready', () => {
      if (!principal || !decision) return client.end();
      if (socket) door.passed(socket); // authenticated: the handshake deadline no longer applies
      if (!decision.allowed) {
        void rejected(decision.reason);
        return;
      }
      const server = decision.server;
      const login = target?.login ?? '';
      // Its channels are each checked as they open; the connection itself is ended once what it
      // authenticated with no longer allows it here (and its sessions, ended by the guard, are gone).
      unwatch = deps.sessions.watchConnection(
        {
          kind: 'ssh',
          ...sessionPrincipal(principal),
          resource: { kind: 'server', id: server.id, name: server.name },
          login,
        },
        (why) => {
          logger.debug({ reason: why.reason }, 'ssh: connection no longer allowed');
          groundsLost = true;
          unwatch?.();
          endIfGroundless();
        },
      );
      const keys: Array<string | ParsedKey> = [];
      const own = deps.upstreamKey(server.id);
      if (own) keys.push(own);
      if (deps.issueCertificate) {
        const who = principal;
        keys.push(
          deps.issueCertificate({
            login,
            keyId: `gatehouse ${who.kind}:${who.name} ${login}@${server.name}`,
            permitPortForwarding: decision.options.portForwarding,
          }),
        );
      }
      upstream = keys.length
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
          up.on('close', () => client.end());
          up.on('error', (err) => logger.debug({ err }, 'ssh: upstream error'));
        },
        (error: UpstreamError) => {
          void audit
            .record({
              type: 'session.upstream_failed',
              actor: actorOfPrincipal(principal as Principal),
              target: { kind: 'server', id: server.id, name: server.name },
              success: false,
              remote_addr: remoteAddr,
              data: { login: target?.login, reason: error.reason, detail: error.message },
            })
            .catch((err) => logger.warn({ err }, 'ssh: cannot record an upstream failure'));
        },
      );
    });

    /** Tells the user why, on their terminal, and ends the channel. */
    function refuseChannel(channel: ServerChannel, message: string): void {
      channel.stderr.write(`gatehouse: ${message}\r\n`);
      channel.exit(1);
      channel.end();
      channel.resume(); // nobody reads it: drained, its close is emitted (ssh2 waits for its end)
    }

    client.on('session', (acceptSession) => {
      const session: Session = acceptSession();
      let pty: PtyRequest | undefined;
      const env: Record<string, string> = {};
      let live: RunningSession | undefined;

      session.on('pty', (accept, _reject, info) => {
        pty = {
          cols: info.cols,
          rows: info.rows,
          width: info.width,
          height: info.height,
          term: info.term,
          modes: info.modes,
        };
        accept?.();
      });
      session.on('env', (accept, reject, info) => {
        if (PASSED_ENV.test(info.key) && Object.keys(env).length < 32) {
          env[info.key] = String(info.val).slice(0, 256);
          accept?.();
        } else reject?.();
      });
      session.on('window-change', (accept, _reject, info) => {
        if (pty) Object.assign(pty, { cols: info.cols, rows: info.rows, width: info.width, height: info.height });
        live?.resize(info);
        accept?.();
      });
      session.on('signal', (accept, _reject, info) => {
        live?.signal(info.name);
        accept?.();
      });
      // Agent and X11 forwarding hand the target a way back into the user's machine: never.
      session.on('auth-agent', (_accept, reject) => reject?.());
      session.on('x11', (_accept, reject) => reject?.());

      const start = (request: SessionRequest, accept: () => ServerChannel) => {
        const channel = held(accept());
        if (!decision?.allowed) {
          refuseChannel(channel, `access denied: ${decision?.reason ?? 'not authenticated'}`);
          return;
        }
        const allowed = decision;
        (upstream as Promise<Client>).then(
          async (up) => {
            live = await runSession(
              {
                principal: principal as Principal,
                server: allowed.server,
                login: target?.login ?? '',
                options: allowed.options,
                remoteAddr,
                sessions: deps.sessions,
                recordings: deps.recordings,
                audit,
                clock: deps.clock,
                logger,
                ...(deps.metrics ? { metrics: deps.metrics } : {}),
              },
              up,
              channel,
              request,
            );
            if (live) {
              running.add(live);
              channel.on('close', () => {
                running.delete(live as RunningSession);
                if (shuttingDown && running.size === 0) client.end();
              });
            }
          },
          (error: Error) => refuseChannel(channel, error.message),
        );
      };
      session.on('shell', (accept) => start({ type: 'shell', ...(pty ? { pty } : {}), env }, accept));
      session.on('exec', (accept, _reject, info) =>
        start({ type: 'exec', command: info.command, ...(pty ? { pty } : {}), env }, accept),
      );
      session.on('subsystem', (accept, reject, info) => {
        if (info.name !== 'sftp') return reject?.();
        start({ type: 'subsystem', command: 'sftp', env }, accept);
      });
    });

    // ssh -L and -W: a direct-tcpip channel, a session of its own, opened on the target's side only
    // if a role allows forwarding now (port-forward.ts asks again as each one opens).
    client.on('tcpip', (accept, reject, info) => {
      if (!decision?.allowed || !decision.options.portForwarding) {
        reject();
        void rejected('port forwarding is not allowed by any role', {
          forward: `${info.destIP}:${info.destPort}`,
        });
        return;
      }
      channels++; // until it is accepted (then counted until it closes) or rejected
      let channel: ServerChannel | undefined;
      runPortForward(
        {
          principal: principal as Principal,
          server: decision.server,
          login: target?.login ?? '',
          options: decision.options,
          remoteAddr,
          sessions: deps.sessions,
          audit,
          clock: deps.clock,
          logger,
        },
        upstream as Promise<Client>,
        info,
        {
          accept: () => {
            channel = held(accept());
            return channel;
          },
          reject,
        },
      )
        .then((live) => {
          if (!live || !channel) return;
          running.add(live);
          channel.once('close', () => {
            running.delete(live);
            if (shuttingDown && running.size === 0) client.end();
          });
        })
        .catch((err: unknown) => {
          logger.error({ err }, 'ssh: cannot open a port forward');
          if (!channel) reject();
        })
        .finally(() => {
          channels--;
          endIfGroundless();
        });
    });
    // ssh -R and friends: remote listeners on the target are not brokered.
    client.on('request', (_accept, reject) => reject?.());

    client.on('error', (err: Error) => logger.debug({ err }, 'ssh: client connection error'));
    client.on('close', () => {
      connections.delete(client);
      unwatch?.();
      for (const session of running) session.terminate('gatehouse: connection closed');
      upstream?.then(
        (up) => up.end(),
        () => undefined,
      );
      if (!principal && failedAttempts > 0) {
        void rejected('authentication failed', { attempts: failedAttempts });
      }
    });
  }

  return {
    server,
    async listen(host: string, port: number): Promise<AddressInfo> {
      await new Promise<void>((resolve, reject) => {
        listener.once('error', reject);
        listener.listen(port, host, () => {
          listener.off('error', reject);
          resolve();
        });
      });
      return listener.address() as AddressInfo;
    },
    get connectionCount(): number {
      return connections.size;
    },
    /**
     * Stops accepting; live sessions are told and ended, their recordings closed. Bounded: what is
     * still open after 3 s (a socket still in its handshake, a peer that never answers our
     * disconnect) is cut, so a SIGTERM ends the process in time and frees its spool.
     */
    async close(): Promise<void> {
      shuttingDown = true;
      const stopped = new Promise<void>((resolve) => listener.close(() => resolve()));
      deps.sessions.terminateAllLive('gatehouse: the proxy is shutting down');
      // A connection with sessions ends once they have closed: a disconnect sent right behind the
      // message can reach OpenSSH in the same read, and it exits on it without printing the message.
      for (const [client, running] of connections) if (running.size === 0) client.end();
      const grace = setTimeout(() => {
        for (const client of connections.keys()) client.end();
      }, 2000);
      await door.drain(3000);
      clearTimeout(grace);
      await stopped;
    },
  };
}
