// The auth tier's internal routes for the app door of proxy-only instances: POST
// /internal/v1/apps/redeem spends a launch code and stores the app's cookie session, checked end to
// end (apps/app-proxy-redeem.ts) — a proxy may not write either record itself; POST
// /internal/v1/apps/assertion signs the identity JWT for a standing token that may use the app — a
// proxy holds no signing key. Only a joined proxy's credential (or the deprecated shared token
// where allowed) gets in, as for every internal call.
// Kept apart from internal.routes.ts (the state and audit calls). Not part of /v1 nor OpenAPI.
import type { FastifyInstance } from 'fastify';
import {
  APPS_ASSERTION_PATH,
  APPS_REDEEM_PATH,
  type ProxyRedeemRequest,
  type ProxyRedeemResult,
} from '../../apps/app-proxy-redeem.js';
import { type PeerCheck, requirePeer } from '../../cluster/cluster-peers.js';
import { forbidden, GatehouseError } from '../../lib/errors.js';

const FIELDS = ['code', 'state', 'app_id', 'session_id', 'secret_hash'] as const;

export function appsInternalRoutes(
  app: FastifyInstance,
  deps: {
    peers: PeerCheck;
    redeem: (req: ProxyRedeemRequest, instance: string | undefined) => Promise<ProxyRedeemResult>;
    assertion: (req: { app_id: string; token_id: string }) => Promise<{ jwt: string } | { refused: string }>;
  },
): void {
  const peerOf = (headers: Parameters<PeerCheck>[0]) => requirePeer(deps.peers, headers);
  app.post<{ Body: Record<string, unknown> }>(APPS_ASSERTION_PATH, async (request) => {
    await peerOf(request.headers);
    const { app_id, token_id } = request.body ?? {};
    if (typeof app_id !== 'string' || typeof token_id !== 'string' || app_id.length > 128 || token_id.length > 128)
      throw new GatehouseError('invalid_request', 'app_id and token_id must be strings');
    const result = await deps.assertion({ app_id, token_id });
    if ('refused' in result) throw forbidden(`no assertion: ${result.refused}`);
    return result;
  });
  app.post<{ Body: Record<string, unknown> }>(APPS_REDEEM_PATH, async (request) => {
    const peer = await peerOf(request.headers);
    const body = request.body ?? {};
    for (const field of FIELDS)
      if (typeof body[field] !== 'string' || (body[field] as string).length > 256)
        throw new GatehouseError('invalid_request', `${field} must be a string`);
    if (typeof body.expires_at !== 'number') throw new GatehouseError('invalid_request', 'expires_at must be a number');
    const result = await deps.redeem(body as unknown as ProxyRedeemRequest, peer.instance);
    if (typeof result === 'object') throw forbidden(`a proxy may not redeem this launch: ${result.refused}`);
    return { redeemed: result };
  });
}
