// The web console on the web listener: the cookie exchange (/webapi/session) and the console's
// files. Registered inside the API's security plugin, so every route declares its permission.
import { fileURLToPath } from 'node:url';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Principal, RequestContext } from '../../auth/principal.js';
import type { TokenResponse, TokenService } from '../../auth/token-service.js';
import { GatehouseError } from '../../lib/errors.js';
import { API_RESOURCES, VERBS } from '../../rbac/types.js';
import {
  ACCESS_COOKIE,
  assertSameOrigin,
  clearedCookies,
  REFRESH_COOKIE,
  REFRESH_PATH,
  readCookies,
  sessionCookie,
} from './session-cookie.js';
import { CONSOLE_CSP, type ConsoleFiles, loadConsoleFiles, type StaticFile } from './static-files.js';

/** The console's client routes (web/src/app.tsx): each answers index.html, deeper paths too. */
export const CLIENT_ROUTES = [
  'login',
  'resources',
  'apps',
  'approvals',
  'users',
  'roles',
  'agents',
  'sessions',
  'audit',
  'profile',
  // An app host sends a person here to sign in and come back (docs/apps.md).
  'launch',
  'account',
  'connectors',
] as const;

export const DEFAULT_CONSOLE_DIR = fileURLToPath(new URL('../../../web/dist/', import.meta.url));

const SignInBody = Type.Object(
  {
    api_key: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
    access_token: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
  },
  { additionalProperties: false },
);

export const WebSession = Type.Object({
  principal: Type.Object({ kind: Type.String(), id: Type.String(), name: Type.String() }),
  expires_at: Type.String({ format: 'date-time' }),
  permissions: Type.Record(Type.String(), Type.Array(Type.String())),
  roles: Type.Array(Type.String(), { description: 'The roles the principal holds now' }),
  /** The first factor was right; the console asks for the security key next (src/api/mfa/mfa-console.routes.ts). */
  second_factor: Type.Optional(Type.Literal('required')),
});

const tags = ['web console'];
// The cookie exchange is for the console's pages, not for API clients, which use /v1/auth/token.
const hide = true;

type Web = FastifyInstance<
  FastifyInstance['server'],
  FastifyRequest['raw'],
  FastifyReply['raw'],
  FastifyInstance['log'],
  TypeBoxTypeProvider
>;

export function contextOf(request: FastifyRequest): RequestContext {
  return {
    remoteAddr: request.ip,
    requestId: request.id,
    ...(request.principal ? { principal: request.principal } : {}),
  };
}

/** What the console shows of a session: who, until when, its roles, which verbs each collection allows. */
function describe(principal: Principal, expiresAt: number) {
  const permissions: Record<string, string[]> = {};
  for (const resource of API_RESOURCES) {
    permissions[resource] = VERBS.filter((verb) => principal.policy.can(resource, verb).allowed);
  }
  return {
    principal: { kind: principal.kind, id: principal.id, name: principal.name },
    expires_at: new Date(expiresAt).toISOString(),
    permissions,
    roles: [...principal.roles],
  };
}

/**
 * A console login begins: both cookies from a token pair, and the session they make. A pair that
 * still owes its second factor opens nothing yet: the answer says so and lists no permissions.
 */
export function startSession(tokens: TokenService, reply: FastifyReply, pair: TokenResponse) {
  reply.header('set-cookie', [
    sessionCookie(ACCESS_COOKIE, pair.access_token, pair.expires_in),
    sessionCookie(REFRESH_COOKIE, pair.refresh_token, pair.refresh_expires_in, REFRESH_PATH),
  ]);
  if (pair.mfa_pending) {
    const { record, principal } = tokens.pendingLogin(pair.access_token);
    return { ...describe(principal, record.expires_at), permissions: {}, second_factor: 'required' as const };
  }
  const { record, principal } = tokens.resolve(pair.access_token);
  return describe(principal, record.expires_at);
}

function bearerOf(request: FastifyRequest): string {
  return (request.headers.authorization ?? '').replace(/^Bearer\s+/i, '');
}

export function webConsoleRoutes(app: FastifyInstance, deps: { tokens: TokenService; consoleDir?: string }): void {
  consoleSessionRoutes(app, deps);
  consolePageRoutes(app, deps);
}

/** Sign-in, refresh and sign-out: on the web listener, or on auth for proxies that forward them. */
export function consoleSessionRoutes(app: FastifyInstance, deps: { tokens: TokenService }): void {
  const web = app as unknown as Web;
  const { tokens } = deps;

  web.get(
    '/webapi/session',
    {
      config: { permission: 'authenticated' },
      schema: { tags, hide, summary: 'Who the session cookie signs in', response: { 200: WebSession } },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const { record, principal } = tokens.resolve(bearerOf(request));
      return describe(principal, record.expires_at);
    },
  );

  web.post(
    '/webapi/session',
    {
      config: { permission: 'public', grants: ['self'] },
      schema: {
        tags,
        hide,
        summary: 'Sign in: an API key (exchanged for a token pair) or an access token becomes HttpOnly cookies',
        body: SignInBody,
        response: { 200: WebSession },
      },
    },
    async (request, reply) => {
      assertSameOrigin(request);
      reply.header('cache-control', 'no-store');
      const { api_key, access_token } = request.body;
      if ((api_key === undefined) === (access_token === undefined)) {
        throw new GatehouseError('invalid_request', 'send either api_key or access_token', {
          errors: [{ path: '/body', message: 'needs exactly one of api_key and access_token' }],
        });
      }
      if (api_key !== undefined)
        return startSession(tokens, reply, await tokens.issueForApiKey(api_key, contextOf(request), { console: true }));
      // A token someone already holds: the cookie lives as long as it does, and there is no refresh.
      const { record, principal } = tokens.resolve(access_token as string);
      // Where roles require a second factor, only a login that gave one may become a console session.
      if (principal.policy.signIn().requireMfa && record.mfa !== 'verified')
        throw new GatehouseError(
          'mfa_required',
          'your roles require a security key: sign in with your API key, then your key',
        );
      reply.header('set-cookie', [
        sessionCookie(ACCESS_COOKIE, access_token as string, (record.expires_at - Date.now()) / 1000),
        sessionCookie(REFRESH_COOKIE, '', 0, REFRESH_PATH),
      ]);
      return describe(principal, record.expires_at);
    },
  );

  web.post(
    '/webapi/session/refresh',
    {
      config: { permission: 'public', grants: ['self'] },
      schema: { tags, hide, summary: 'Rotate the refresh cookie into a new token pair', response: { 200: WebSession } },
    },
    async (request, reply) => {
      assertSameOrigin(request);
      reply.header('cache-control', 'no-store');
      const refresh = readCookies(request.headers.cookie).get(REFRESH_COOKIE);
      if (!refresh) throw new GatehouseError('unauthenticated', 'no session to refresh: sign in again');
      try {
        return startSession(tokens, reply, await tokens.refresh(refresh, contextOf(request)));
      } catch (e) {
        reply.header('set-cookie', clearedCookies());
        throw e;
      }
    },
  );

  web.delete(
    '/webapi/session',
    {
      config: { permission: 'authenticated', grants: [] },
      schema: { tags, hide, summary: 'Sign out: revoke the token and its refresh token, clear the cookies' },
    },
    async (request, reply) => {
      const principal = request.principal as Principal;
      await tokens.revoke({ ...contextOf(request), principal });
      reply.header('set-cookie', clearedCookies());
      return reply.code(204).send();
    },
  );
}

/** The console's pages and files: served by every web listener, forwarding or not. */
export function consolePageRoutes(app: FastifyInstance, deps: { consoleDir?: string }): void {
  const web = app as unknown as Web;
  const files = loadConsoleFiles(deps.consoleDir ?? DEFAULT_CONSOLE_DIR);
  const page = (request: FastifyRequest, reply: FastifyReply) => {
    reply
      .header('content-security-policy', CONSOLE_CSP)
      .header('x-frame-options', 'DENY')
      .header('referrer-policy', 'no-referrer')
      .header('cross-origin-opener-policy', 'same-origin');
    if (!files.index) {
      return reply
        .code(503)
        .type('text/plain; charset=utf-8')
        .send('The web console is not built. Run `npm run web:build` (or restart with `npm start`), then reload.\n');
    }
    return sendFile(request, reply, files.index);
  };
  const config = { permission: 'public' as const };
  const schema = { hide: true };
  web.get('/', { config, schema }, page);
  for (const route of CLIENT_ROUTES) {
    web.get(`/${route}`, { config, schema }, page);
    web.get(`/${route}/*`, { config, schema }, page);
  }
  web.get('/assets/*', { config, schema }, async (request, reply) => {
    const file = assetOf(files, request.url);
    if (!file) throw new GatehouseError('not_found', `no console file ${request.url.split('?')[0]}`);
    return sendFile(request, reply, file);
  });
}

function assetOf(files: ConsoleFiles, url: string): StaticFile | undefined {
  return files.assets.get(url.split('?')[0] ?? '');
}

function sendFile(request: FastifyRequest, reply: FastifyReply, file: StaticFile) {
  reply
    .type(file.type)
    .header('x-content-type-options', 'nosniff')
    .header('vary', 'accept-encoding')
    .header('cache-control', file.immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
  if (file.gzip && /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''))) {
    return reply.header('content-encoding', 'gzip').send(file.gzip);
  }
  return reply.send(file.body);
}
