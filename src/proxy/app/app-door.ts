// The app door: requests to an app's host on the web listener (host-routing.ts sends them here,
// before the console and API ever see them). Each request is checked in order:
//   callback      the one-time launch code becomes the app-session cookie (app host's own path)
//   credential    a `Bearer gha_…` token (programs, agents) or the app-session cookie (browsers)
//   no credential a browser goes to the console to sign in and launch; a program gets 401
//   access        the one access checker: the app must be selected by the principal's roles (else
//                 404, the answer for a host with no app: an app you may not see does not exist)
//   session       the app session it belongs to (the door kit's lifetime: guard, TTL, end)
//   forward       to the app's uri, with the identity assertion, without any Gatehouse secret
// and audited (app.request, batched like kube.request; refusals durable before the answer).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { AccessChecker } from '../../access/access-checker.js';
import { CALLBACK_PATH } from '../../apps/app-launch.js';
import { expandRewrite } from '../../apps/app-rewrite.js';
import type { Apps } from '../../apps/apps.js';
import type { EventInput } from '../../audit/audit-log.js';
import { actorOfPrincipal, type Principal } from '../../auth/principal.js';
import type { TokenService } from '../../auth/token-service.js';
import { type ErrorCode, GatehouseError } from '../../lib/errors.js';
import { randomBytes } from '../../lib/random.js';
import { hashSecret } from '../../lib/secrets.js';
import type { SessionOptions } from '../../rbac/policy.js';
import type { ResourceRecord } from '../../resources/resource-service.js';
import type { SessionRegistry } from '../../sessions/session-registry.js';
import { createAnsweredRequests } from '../common/answered-requests.js';
import { authenticateDoorCredential, type DoorCredentialDeps } from '../common/door-credential.js';
import { type DoorKitDeps, type DoorSession, recordDoorRejection } from '../common/door-session.js';
import {
  APP_COOKIE,
  answer,
  cookieName,
  readCookie,
  redirect,
  STATE_COOKIE,
  sessionCookie,
  stateCookie,
  wantsPage,
} from '../common/http-answers.js';
import { GATEHOUSE_BEARER, upstreamHeaders } from '../common/http-headers.js';
import { type AppSessions, createAppSessions, type How } from '../common/http-sessions.js';
import { type AssertionFor, localAssertions } from '../common/identity-assertions.js';
import { localRedeem, type Redeem } from './app-redeem.js';
import { createAppUpstreams, type Forwarded } from './app-upstream.js';

export interface AppDoorDeps extends DoorKitDeps {
  apps: Apps;
  access: Pick<AccessChecker, 'authorize' | 'appRequest'>;
  tokens: Pick<TokenService, 'resolveById'> & DoorCredentialDeps['tokens'];
  credentials: DoorCredentialDeps;
  sessions: SessionRegistry;
  /** Spends a launch code for the cookie session (localRedeem, or remoteRedeem on a proxy-only instance). */
  redeem?: Redeem;
  /** Signs the identity assertion (localAssertions, or remoteAssertions on a proxy-only instance). */
  assertionFor?: AssertionFor;
}

/** Who a request is from, once its credential held. */
interface Caller {
  principal: Principal;
  how: How;
  /** A cookie session's id (a bearer token's session is found or opened after the access check). */
  sessionId?: string;
}

type Refusal = {
  status: number;
  message: string;
  /** The problem's code for a program, when the status alone does not say it (http-answers.ts). */
  code?: ErrorCode;
  headers?: Record<string, string | string[]>;
  /** What refused it, for the audit event (app_rules: the request, not the app). */
  deniedBy?: string;
};
type Admitted = { caller: Caller; options: SessionOptions; session: DoorSession | undefined; publicUrl: string };

/** The path with each query value left out: which parameters, never what they carried. */
export function auditedPath(url: string): string {
  const q = url.indexOf('?');
  const path =
    q === -1
      ? url
      : `${url.slice(0, q)}?${url
          .slice(q + 1)
          .split('&')
          .map((p) => p.split('=')[0])
          .join('&')}`;
  return path.slice(0, 512);
}

const STATUS_TEXT: Record<number, string> = { 401: 'Unauthorized', 404: 'Not Found', 429: 'Too Many Requests' };

/** The answer for a host that serves nothing to this caller: no app there, or none they may see. */
const notServed = (req: IncomingMessage): string =>
  `No app is served at ${String(req.headers.host ?? '').slice(0, 256)}.`;

export type AppDoor = ReturnType<typeof createAppDoor>;

export function createAppDoor(deps: AppDoorDeps) {
  const { apps, access, clock, logger } = deps;
  const sessions: AppSessions = createAppSessions(deps);
  const upstreams = createAppUpstreams();
  const answered = createAnsweredRequests(deps.audit, (err) => logger.error({ err }, 'app: cannot record requests'));
  const redeem = deps.redeem ?? localRedeem(apps);
  const assertionFor = deps.assertionFor ?? localAssertions(apps);
  const secure = () => apps.addressing.origin?.scheme === 'https';
  const remoteOf = (req: IncomingMessage) => req.socket.remoteAddress ?? '';

  /** The caller of a request: its bearer token or its app-session cookie; undefined when it has neither. */
  async function identify(req: IncomingMessage, app: ResourceRecord): Promise<Caller | Refusal | undefined> {
    const bearer = GATEHOUSE_BEARER.exec(req.headers.authorization ?? '')?.[1];
    if (bearer) {
      const result = await authenticateDoorCredential(deps.credentials, {
        door: 'app',
        secret: bearer,
        remoteAddr: remoteOf(req),
        ticketFits: () => false,
      });
      if ('principal' in result) return { principal: result.principal, how: 'bearer' };
      if (result.failure === 'throttled') return { status: 429, message: `gatehouse: ${result.detail}` };
      return {
        status: 401,
        code: 'invalid_token',
        message: `gatehouse: ${result.detail}`,
        headers: { 'www-authenticate': 'Bearer realm="gatehouse", error="invalid_token"' },
      };
    }
    const secret = readCookie(req.headers.cookie, cookieName(APP_COOKIE, secure()));
    const record = secret ? apps.launches.cookieSession(secret, app.id) : undefined;
    if (!record || deps.sessions.get(record.session_id)?.status !== 'active') return undefined;
    try {
      return {
        principal: deps.tokens.resolveById(record.token_id).principal,
        how: 'cookie',
        sessionId: record.session_id,
      };
    } catch (error) {
      if (error instanceof GatehouseError) return undefined; // the login is over: launch again
      throw error;
    }
  }

  /** No credential: a person's browser goes to the console (and comes back), a program is told. */
  function signInFirst(req: IncomingMessage, res: ServerResponse, app: ResourceRecord): void {
    const console = apps.addressing.consoleUrl();
    if (!wantsPage(req) || !console) {
      answer(req, res, 401, `gatehouse: sign in: send Authorization: Bearer <Gatehouse access token>`, {
        'www-authenticate': 'Bearer realm="gatehouse"',
      });
      return;
    }
    const state = randomBytes(24).toString('base64url');
    const launch = new URL(`/launch/${encodeURIComponent(app.name)}`, console);
    launch.searchParams.set('path', req.url ?? '/');
    launch.searchParams.set('state', state);
    redirect(res, launch.href, [stateCookie(state, 600, secure()), sessionCookie('', 0, secure())]);
  }

  /** Access through the one checker, then the session the request belongs to. */
  async function admit(req: IncomingMessage, app: ResourceRecord, caller: Caller): Promise<Admitted | Refusal> {
    const publicUrl = apps.addressing.publicUrlOf(app) as string;
    const decision = access.authorize(caller.principal, { kind: 'app', id: app.id }, []);
    if (!decision.allowed) {
      await recordDoorRejection(deps, {
        door: 'app',
        denial: 'access',
        principal: caller.principal,
        resource: { kind: 'app', id: app.id, name: app.name },
        remoteAddr: remoteOf(req),
        data: { app: app.name, how: caller.how },
        reason: 'access_denied',
        detail: decision.reason,
      });
      // As for an unknown host: an app the principal may not see does not exist for them.
      return { status: 404, message: notServed(req) };
    }
    // Inside the app: the roles' app_rules (every request, the upgrade of a WebSocket too).
    const inside = access.appRequest(caller.principal, decision.resource, req.method ?? 'GET', req.url ?? '/');
    if (!inside.allowed)
      return {
        status: 403,
        message: `gatehouse: ${caller.principal.name} may not do this in ${app.name}: ${inside.reason} (app_rules)`,
        deniedBy: 'app_rules',
      };
    const opened =
      caller.how === 'cookie'
        ? sessions.held(caller.sessionId as string)
        : await sessions.bearerSession({
            principal: caller.principal,
            app,
            options: decision.options,
            remoteAddr: remoteOf(req),
            endsBy: caller.principal.token?.expires_at ?? clock() + 3_600_000,
          });
    if (opened && 'refused' in opened) return { status: 403, message: opened.refused };
    const session = opened;
    if (caller.how === 'bearer' && !session)
      return { status: 403, message: `gatehouse: ${caller.principal.name} may not use ${app.name} now` };
    return { caller, options: decision.options, session, publicUrl };
  }

  function requestEvent(
    req: IncomingMessage,
    app: ResourceRecord,
    principal: Principal | undefined,
    sessionId: string | undefined,
    data: Record<string, unknown>,
    success: boolean,
  ): EventInput {
    return {
      type: 'app.request',
      actor: principal ? actorOfPrincipal(principal) : { kind: 'anonymous' },
      target: { kind: 'app', id: app.id, name: app.name },
      ...(sessionId ? { session_id: sessionId } : {}),
      success,
      remote_addr: remoteOf(req),
      data: { method: req.method, path: auditedPath(req.url ?? '/'), ...data },
    };
  }

  /** A forwarded request's app.request event; an app it could not reach makes it a failure. */
  function answeredEvent(
    req: IncomingMessage,
    app: ResourceRecord,
    caller: Caller,
    sessionId: string | undefined,
    done: Forwarded,
    startedAt: number,
  ): EventInput {
    const data = {
      status: done.status,
      bytes_in: done.bytesIn,
      bytes_out: done.bytesOut,
      duration_ms: clock() - startedAt,
      how: caller.how,
      ...(done.error ? { error: done.error } : {}),
    };
    return requestEvent(req, app, caller.principal, sessionId, data, done.error === undefined);
  }

  /** A refused request's app.request event, durable before the answer. */
  function recordRefusal(req: IncomingMessage, app: ResourceRecord, caller: Caller, refusal: Refusal): Promise<void> {
    const data = {
      status: refusal.status,
      how: caller.how,
      ...(refusal.deniedBy ? { denied_by: refusal.deniedBy } : {}),
    };
    return deps.audit.record(requestEvent(req, app, caller.principal, undefined, data, false)).then(() => {});
  }

  async function headersFor(req: IncomingMessage, app: ResourceRecord, admitted: Admitted) {
    const issuer = apps.addressing.consoleUrl() ?? '';
    const principal = admitted.caller.principal;
    const assertion = await assertionFor(principal, app, admitted.publicUrl, issuer);
    const rewrite = app.app?.rewrite?.headers.length
      ? expandRewrite(app.app.rewrite.headers, { principal, traits: apps.assertions.traitsOf(principal) })
      : undefined;
    for (const h of rewrite ?? [])
      if (h.refused)
        logger.warn(
          { app: app.name, header: h.name, principal: principal.name },
          'app: a rewritten header carried a control character: not sent',
        );
    return upstreamHeaders(req.headers, {
      ...(rewrite ? { rewrite } : {}),
      assertion,
      clientAddr: remoteOf(req),
      proto: secure() ? 'https' : 'http',
      publicHost: String(req.headers.host ?? ''),
      ...(app.app?.host_header === 'public' ? { host: String(req.headers.host ?? '') } : {}),
    });
  }

  /** The callback: a launch code (with this browser's state) becomes the app-session cookie. */
  async function callback(req: IncomingMessage, res: ServerResponse, app: ResourceRecord): Promise<void> {
    const code = new URL(req.url ?? '/', 'http://x').searchParams.get('code') ?? '';
    const state = readCookie(req.headers.cookie, STATE_COOKIE);
    const peeked = apps.launches.peek(code, app.id, state);
    const invalid = () =>
      answer(
        req,
        res,
        400,
        'This sign-in link is used, expired, or was opened in another browser. Open the app again.',
      );
    if (!peeked) return invalid();
    let principal: Principal;
    try {
      principal = deps.tokens.resolveById(peeked.record.token_id).principal;
    } catch (error) {
      if (error instanceof GatehouseError) return answer(req, res, 401, `gatehouse: ${error.detail}`, {}, error.code);
      throw error;
    }
    const caller: Caller = { principal, how: 'cookie' };
    const decision = access.authorize(principal, { kind: 'app', id: app.id }, []);
    if (!decision.allowed) return answer(req, res, 404, notServed(req));
    const secret = randomBytes(32).toString('base64url');
    const endsBy = peeked.record.token_expires_at;
    const session = await sessions.openCookieSession({
      principal: caller.principal,
      app,
      options: decision.options,
      remoteAddr: remoteOf(req),
      endsBy,
      onEnd: () => void apps.launches.forget(hashSecret(secret)),
    });
    if (!session) return answer(req, res, 403, `gatehouse: ${principal.name} may not use ${app.name} now`);
    const redeemed = await redeem({
      code,
      state: state as string,
      peeked,
      session: { id: session.id, expiresAt: endsBy },
      secretHash: hashSecret(secret),
    });
    if (!redeemed) {
      session.terminate('gatehouse: the launch code was used meanwhile');
      return invalid();
    }
    redirect(res, peeked.record.path, [
      sessionCookie(secret, (endsBy - clock()) / 1000, secure()),
      stateCookie('', 0, secure()),
    ]);
  }

  async function onRequest(req: IncomingMessage, res: ServerResponse, app: ResourceRecord): Promise<void> {
    const startedAt = clock();
    if ((req.url ?? '').split('?')[0] === CALLBACK_PATH) return callback(req, res, app);
    const caller = await identify(req, app);
    if (caller === undefined) return signInFirst(req, res, app);
    if ('status' in caller) return answer(req, res, caller.status, caller.message, caller.headers, caller.code);
    const admitted = await admit(req, app, caller);
    if ('status' in admitted) {
      await recordRefusal(req, app, caller, admitted);
      return answer(req, res, admitted.status, admitted.message);
    }
    const headers = await headersFor(req, app, admitted);
    const done = await upstreams.forward(app, req, res, headers, (message) => answer(req, res, 502, message));
    admitted.session?.touch(done.bytesIn, done.bytesOut);
    answered.add(answeredEvent(req, app, caller, admitted.session?.id ?? caller.sessionId, done, startedAt));
  }

  async function onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, app: ResourceRecord): Promise<void> {
    const startedAt = clock();
    const refuse = (status: number, message: string): void =>
      void socket.end(
        `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Forbidden'}\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(message) + 1}\r\nConnection: close\r\n\r\n${message}\n`,
      );
    const caller = await identify(req, app);
    if (caller === undefined) return refuse(401, 'gatehouse: sign in to the app first');
    if ('status' in caller) return refuse(caller.status, caller.message);
    const admitted = await admit(req, app, caller);
    if ('status' in admitted) {
      await recordRefusal(req, app, caller, admitted);
      return refuse(admitted.status, admitted.message);
    }
    const headers = await headersFor(req, app, admitted);
    const session = admitted.session;
    const done = await upstreams.upgrade(app, req, socket, head, headers, (close) => {
      // A tunnel lives as long as its session: terminated (guard, DELETE, TTL), it is cut.
      session?.signal.addEventListener('abort', close, { once: true });
    });
    session?.touch(done.bytesIn, done.bytesOut);
    answered.add(answeredEvent(req, app, caller, session?.id ?? caller.sessionId, done, startedAt));
  }

  return {
    /** Which app a Host names (undefined: not an app host; the console and API serve it). */
    match: (host: string | undefined) => apps.addressing.match(host),
    handle(req: IncomingMessage, res: ServerResponse, app: ResourceRecord | undefined): void {
      if (!app) {
        answer(req, res, 404, notServed(req));
        return;
      }
      onRequest(req, res, app).catch((err) => {
        logger.error({ err }, 'app: request failed');
        answer(req, res, 500, 'gatehouse: internal error');
      });
    },
    upgrade(req: IncomingMessage, socket: Duplex, head: Buffer, app: ResourceRecord | undefined): void {
      socket.on('error', () => socket.destroy());
      if (!app) {
        socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
        return;
      }
      onUpgrade(req, socket, head, app).catch((err) => {
        logger.error({ err }, 'app: upgrade failed');
        socket.destroy();
      });
    },
    async close(): Promise<void> {
      await sessions.close('gatehouse: the proxy is shutting down');
      await upstreams.close();
      await answered.flush();
    },
  };
}
