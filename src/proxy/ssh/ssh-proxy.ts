// The SSH proxy (port 3023): users and agents connect with stock OpenSSH as `<login>@<server>`,
// authenticate with a registered public key, an access token or a one-time ticket (as the password),
// and reach the server under RBAC, with every session recorded. One upstream connection per client
// connection (ssh-connection.ts); each session channel is a Gatehouse session (session-channel.ts),
// each ssh -L/-W channel one too (port-forward.ts). The listener, the credential step and the session
// lifetime come from the door kit (../common/).
import { createServer, type Socket } from 'node:net';
import ssh2, { type Connection } from 'ssh2';
import { doorListener } from '../common/door-listener.js';
import { CLIENT_LEG_CIPHERS } from './algorithms.js';
import type { ConnectionEnv, SshProxyDeps } from './connection-state.js';
import type { RunningSession } from './session-channel.js';
import { handleConnection } from './ssh-connection.js';

export type { SshProxyDeps };

const { Server: SshServer } = ssh2; // CommonJS: no named exports under Node's ESM loader

export type SshProxy = ReturnType<typeof createSshProxy>;

export function createSshProxy(deps: SshProxyDeps) {
  const { logger } = deps;
  const connections = new Map<Connection, Set<RunningSession>>();
  let shuttingDown = false;

  const server = new SshServer(
    {
      hostKeys: [deps.hostKey],
      ident: 'Gatehouse',
      algorithms: { cipher: CLIENT_LEG_CIPHERS },
    } as ConstructorParameters<typeof SshServer>[0],
    (client, info) => handleConnection(env, client, info.ip, socketsByPeer.get(`${info.ip}|${info.port}`)),
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
  const door = doorListener(listener, { name: 'ssh', logger, door: deps.door, metrics: deps.metrics });
  const env: ConnectionEnv = {
    deps,
    door,
    connections,
    get shuttingDown() {
      return shuttingDown;
    },
  };

  return {
    server,
    listen: door.listen,
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
      const closing = door.close(3000);
      deps.sessions.terminateAllLive('gatehouse: the proxy is shutting down');
      // A connection with sessions ends once they have closed: a disconnect sent right behind the
      // message can reach OpenSSH in the same read, and it exits on it without printing the message.
      for (const [client, running] of connections) if (running.size === 0) client.end();
      const grace = setTimeout(() => {
        for (const client of connections.keys()) client.end();
      }, 2000);
      await closing;
      clearTimeout(grace);
    },
  };
}
