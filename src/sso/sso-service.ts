// A sign-in through an OpenID Provider, from the first redirect to a user with the roles its claims
// map to. The flow's secrets (state, nonce, PKCE verifier) live in the state store under the hash of
// the state, for ten minutes and one use, so the callback may land on any instance; the browser that
// started it holds a binding value in a cookie, so a callback carried into another browser (login
// CSRF) fails. Native clients (RFC 8252) get the result at a loopback redirect as a one-time code,
// bound to their own PKCE challenge. Every refusal is an auth.sso.failed event; tokens and codes are
// never in an event or a log.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { AuditLog } from '../audit/audit-log.js';
import { eventContext, type RequestContext } from '../auth/principal.js';
import { keys, type UserRecord } from '../auth/records.js';
import type { StateStore } from '../backend/state.js';
import type { Clock } from '../lib/clock.js';
import { randomBytes } from '../lib/random.js';
import { Name } from '../lib/shapes.js';
import { rolesFromClaims, traitsFromClaims, usernameFromClaims } from './claims.js';
import { CALLBACK_PATH, type ConnectorService } from './connector-service.js';
import { isLoopbackHost } from './issuer-policy.js';
import type { OidcClient } from './oidc-client.js';
import type { ConnectorRecord, FlowRecord, NativeCodeRecord } from './records.js';
import { ssoKeys } from './records.js';
import type { createProviderUsers } from './sso-users.js';

const FLOW_TTL_MS = 10 * 60_000;
const CODE_TTL_MS = 60_000;
const USERNAME = new RegExp(Name.pattern as string);

export type SsoFailure =
  | 'state_mismatch'
  | 'bad_token'
  | 'provider_error'
  | 'no_role'
  | 'disabled'
  | 'name_taken'
  | 'no_username'
  | 'user_suspended'
  | 'bad_code';

/** A refused sign-in: what the person is told (no secrets), and the reason recorded. */
export class SsoRefusal extends Error {
  constructor(
    readonly reason: SsoFailure,
    readonly detail: string,
    readonly status: 400 | 403 | 502 = 403,
  ) {
    super(detail);
    this.name = 'SsoRefusal';
  }
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('base64url');
const sameHash = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/** A native client's redirect: http on a 127.0.0.1 address, any port and path (RFC 8252 §7.3). */
export function checkNativeRedirect(raw: string): URL | undefined {
  try {
    const url = new URL(raw);
    const ok = url.protocol === 'http:' && url.hostname === '127.0.0.1' && isLoopbackHost(url.hostname);
    return ok && !url.username && !url.password && !url.hash ? url : undefined;
  } catch {
    return undefined;
  }
}

export interface SignedIn {
  user: UserRecord;
  connector: ConnectorRecord;
  /** No token of this login outlives this (epoch ms). */
  notAfter: number;
}

export type SsoService = ReturnType<typeof createSsoService>;

export function createSsoService(deps: {
  state: StateStore;
  audit: Pick<AuditLog, 'record'>;
  clock: Clock;
  connectors: Pick<ConnectorService, 'get' | 'list'>;
  oidc: OidcClient;
  users: ReturnType<typeof createProviderUsers>;
  publicUrl: () => string;
}) {
  const { state, audit, clock } = deps;
  const redirectUri = () => new URL(CALLBACK_PATH, deps.publicUrl()).href;

  const failed = async (ctx: RequestContext, reason: SsoFailure, connector?: string, extra = {}) =>
    audit.record({
      type: 'auth.sso.failed',
      actor: { kind: 'anonymous' },
      success: false,
      ...eventContext(ctx),
      data: { reason, ...(connector ? { connector } : {}), ...extra },
    });

  async function refuse(ctx: RequestContext, r: SsoRefusal, connector?: string, extra = {}): Promise<never> {
    await failed(ctx, r.reason, connector, extra);
    throw r;
  }

  function enabledConnector(name: string): ConnectorRecord {
    let c: ConnectorRecord;
    try {
      c = deps.connectors.get(name);
    } catch {
      throw new SsoRefusal('disabled', `there is no single sign-on connector named ${JSON.stringify(name)}`, 400);
    }
    if (!c.enabled) throw new SsoRefusal('disabled', `single sign-on through ${c.display_name} is turned off`);
    return c;
  }

  /** Maps the verified claims to a user, or refuses; an existing user losing every role keeps none. */
  async function userFor(ctx: RequestContext, c: ConnectorRecord, claims: Record<string, unknown>) {
    const subject = String(claims.sub ?? '');
    const name = usernameFromClaims(claims, c.username_claim, USERNAME);
    if (!name) {
      return refuse(
        ctx,
        new SsoRefusal('no_username', `the provider's ${c.username_claim} claim is missing or not a valid user name`),
        c.name,
        { subject },
      );
    }
    const roles = rolesFromClaims(c.claims_to_roles, claims).filter((r) => state.get(keys.roleName(r)));
    const traits = traitsFromClaims(c.traits_from_claims, claims);
    const outcome = await deps.users.upsert(
      { connector: c.name, name, roles, traits, mappedTraits: Object.keys(c.traits_from_claims) },
      eventContext(ctx),
    );
    if (roles.length === 0) {
      return refuse(
        ctx,
        new SsoRefusal('no_role', `${name} signed in at ${c.display_name}, but no role of Gatehouse is mapped to them`),
        c.name,
        { subject, user: name },
      );
    }
    if (!outcome.ok)
      return refuse(ctx, new SsoRefusal(outcome.reason, outcome.detail), c.name, { subject, user: name });
    await audit.record({
      type: 'auth.sso.login',
      actor: { kind: 'user', id: outcome.user.id, name: outcome.user.name },
      ...eventContext(ctx),
      data: { connector: c.name, subject, roles, created: outcome.created },
    });
    return outcome.user;
  }

  return {
    /** Enabled connectors, as the sign-in page shows them: name and display name only. */
    publicList: () =>
      deps.connectors
        .list()
        .filter((c) => c.enabled)
        .map((c) => ({ name: c.name, display_name: c.display_name })),

    /** Starts a sign-in: answers where to send the browser, and the value of its binding cookie. */
    async start(
      ctx: RequestContext,
      connectorName: string,
      native?: FlowRecord['native'],
    ): Promise<{ location: string; binding: string }> {
      let c: ConnectorRecord;
      try {
        c = enabledConnector(connectorName);
      } catch (e) {
        return refuse(ctx, e as SsoRefusal, connectorName);
      }
      let request: Awaited<ReturnType<OidcClient['authorizationRequest']>>;
      try {
        request = await deps.oidc.authorizationRequest(c, redirectUri());
      } catch (e) {
        const detail = `cannot reach ${c.display_name}'s OpenID configuration (${(e as Error).message})`;
        return refuse(ctx, new SsoRefusal('provider_error', detail, 502), c.name);
      }
      const binding = randomBytes(24).toString('base64url');
      const flow: FlowRecord = {
        connector_id: c.id,
        code_verifier: request.codeVerifier,
        nonce: request.nonce,
        binding: sha256(binding),
        ...(native ? { native } : {}),
        expires_at: clock() + FLOW_TTL_MS,
      };
      await state.insert(ssoKeys.flow(sha256(request.state)), flow, { expiresAt: flow.expires_at });
      return { location: request.url, binding };
    },

    /**
     * The provider's answer: the flow is found by its state and used once, the browser must hold its
     * binding, the connector must still be enabled, and the ID token must pass every check.
     */
    async finish(
      ctx: RequestContext,
      query: URLSearchParams,
      binding: string | undefined,
    ): Promise<SignedIn & { native?: FlowRecord['native'] }> {
      const stateParam = query.get('state') ?? '';
      const item = stateParam ? state.get<FlowRecord>(ssoKeys.flow(sha256(stateParam))) : undefined;
      const flow = item?.value;
      if (!item || !flow || flow.expires_at <= clock()) {
        return refuse(
          ctx,
          new SsoRefusal('state_mismatch', 'this sign-in is unknown or has expired: start again', 400),
        );
      }
      if (!binding || !sameHash(sha256(binding), flow.binding)) {
        return refuse(
          ctx,
          new SsoRefusal('state_mismatch', 'this sign-in was started in another browser: start again', 400),
        );
      }
      // One use: a replayed callback finds nothing.
      const used = await state.remove(item.key, { revision: item.revision }).then(
        () => false,
        () => true,
      );
      if (used) return refuse(ctx, new SsoRefusal('state_mismatch', 'this sign-in was already used: start again', 400));
      const c = deps.connectors.list().find((x) => x.id === flow.connector_id);
      if (!c?.enabled)
        return refuse(ctx, new SsoRefusal('disabled', 'this single sign-on connector is turned off'), c?.name);
      if (query.has('error')) {
        const detail = `${c.display_name} refused the sign-in (${(query.get('error') ?? '').slice(0, 64)})`;
        return refuse(ctx, new SsoRefusal('provider_error', detail), c.name);
      }
      const callbackUrl = new URL(`${CALLBACK_PATH}?${query.toString()}`, deps.publicUrl());
      let claims: Record<string, unknown>;
      try {
        claims = await deps.oidc.claimsOf(c, callbackUrl, {
          state: stateParam,
          nonce: flow.nonce,
          codeVerifier: flow.code_verifier,
        });
      } catch (e) {
        const why = (e as Error).message.slice(0, 200);
        return refuse(
          ctx,
          new SsoRefusal('bad_token', `${c.display_name}'s answer did not pass verification`),
          c.name,
          {
            error: why,
          },
        );
      }
      // Turned off while the provider answered: the connector's logins were just ended, this one too.
      if (!deps.connectors.list().find((x) => x.id === c.id)?.enabled)
        return refuse(ctx, new SsoRefusal('disabled', 'this single sign-on connector is turned off'), c.name);
      const user = await userFor(ctx, c, claims);
      return {
        user,
        connector: c,
        notAfter: clock() + c.max_session_ttl * 1000,
        ...(flow.native ? { native: flow.native } : {}),
      };
    },

    /** A native client's one-time code for a finished sign-in (exchanged at /webapi/sso/exchange). */
    async nativeCode(signedIn: SignedIn, codeChallenge: string): Promise<string> {
      const code = randomBytes(32).toString('base64url');
      const record: NativeCodeRecord = {
        user_id: signedIn.user.id,
        connector: signedIn.connector.name,
        code_challenge: codeChallenge,
        not_after: signedIn.notAfter,
        expires_at: clock() + CODE_TTL_MS,
      };
      await state.insert(ssoKeys.nativeCode(sha256(code)), record, { expiresAt: record.expires_at });
      return code;
    },

    /** Redeems a native client's code once, with the verifier of the challenge it started with. */
    async redeem(ctx: RequestContext, code: string, codeVerifier: string): Promise<NativeCodeRecord> {
      const item = state.get<NativeCodeRecord>(ssoKeys.nativeCode(sha256(code)));
      const bad = () => refuse(ctx, new SsoRefusal('bad_code', 'the code is unknown, used, expired or not yours', 400));
      if (!item || item.value.expires_at <= clock()) return bad();
      const used = await state.remove(item.key, { revision: item.revision }).then(
        () => false,
        () => true,
      );
      if (used) return bad();
      if (!sameHash(sha256(codeVerifier), item.value.code_challenge)) return bad();
      return item.value;
    },
  };
}
