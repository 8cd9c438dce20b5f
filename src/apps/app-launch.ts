// How a signed-in person gets into an app with no further typing. The console (already holding the
// person's login in its HttpOnly cookie) asks `launch`: the app must be one the person may reach (the
// one access checker), and Gatehouse issues a one-time code for it, valid for a minute, bound to the
// app, to a token of the person's own login family (issueForSelf: revoking the login revokes it) and
// to a path on the app's host. The browser carries the code to the app host's callback, where the
// app door redeems it (once) for an app-session cookie that only that host receives. The code is in
// a URL (history, logs), so it is worth nothing after that one use; the cookie's secret never is.
// Codes and cookie sessions are stored as SHA-256 hashes of their secrets, like tokens.
import { timingSafeEqual } from 'node:crypto';
import type { AccessChecker } from '../access/access-checker.js';
import type { Principal, PrincipalName, RequestContext } from '../auth/principal.js';
import type { TokenService } from '../auth/token-service.js';
import type { StateStore } from '../backend/state.js';
import { BackendError } from '../backend/types.js';
import type { Clock } from '../lib/clock.js';
import { GatehouseError, invalidField, notFound } from '../lib/errors.js';
import { randomBytes } from '../lib/random.js';
import { hashSecret, tokenId } from '../lib/secrets.js';
import type { ResourceRecord } from '../resources/resource-service.js';
import type { AppAddressing } from './app-addressing.js';

/** The path of every app host's callback: taken from the app's own namespace (documented). */
export const CALLBACK_PATH = '/.gatehouse/callback';
export const CODE_TTL_MS = 60_000;

export const appKeys = {
  code: (hash: string) => `apps/codes/${hash}`,
  session: (hash: string) => `apps/sessions/${hash}`,
};

/** A one-time launch code, by the hash of the code. */
export interface AppCodeRecord {
  app_id: string;
  principal: PrincipalName;
  /** The token of the person's login the app session stands on (never handed to anyone). */
  token_id: string;
  token_expires_at: number;
  /** Where on the app's host the person goes after the callback: a path, never another origin. */
  path: string;
  /**
   * The hash of the state the app host gave the browser (in a cookie only its callback receives):
   * a code is redeemed only by the browser that started the launch, so nobody can slip a code of
   * their own into someone else's browser and have them use the app as that someone (login CSRF).
   */
  state_hash: string;
  expires_at: number;
}

/** An app session as its cookie finds it, by the hash of the cookie's secret. */
export interface AppCookieRecord {
  app_id: string;
  session_id: string;
  principal: PrincipalName;
  token_id: string;
  expires_at: number;
}

/**
 * A path on the app's host to land on after the callback: one starting with a single `/`, so it can
 * never name another origin (`//evil.example`, `/\evil.example`), in printable ASCII.
 */
export function landingPath(path: string | undefined): string {
  if (path === undefined || path === '') return '/';
  // Printable ASCII only (what a request line carries: anything else arrives percent-encoded).
  if (!/^\/[!-~]*$/.test(path) || path.startsWith('//') || path.includes('\\'))
    throw invalidField('/body/path', 'must be a path on the app host, starting with a single /');
  return path;
}

const SECRET = /^[A-Za-z0-9_-]{43}$/;
/** A launch state: random, URL-safe (the app host makes it; the API checks its shape). */
export const STATE = /^[A-Za-z0-9_-]{22,64}$/;

export type AppLaunches = ReturnType<typeof createAppLaunches>;

export function createAppLaunches(deps: {
  state: StateStore;
  clock: Clock;
  access: Pick<AccessChecker, 'authorize'>;
  tokens: Pick<TokenService, 'issueForSelf'>;
  addressing: Pick<AppAddressing, 'publicUrlOf'>;
  /** How long an app session may last (the access token lifetime). */
  sessionTtlMs: number;
}) {
  const { clock } = deps;

  return {
    /** A one-time URL into the app for the caller, if its roles select the app (404 otherwise). */
    async launch(
      ctx: RequestContext & { principal: Principal },
      appName: string,
      launch: { path?: string; state: string },
    ): Promise<{ url: string; app: ResourceRecord; expires_at: string }> {
      const landing = landingPath(launch.path);
      const decision = deps.access.authorize<ResourceRecord>(ctx.principal, { kind: 'app', name: appName }, []);
      if (!decision.allowed) throw notFound('app', appName);
      const app = decision.resource;
      const publicUrl = deps.addressing.publicUrlOf(app);
      if (!publicUrl)
        throw new GatehouseError(
          'conflict',
          `app ${app.name} has no public URL: its name is not a DNS label and it has no app.public_addr`,
        );
      const { accessToken, expiresAt } = await deps.tokens.issueForSelf(ctx.principal, deps.sessionTtlMs);
      const code = randomBytes(32).toString('base64url');
      const now = clock();
      const record: AppCodeRecord = {
        app_id: app.id,
        principal: { kind: ctx.principal.kind, id: ctx.principal.id, name: ctx.principal.name },
        token_id: tokenId(accessToken),
        token_expires_at: expiresAt,
        path: landing,
        state_hash: hashSecret(launch.state),
        expires_at: now + CODE_TTL_MS,
      };
      await deps.state.insert(appKeys.code(hashSecret(code)), record, { expiresAt: record.expires_at });
      const url = new URL(CALLBACK_PATH, publicUrl);
      url.searchParams.set('code', code);
      return { url: url.href, app, expires_at: new Date(record.expires_at).toISOString() };
    },

    /**
     * The code's record if it is for this app, still valid, and this browser started its launch
     * (`state`, from the browser's state cookie); nothing is written.
     */
    peek(
      code: string,
      appId: string,
      state: string | undefined,
    ): { record: AppCodeRecord; revision: number } | undefined {
      if (!SECRET.test(code) || state === undefined || !STATE.test(state)) return undefined;
      const item = deps.state.get<AppCodeRecord>(appKeys.code(hashSecret(code)));
      if (!item || item.value.app_id !== appId || item.value.expires_at <= clock()) return undefined;
      if (!timingSafeEqual(Buffer.from(item.value.state_hash), Buffer.from(hashSecret(state)))) return undefined;
      return { record: item.value, revision: item.revision };
    },

    /**
     * Spends the code (it must still be at the revision peeked: two tabs racing get one winner) and
     * stores the cookie session of `secret` (the door's, 256 random bits) in the same write. False if
     * the code was used meanwhile.
     */
    async redeem(
      code: string,
      peeked: { record: AppCodeRecord; revision: number },
      session: { id: string; expiresAt: number },
      secretHash: string,
    ): Promise<boolean> {
      const codeKey = appKeys.code(hashSecret(code));
      const { record } = peeked;
      const cookie: AppCookieRecord = {
        app_id: record.app_id,
        session_id: session.id,
        principal: record.principal,
        token_id: record.token_id,
        expires_at: session.expiresAt,
      };
      try {
        await deps.state.write(
          [{ key: codeKey, revision: peeked.revision }],
          [
            { type: 'delete', key: codeKey },
            {
              type: 'put',
              key: appKeys.session(secretHash),
              value: JSON.stringify(cookie),
              expiresAt: cookie.expires_at,
            },
          ],
        );
      } catch (error) {
        if (error instanceof BackendError) return false; // spent meanwhile
        throw error;
      }
      return true;
    },

    /** The cookie session of a secret, for this app, while it lasts. */
    cookieSession(secret: string, appId: string): AppCookieRecord | undefined {
      if (!SECRET.test(secret)) return undefined;
      const record = deps.state.get<AppCookieRecord>(appKeys.session(hashSecret(secret)))?.value;
      return record && record.app_id === appId && record.expires_at > clock() ? record : undefined;
    },

    /** Ends a cookie session (its live session ended): the cookie stops working on every instance. */
    async forget(secretHash: string): Promise<void> {
      await deps.state.remove(appKeys.session(secretHash)).catch(() => {});
    },
  };
}
