// One client connection to the SSH proxy: its authentication (ssh-auth.ts: a registered key, or a
// token or one-time ticket typed as the password, through the door kit), the access decision for
// `login@server`, the upstream connection, and its channels (ssh-channels.ts) — each session channel a
// Gatehouse session (session-channel.ts), each ssh -L/-W channel one too (port-forward.ts). A
// connection whose grounds are gone (its key deleted, its token revoked: sessions/session-guard.ts) is
// ended once none of its channels is left.

import type { Socket } from 'node:net';
import type { AuthContext, Connection, ParsedKey } from 'ssh2';
import type { Principal } from '../../auth/principal.js';
import { newId } from '../../lib/ids.js';
import { generateEd25519 } from '../../lib/ssh-keygen.js';
import { sessionPrincipal } from '../../sessions/session-registry.js';
import { withCertificate } from '../../ssh-keys/user-ca.js';
import { recordUpstreamFailure } from '../common/door-refusals.js';
import type { AccessDecision } from './access.js';
import { type Conn, type ConnectionEnv, rejected } from './connection-state.js';
import { onSessionChannel } from './session-requests.js';
import { authenticate } from './ssh-auth.js';
import { endIfGroundless, forward, startSession } from './ssh-channels.js';
import { connectUpstream, UpstreamError } from './upstream.js';

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

/** The target's connection, with the credential auth issued for it (a certificate, the server's key). */
function openUpstream(env: ConnectionEnv, c: Conn, decision: Extract<AccessDecision, { allowed: true }>) {
  const { deps } = env;
  const { server } = decision;
  const login = c.target?.login ?? '';
  const who = c.principal as Principal;
  const upstream = (async () => {
    // A key of this connection's own: only its public half leaves the process, to be certified.
    const mine = generateEd25519();
    const issued = await deps
      .upstreamCredential(
        {
          // The connection's id: its sessions are its channels, each with an id of its own.
          session_id: newId('session', deps.clock()),
          kind: 'ssh',
          ...sessionPrincipal(who),
          resource: { kind: 'server', id: server.id, name: server.name },
          login,
        },
        { public_key: mine.public, permit_port_forwarding: decision.options.portForwarding, proof: c.proof },
      )
      .catch((error: Error) => {
        throw new UpstreamError(`no credential for ${server.name}: ${error.message}`, 'no_credential');
      });
    const keys: Array<string | ParsedKey> = [];
    if (issued.server_key) keys.push(issued.server_key);
    keys.push(withCertificate(mine.key, issued.certificate));
    return connectUpstream({
      address: server.address,
      serverName: server.name,
      login,
      keys,
      checkHostKey: (key) => deps.checkHostKey(server.id, key),
      ...(deps.upstreamTimeoutMs ? { timeoutMs: deps.upstreamTimeoutMs } : {}),
    });
  })();
  upstream.then(
    (up) => {
      up.on('close', () => c.client.end());
      up.on('error', (err) => deps.logger.debug({ err }, 'ssh: upstream error'));
    },
    (error: UpstreamError) => {
      void recordUpstreamFailure(deps, {
        door: 'ssh',
        principal: who,
        resource: { kind: 'server', id: server.id, name: server.name },
        remoteAddr: c.remoteAddr,
        data: { login, reason: error.reason, detail: error.message },
      });
    },
  );
  return upstream;
}
