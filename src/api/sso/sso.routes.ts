// Single sign-on in the browser (and for native clients, RFC 8252): the sign-in page's buttons, the
// redirect to the provider, the callback that finishes the console sign-in through the path every
// console sign-in takes (startSession; a second factor if the roles require one, as after an API
// key), and the one-time code exchange of a native client. Hidden from the
// OpenAPI document like the console's other /webapi routes; docs/api.md describes them.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TokenService } from '../../auth/token-service.js';
import { GatehouseError } from '../../lib/errors.js';
import { checkNativeRedirect, SsoRefusal, type SsoService } from '../../sso/sso-service.js';
import { startSession } from '../console/console.routes.js';
import { readCookies } from '../console/session-cookie.js';
import { contextOf } from '../request-context.js';
import { refusalPage } from './refusal-page.js';

/** Binds a sign-in to the browser that started it. Lax: it must come back on the provider's redirect. */
export const SSO_COOKIE = '__Host-gatehouse_sso';
const ssoCookie = (value: string, maxAge: number) =>
  `${SSO_COOKIE}=${value}; Path=/; Max-Age=${maxAge}; HttpOnly; Secure; SameSite=Lax`;

const hide = true;
const tags = ['web console'];

const LoginParams = Type.Object(
  { connector: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9][A-Za-z0-9._@-]*$' }) },
  { additionalProperties: false },
);
const LoginQuery = Type.Object(
  {
    redirect_uri: Type.Optional(
      Type.String({ maxLength: 512, description: 'A native client: http://127.0.0.1:<port>/…' }),
    ),
    state: Type.Optional(Type.String({ minLength: 8, maxLength: 256, description: "The native client's own state" })),
    code_challenge: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_-]{43}$' })),
    code_challenge_method: Type.Optional(Type.Literal('S256')),
    public: Type.Optional(Type.Literal('1')),
  },
  { additionalProperties: false },
);
const CallbackQuery = Type.Record(Type.String(), Type.String({ maxLength: 4096 }));
const ExchangeBody = Type.Object(
  {
    code: Type.String({ minLength: 20, maxLength: 128 }),
    code_verifier: Type.String({ minLength: 43, maxLength: 128, pattern: '^[A-Za-z0-9._~-]+$' }),
  },
  { additionalProperties: false },
);
const TokenPair = Type.Object({
  access_token: Type.String(),
  token_type: Type.Literal('Bearer'),
  expires_in: Type.Integer(),
  refresh_token: Type.String(),
  refresh_expires_in: Type.Integer(),
});

type Web = FastifyInstance<
  FastifyInstance['server'],
  FastifyRequest['raw'],
  FastifyReply['raw'],
  FastifyInstance['log'],
  TypeBoxTypeProvider
>;

export interface SsoRouteDeps {
  tokens: TokenService;
  sso: SsoService;
  webPublicUrl: () => string;
}

export function ssoRoutes(app: FastifyInstance, deps: SsoRouteDeps): void {
  const web = app as unknown as Web;
  const publicUrl = () => new URL(deps.webPublicUrl());
  const refused = (reply: FastifyReply, e: unknown) => {
    if (!(e instanceof SsoRefusal)) throw e;
    // The binding cookie stays: a forged callback must not break the sign-in this browser has under way.
    return refusalPage(reply, e.status, e.detail);
  };

  web.get(
    '/webapi/sso/connectors',
    {
      config: { permission: 'public' },
      schema: {
        tags,
        hide,
        summary: 'The enabled single sign-on connectors, for the sign-in page',
        response: {
          200: Type.Object({
            connectors: Type.Array(Type.Object({ name: Type.String(), display_name: Type.String() })),
          }),
        },
      },
    },
    async () => ({ connectors: deps.sso.publicList() }),
  );

  web.get(
    '/webapi/sso/:connector/login',
    {
      config: { permission: 'public', grants: ['self'] },
      schema: { tags, hide, summary: 'Start a single sign-on', params: LoginParams, querystring: LoginQuery },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const q = request.query;
      // The browser must start where the provider sends it back, or its binding cookie is not there.
      const home = publicUrl();
      if (request.headers.host !== home.host && q.public === undefined) {
        const search = new URLSearchParams({ ...(q as Record<string, string>), public: '1' });
        return reply.redirect(`${home.origin}/webapi/sso/${request.params.connector}/login?${search}`, 302);
      }
      let native: { redirect_uri: string; state?: string; code_challenge: string } | undefined;
      if (q.redirect_uri !== undefined) {
        const target = checkNativeRedirect(q.redirect_uri);
        if (!target) {
          return refusalPage(reply, 400, 'a native redirect_uri must be http://127.0.0.1:<port>/… (RFC 8252)');
        }
        if (!q.code_challenge || q.code_challenge_method !== 'S256') {
          return refusalPage(reply, 400, 'a native sign-in needs code_challenge with code_challenge_method=S256');
        }
        native = {
          redirect_uri: target.href,
          code_challenge: q.code_challenge,
          ...(q.state ? { state: q.state } : {}),
        };
      }
      try {
        const started = await deps.sso.start(contextOf(request), request.params.connector, native);
        reply.header('set-cookie', ssoCookie(started.binding, 600));
        return reply.redirect(started.location, 302);
      } catch (e) {
        return refused(reply, e);
      }
    },
  );

  web.get(
    '/webapi/sso/callback',
    {
      config: { permission: 'public', grants: ['self'] },
      schema: { tags, hide, summary: 'Where the provider sends people back', querystring: CallbackQuery },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const query = new URLSearchParams(request.query as Record<string, string>);
      const binding = readCookies(request.headers.cookie).get(SSO_COOKIE);
      try {
        const done = await deps.sso.finish(contextOf(request), query, binding);
        if (done.native) {
          const code = await deps.sso.nativeCode(done, done.native.code_challenge);
          const target = new URL(done.native.redirect_uri);
          target.searchParams.set('code', code);
          if (done.native.state) target.searchParams.set('state', done.native.state);
          reply.header('set-cookie', ssoCookie('', 0));
          return reply.redirect(target.href, 303);
        }
        // Roles that require a security key make this a pending login: the console asks for the key next.
        const pair = await deps.tokens.issueForUser({ kind: 'user', id: done.user.id }, contextOf(request), 'sso', {
          connector: done.connector.name,
          notAfter: done.notAfter,
          console: true,
        });
        startSession(deps.tokens, reply, pair);
        reply.header('set-cookie', ssoCookie('', 0)); // appended to the session's cookies
        // Half signed in: the sign-in page asks for the security key (second_factor is only a hint to
        // show that step; the cookie is what the server believes).
        const landing = pair.mfa_pending ? '/login?second_factor=1' : '/';
        return reply.redirect(`${publicUrl().origin}${landing}`, 303);
      } catch (e) {
        return refused(reply, e);
      }
    },
  );

  web.post(
    '/webapi/sso/exchange',
    {
      config: { permission: 'public', grants: ['self'] },
      schema: {
        tags,
        hide,
        summary: "A native client's one-time code and PKCE verifier → a token pair",
        body: ExchangeBody,
        response: { 200: TokenPair },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const ctx = contextOf(request);
      try {
        const redeemed = await deps.sso.redeem(ctx, request.body.code, request.body.code_verifier);
        const user = { kind: 'user' as const, id: redeemed.user_id };
        // A native client has no second step: where a role requires a security key, only the console signs in.
        if (deps.tokens.requiresMfa(user))
          throw new GatehouseError('forbidden', 'this login requires a security key: sign in through the console');
        return await deps.tokens.issueForUser(user, ctx, 'sso', {
          connector: redeemed.connector,
          notAfter: redeemed.not_after,
          console: false,
        });
      } catch (e) {
        if (e instanceof SsoRefusal) throw new GatehouseError('invalid_credentials', e.detail);
        throw e;
      }
    },
  );
}
