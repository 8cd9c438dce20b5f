// Starts the app door for the composition root: where apps are served (web_public_url, apps_domain)
// and the door in front of the web listener's console and API routes.
import type { Server } from 'node:http';
import type { Logger } from 'pino';
import type { Config } from '../../config/schema.js';
import type { Clock } from '../../lib/clock.js';
import type { Metrics } from '../../observability/metrics.js';
import type { Services } from '../../services.js';
import { type AppDoor, createAppDoor } from './app-door.js';
import { routeAppHosts } from './host-routing.js';

/** web_public_url, or the listener's own address as http(s)://localhost:<port> (browsers resolve *.localhost to loopback). */
export function webPublicUrl(config: Pick<Config, 'web_public_url'>, scheme: 'http' | 'https', port: number): string {
  return config.web_public_url ?? `${scheme}://localhost:${port}`;
}

export function startAppDoor(
  services: Services,
  web: Server,
  opts: { config: Pick<Config, 'web_public_url' | 'apps_domain'>; clock: Clock; logger: Logger; metrics?: Metrics },
): AppDoor {
  const door = createAppDoor({
    apps: services.apps,
    access: services.access,
    tokens: services.tokens,
    credentials: { pipeline: services.pipeline, tokens: services.tokens, tickets: services.tickets },
    sessions: services.sessionRegistry,
    audit: services.audit,
    clock: opts.clock,
    logger: opts.logger,
    ...(opts.metrics ? { metrics: opts.metrics } : {}),
  });
  routeAppHosts(web, door);
  return door;
}
