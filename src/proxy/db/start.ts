// Starts the PostgreSQL proxy for the composition root (server.ts), so its wiring stays one call.

import type { Logger } from 'pino';
import type { Clock } from '../../lib/clock.js';
import type { DoorOptions } from '../../net/listener-limits.js';
import type { Services } from '../../services.js';
import { createCancelKeys } from './cancel-keys.js';
import { createDbProxy, type DbProxy } from './db-proxy.js';

export async function startDbProxy(
  services: Services,
  opts: {
    host: string;
    port: number;
    /** Off loopback the password crosses the network: TLS is then required of every client. */
    loopback: boolean;
    tls?: { cert: Buffer; key: Buffer };
    queryMaxLength: number;
    clock: Clock;
    logger: Logger;
    door: DoorOptions;
    /** proxy.session_idle_timeout (ms), if set. */
    idleTimeoutMs?: number;
  },
): Promise<{ proxy: DbProxy; addr: { host: string; port: number } }> {
  const proxy = createDbProxy({
    access: services.access,
    pipeline: services.pipeline,
    tokens: services.tokens,
    tickets: services.tickets,
    sessions: services.sessionRegistry,
    recordings: services.recordings,
    audit: services.audit,
    upstreamCredential: (grounds, o) => services.upstreamCredentials.db(grounds, o),
    clock: opts.clock,
    logger: opts.logger,
    ...(services.metrics ? { metrics: services.metrics } : {}),
    ...(opts.tls ? { tls: opts.tls } : {}),
    requireTls: !opts.loopback,
    queryMaxLength: opts.queryMaxLength,
    door: opts.door,
    ...(opts.idleTimeoutMs === undefined ? {} : { idleTimeoutMs: opts.idleTimeoutMs }),
    cancelKeys: createCancelKeys(services.shared.link, (err) => opts.logger.debug({ err }, 'db: cancel key in redis')),
  });
  const bound = await proxy.listen(opts.host, opts.port);
  return { proxy, addr: { host: opts.host, port: bound.port } };
}
