// Starts the app door for the composition root: where apps are served (web_public_url, apps_domain)
// and the door in front of the web listener's console and API routes.
import type { Server } from 'node:http';
import type { Logger } from 'pino';
import type { Config } from '../../config/schema.js';
import type { Clock } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import type { AuthPool } from '../../net/auth-client.js';
import type { Metrics } from '../../observability/metrics.js';
import type { Services } from '../../services.js';
import { sessionPrincipal } from '../../sessions/session-registry.js';
import { remoteApprovalGate } from '../mcp/mcp-approvals-remote.js';
import { createMcpDoor } from '../mcp/mcp-door.js';
import { type AppDoor, createAppDoor } from './app-door.js';
import { remoteAssertions, remoteRedeem } from './app-redeem.js';
import { routeAppHosts } from './host-routing.js';

/** web_public_url, or the listener's own address as http(s)://localhost:<port> (browsers resolve *.localhost to loopback). */
export function webPublicUrl(config: Pick<Config, 'web_public_url'>, scheme: 'http' | 'https', port: number): string {
  return config.web_public_url ?? `${scheme}://localhost:${port}`;
}

export function startAppDoor(
  services: Services,
  web: Server,
  opts: {
    config: Pick<Config, 'web_public_url' | 'apps_domain'>;
    clock: Clock;
    logger: Logger;
    metrics?: Metrics;
    /** A proxy-only instance's way to the auth tier: launches are redeemed there. */
    authPool?: Pick<AuthPool, 'fetch'>;
  },
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
    ...(opts.authPool
      ? {
          redeem: remoteRedeem(opts.authPool, (revision) => services.state.cache.waitFor(revision)),
          assertionFor: remoteAssertions(opts.authPool, opts.clock),
        }
      : {}),
  });
  const mcp = createMcpDoor({
    apps: services.apps,
    access: services.access,
    credentials: { pipeline: services.pipeline, tokens: services.tokens, tickets: services.tickets },
    mcpUpstream: (principal, app, proof) =>
      services.upstreamCredentials.mcp(
        {
          session_id: newId('session', opts.clock()),
          kind: 'app',
          ...sessionPrincipal(principal),
          resource: { kind: 'app', id: app.id, name: app.name },
          login: '',
        },
        { proof },
      ),
    approvals: opts.authPool ? remoteApprovalGate(opts.authPool) : services.mcpApprovals,
    ...(opts.authPool ? { assertionFor: remoteAssertions(opts.authPool, opts.clock) } : {}),
    sessions: services.sessionRegistry,
    audit: services.audit,
    clock: opts.clock,
    logger: opts.logger,
    ...(opts.metrics ? { metrics: opts.metrics } : {}),
  });
  routeAppHosts(web, door, mcp);
  return { ...door, close: () => Promise.all([door.close(), mcp.close()]).then(() => undefined) };
}
