// The door kit's listener: a door's server (net, tls or https) behind the shared listener limits
// (net/listener-limits.ts: caps per source and listener, the handshake deadline, the descriptor
// budget), its admitted connections counted in active_connections{listener}, and one way to start
// listening and to drain on shutdown.
import type { AddressInfo, Server } from 'node:net';
import type { Logger } from 'pino';
import { type Door, type DoorOptions, guardListener } from '../../net/listener-limits.js';
import type { Listener, Metrics } from '../../observability/metrics.js';

export interface DoorListener {
  /** The connection on this socket is through its handshake (authenticated): no deadline now. */
  passed: Door['passed'];
  /** Connections open now. */
  readonly open: number;
  listen(host: string, port: number): Promise<AddressInfo>;
  /**
   * Stops accepting and resolves once every connection has closed; what is still open after graceMs
   * (a socket in its handshake, a peer that never answers) is cut, so a shutdown ends in time.
   */
  close(graceMs: number): Promise<void>;
}

/**
 * Puts the door in front of `server`. Call it right after creating the server, before anything else
 * listens for 'connection' (a refused socket must never reach a parser or a TLS handshake).
 */
export function doorListener(
  server: Server,
  opts: { name: Listener; logger: Logger; door: DoorOptions; metrics?: Metrics | undefined },
): DoorListener {
  server.on('error', (err: Error) => opts.logger.error({ err }, `${opts.name}: listener error`));
  // Counted before the guard takes the 'connection' listeners over, so only admitted sockets count.
  opts.metrics?.trackConnections(server, opts.name);
  const door = guardListener(server, {
    name: opts.name,
    descriptorsPerConnection: 2, // the client's socket and the upstream leg
    warn: (message) => opts.logger.warn(message),
    ...opts.door,
  });
  return {
    passed: (socket) => door.passed(socket),
    get open() {
      return door.open;
    },
    listen(host, port) {
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          resolve(server.address() as AddressInfo);
        });
      });
    },
    async close(graceMs) {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      await door.drain(graceMs);
      await closed;
    },
  };
}
