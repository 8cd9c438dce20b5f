// The MCP gateway's admission: the RFC 9728 metadata of a server (unauthenticated), and the checks
// before any message is read — a Gatehouse bearer token (else 401 naming the metadata), the one access
// checker (the server must be selected by the principal's roles), and the token's app session.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AccessChecker } from '../../access/access-checker.js';
import type { Apps } from '../../apps/apps.js';
import type { Principal } from '../../auth/principal.js';
import type { McpApprovals } from '../../mcp/mcp-approvals.js';
import type { ResourceRecord } from '../../resources/resource-service.js';
import { mcpUrlOf } from '../../resources/resource-service.js';
import type { PrincipalProof } from '../../sessions/principal-proof.js';
import type { SessionRegistry } from '../../sessions/session-registry.js';
import { authenticateDoorCredential, type DoorCredentialDeps } from '../common/door-credential.js';
import type { DoorKitDeps, DoorSession } from '../common/door-session.js';
import { answer } from '../common/http-answers.js';
import { GATEHOUSE_BEARER } from '../common/http-headers.js';
import type { AppSessions } from '../common/http-sessions.js';
import type { AssertionFor } from '../common/identity-assertions.js';

/** An admitted caller: who, their session, and what they presented (forwarded with the credential ask). */
export type Admitted = { principal: Principal; session: DoorSession; proof: PrincipalProof };
export interface McpDoorDeps extends DoorKitDeps {
  apps: Pick<Apps, 'addressing' | 'assertions'>;
  access: Pick<AccessChecker, 'authorize' | 'mcpName' | 'mcpCall'>;
  credentials: DoorCredentialDeps;
  /** The MCP server's credential headers, issued for this principal (sessions/upstream-credentials.ts). */
  /** `proof`: the bearer token as presented, forwarded with the ask (sessions/principal-proof.ts). */
  mcpUpstream(principal: Principal, app: ResourceRecord, proof: PrincipalProof): Promise<Record<string, string>>;
  sessions: SessionRegistry;
  /** Signs the identity assertion on a proxy-only instance (the auth tier signs: common/identity-assertions.ts). */
  assertionFor?: AssertionFor;
  /** Local (mcp/mcp-approvals.ts), or the auth tier's on a proxy-only instance (mcp-approvals-remote.ts). */
  approvals?: Pick<McpApprovals, 'gate'>;
}

const MAX_BODY = 4 * 1024 * 1024;
export const METADATA = '/.well-known/oauth-protected-resource';

export const remoteOf = (req: IncomingMessage) => req.socket.remoteAddress ?? '';

export function sendJson(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers });
  res.end(body);
}

export async function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

export function createMcpAdmission(deps: McpDoorDeps, sessions: Pick<AppSessions, 'bearerSession'>) {
  const { apps, access, clock } = deps;
  const endpointOf = (app: ResourceRecord) => mcpUrlOf(apps.addressing.publicUrlOf(app) as string, app);
  const metadataUrlOf = (app: ResourceRecord) => {
    const endpoint = new URL(endpointOf(app));
    return new URL(`${METADATA}${endpoint.pathname === '/' ? '' : endpoint.pathname}`, endpoint).href;
  };

  /** RFC 9728: which resource this is and that it takes bearer tokens in the Authorization header. */
  function metadata(res: ServerResponse, app: ResourceRecord) {
    const issuer = apps.addressing.consoleUrl();
    sendJson(
      res,
      200,
      JSON.stringify({
        resource: endpointOf(app),
        ...(issuer ? { authorization_servers: [issuer] } : {}),
        bearer_methods_supported: ['header'],
        resource_name: app.name,
      }),
    );
  }

  async function admit(req: IncomingMessage, res: ServerResponse, app: ResourceRecord) {
    const bearer = GATEHOUSE_BEARER.exec(req.headers.authorization ?? '')?.[1];
    const challenge = (error?: string) => ({
      'www-authenticate': `Bearer realm="gatehouse"${error ? `, error="${error}"` : ''}, resource_metadata="${metadataUrlOf(app)}"`,
    });
    if (!bearer) {
      answer(req, res, 401, 'gatehouse: send Authorization: Bearer <Gatehouse access token>', challenge());
      return undefined;
    }
    const result = await authenticateDoorCredential(deps.credentials, {
      door: 'app',
      secret: bearer,
      remoteAddr: remoteOf(req),
      ticketFits: () => false,
    });
    if (!('principal' in result)) {
      answer(
        req,
        res,
        result.failure === 'throttled' ? 429 : 401,
        `gatehouse: ${result.detail}`,
        challenge('invalid_token'),
      );
      return undefined;
    }
    const principal = result.principal;
    const decision = access.authorize(principal, { kind: 'app', id: app.id }, []);
    const session = decision.allowed
      ? await sessions.bearerSession({
          principal,
          app,
          options: decision.options,
          remoteAddr: remoteOf(req),
          endsBy: principal.token?.expires_at ?? clock() + 3_600_000,
        })
      : undefined;
    if (!session || 'refused' in session) {
      answer(req, res, 403, session?.refused ?? `gatehouse: ${principal.name} may not use ${app.name}`);
      return undefined;
    }
    return { principal, session, proof: result.proof };
  }

  return { endpointOf, metadata, admit };
}
