// The HTTP doors on the web listener, for the composition root: the app door and the MCP gateway (an
// app with protocol "mcp"), with where apps are served (web_public_url, apps_domain), in front of the
// console and API routes. The only file of proxy/ that holds two doors: each door's own folder imports
// proxy/common and nothing of another door (scripts/check-layers.mjs).
import type { Server } from 'node:http';
import type { Logger } from 'pino';
import type { Config } from '../config/schema.js';
import type { Clock } from '../lib/clock.js';
import { newId } from '../lib/ids.js';
import type { AuthPool } from '../net/auth-client.js';
import type { Metrics } from '../observability/metrics.js';
import type { Services } from '../services.js';
import { sessionPrincipal } from '../sessions/session-registry.js';
import { type AppDoor, createAppDoor } from './app/app-door.js';
import { remoteRedeem } from './app/app-redeem.js';
import { routeAppHosts } from './app/host-routing.js';
import { remoteAssertions } from './common/identity-assertions.js';
import { remoteApprovalGate } from './mcp/mcp-approvals-remote.js';
import { createMcpDoor } from './mcp/mcp-door.js';

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
