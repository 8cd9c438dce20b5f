// What the doors are handed beyond the domain services: the CAs and certificates they trust, the
// principal's proof a door forwards, the upstream credentials (issued here, or asked of the auth tier
// on a proxy of a cluster), the proxies' identities on the auth tier, and where users reach the doors.
import { resolve } from 'node:path';
import type { AuditLog } from './audit/audit-log.js';
import type { PrincipalPipeline } from './auth/principal-pipeline.js';
import type { TokenService } from './auth/token-service.js';
import type { StateStore } from './backend/state.js';
import { createProxyCredentials, ensureSigningKey } from './cluster/proxy-credentials.js';
import {
  type CallerContext,
  createProxyIdentities,
  ownedBy,
  type ProxyIdentities,
} from './cluster/proxy-identities.js';
import type { SharedState } from './cluster/shared-state.js';
import type { Config } from './config/schema.js';
import type { KubeCa } from './kube/kube-ca.js';
import { issueServerCertificate } from './kube/kube-ca.js';
import { ensureKubeCa } from './kube/kube-ca-store.js';
import type { Clock } from './lib/clock.js';
import { GatehouseError } from './lib/errors.js';
import type { SecretBox } from './lib/secret-box.js';
import type { AuthPool } from './net/auth-client.js';
import type { ResourceService } from './resources/resource-service.js';
import { createPrincipalProofs, type PrincipalProofs } from './sessions/principal-proof.js';
import { remoteUpstreamCredentials } from './sessions/remote-upstream-credentials.js';
import type { SessionGuard } from './sessions/session-guard.js';
import type { SessionRegistry } from './sessions/session-registry.js';
import {
  type CredentialCaller,
  type CredentialIssuer,
  cachingPerResource,
  createCredentialIssuer,
  localUpstreamCredentials,
  type UpstreamCredentials,
} from './sessions/upstream-credentials.js';
import { createLoginCertificates, type LoginCertificates } from './ssh-keys/login-certificates.js';
import type { SshKeyService } from './ssh-keys/ssh-key-service.js';
import type { UserCa } from './ssh-keys/user-ca.js';
import { CLIENT_CA, ensureUserCa, publicCa } from './ssh-keys/user-ca-store.js';

type Endpoint = { host: string; port: number };

export interface DoorServices {
  /** Signs short-lived user certificates for upstream logins (targets trust GET /v1/auth/ssh-ca). */
  userCa: UserCa;
  /** SSH certificates for logins (gatehouse login), signed by the client CA; the SSH proxy accepts them. */
  loginCertificates: LoginCertificates;
  /** A key login's principal (the SSH door) and a door's forwarded proof (the credential issuer). */
  principalProofs: PrincipalProofs;
  /** The Kubernetes proxy's CA, the cluster's one (kube-ca-store.ts): its certificate. */
  kubeCa: Pick<KubeCa, 'certPem'>;
  /** The Kubernetes door's listener certificate for these names, signed by that CA (on auth). */
  kubeListenerCertificate(names: string[]): Promise<{ cert: string; key: string }>;
  /**
   * The doors' upstream credentials, one session at a time (sessions/upstream-credentials.ts): the
   * issuer here, or the auth tier's on a proxy of a cluster.
   */
  upstreamCredentials: UpstreamCredentials;
  /** The issuer itself, on instances that hold the secrets (the internal API answers proxies with it). */
  credentialIssuer?: CredentialIssuer;
  /** Where users reach the SSH proxy (ssh_public_addr, else where it listens); undefined without one. */
  sshEndpoint(): Endpoint | undefined;
  publishSshEndpoint(endpoint: Endpoint): void;
  /** Where users reach the PostgreSQL proxy; undefined without one. */
  dbEndpoint(): Endpoint | undefined;
  publishDbEndpoint(endpoint: Endpoint): void;
  /** Join tokens and the proxies' identities: on instances that run the auth tier only. */
  proxyIdentities?: ProxyIdentities;
}

export async function createDoorServices(deps: {
  config: Config;
  state: StateStore;
  audit: AuditLog;
  clock: Clock;
  box: SecretBox;
  tokens: TokenService;
  pipeline: PrincipalPipeline;
  sshKeys: SshKeyService;
  resources: ResourceService;
  sessionRegistry: SessionRegistry;
  sessionGuard: SessionGuard;
  shared: SharedState;
  /** A proxy of a cluster: it asks the auth tier, and knows the CAs' public halves only. */
  authTier?: Pick<AuthPool, 'fetch'> | undefined;
}): Promise<DoorServices> {
  const { config, state, audit, clock, box, tokens, sessionRegistry, shared } = deps;
  // The auth tier registers proxies and signs their credentials; a removed proxy's sessions end.
  const proxyIdentities = config.roles.includes('auth')
    ? createProxyIdentities({
        state,
        audit,
        clock,
        credentials: createProxyCredentials(await ensureSigningKey({ state, box, clock }), clock),
        endSessionsOf: async (identity: string, ctx: CallerContext) => {
          const held = sessionRegistry.list().filter((s) => s.status === 'active' && ownedBy(identity, s.instance));
          const reason = `proxy ${identity} removed`;
          for (const s of held) {
            await sessionRegistry.terminate(s.id, reason);
            await audit.record({
              type: 'session.terminated',
              ...ctx,
              target: s.resource,
              session_id: s.id,
              data: { principal: s.principal, login: s.login, reason },
            });
          }
          await sessionRegistry.confirmEnded(
            held.map((s) => s.id),
            reason,
          );
          return held.length;
        },
      })
    : undefined;
  // The secrets a door needs, one session at a time (issue 29). A proxy of a cluster holds none: it
  // knows the CAs' public halves (certificate logins are verified here), and auth signs and unseals.
  const remote = deps.authTier;
  const dataDir = resolve(config.data_dir);
  const userCa = remote ? await publicCa(state) : await ensureUserCa({ state, box, clock });
  const clientCa = remote ? await publicCa(state, CLIENT_CA) : await ensureUserCa({ state, box, clock }, CLIENT_CA);
  const kubeCa = remote
    ? await ensureKubeCa({ state, clock, dataDir, mayCreate: false })
    : ((await ensureKubeCa({ state, box, clock, dataDir, mayCreate: true })) as KubeCa);
  const kubeListenerCertificate = remote
    ? (names: string[]) =>
        askAuth<{ cert: string; key: string }>(remote, '/internal/v1/kube/listener-certificate', { names })
    : async (names: string[]) => issueServerCertificate(kubeCa as KubeCa, names);
  const loginCertificates = createLoginCertificates({ ca: clientCa, tokens, audit, clock });
  // What a door forwards of what its principal presented, checked where the credentials are issued.
  const principalProofs = createPrincipalProofs({
    state,
    clock,
    tokens,
    pipeline: deps.pipeline,
    findKeyOwner: (blob) => deps.sshKeys.findPrincipalByKey(blob),
    certificates: loginCertificates,
  });
  const credentialIssuer = remote
    ? undefined
    : createCredentialIssuer({
        state,
        audit,
        clock,
        guard: deps.sessionGuard,
        proofs: principalProofs,
        resources: deps.resources,
        userCa,
        owns: (caller: CredentialCaller, instance: string | undefined) =>
          caller.identity !== undefined
            ? ownedBy(caller.identity, instance)
            : caller.instance !== undefined && caller.instance === instance,
      });
  const upstreamCredentials = remote
    ? remoteUpstreamCredentials(remote)
    : localUpstreamCredentials(credentialIssuer as CredentialIssuer, () => shared.bus.instanceId);
  // Where users reach the doors: published once their listeners are up (or from *_public_addr).
  const sshEndpoint = published<Endpoint>();
  const dbEndpoint = published<Endpoint>();
  return {
    userCa,
    loginCertificates,
    principalProofs,
    kubeCa,
    kubeListenerCertificate,
    upstreamCredentials: cachingPerResource(upstreamCredentials, {
      clock,
      revisionOf: (id) => state.get(`resources/${id}`)?.revision,
    }),
    ...(credentialIssuer ? { credentialIssuer } : {}),
    sshEndpoint: sshEndpoint.get,
    publishSshEndpoint: sshEndpoint.publish,
    dbEndpoint: dbEndpoint.get,
    publishDbEndpoint: dbEndpoint.publish,
    ...(proxyIdentities ? { proxyIdentities } : {}),
  };
}

/** A value set once something is up; undefined until then. */
function published<T>() {
  let value: T | undefined;
  return {
    get: (): T | undefined => value,
    publish: (next: T): void => {
      value = next;
    },
  };
}

/** A call to the auth tier's internal API that answers JSON (a proxy's own credential rides on it). */
async function askAuth<T>(pool: Pick<AuthPool, 'fetch'>, path: string, body: unknown): Promise<T> {
  const res = await pool.fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const answer = (await res.json().catch(() => ({}))) as T & { detail?: string };
  if (!res.ok) throw new GatehouseError('unavailable', `the auth tier answered ${res.status}: ${answer.detail ?? ''}`);
  return answer;
}
