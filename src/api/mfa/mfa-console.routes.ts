// The console's security-key steps under /webapi/mfa (cookie-bound like /webapi/session, so hidden
// from the API document): the second step of a sign-in whose roles require one, and the passkey
// sign-in. The pending login's cookie opens these routes and nothing else (token-service.ts).
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TokenService } from '../../auth/token-service.js';
import { GatehouseError } from '../../lib/errors.js';
import type { MfaSignIn } from '../../mfa/mfa-sign-in.js';
import type { App } from '../app-types.js';
import { contextOf, startSession, WebSession } from '../console/console.routes.js';
import { ACCESS_COOKIE, assertSameOrigin, readCookies } from '../console/session-cookie.js';
import { PasskeyAnswer, SecondStep, SecondStepAnswer, WebAuthnOptions } from './mfa.schema.js';

const tags = ['web console'];
const hide = true;
// The pending login's own cookie is read here; the security plugin must not refuse it first.
const config = { permission: 'public' as const, grants: ['self' as const] };

export function mfaConsoleRoutes(app: App, deps: { tokens: TokenService; mfaSignIn: MfaSignIn }): void {
  const { tokens, mfaSignIn } = deps;

  /** The login waiting for its second factor, from the session cookie. */
  const pendingOf = (request: FastifyRequest, reply: FastifyReply) => {
    assertSameOrigin(request);
    reply.header('cache-control', 'no-store');
    const token = readCookies(request.headers.cookie).get(ACCESS_COOKIE);
    if (!token) throw new GatehouseError('unauthenticated', 'no sign-in is waiting for a second factor: sign in again');
    const resolved = tokens.pendingLogin(token);
    if (resolved.principal.kind !== 'user')
      throw new GatehouseError('forbidden', 'an agent has no security keys; its roles cannot require one at sign-in');
    return { resolved, pending: { userId: resolved.principal.id, tokenId: resolved.id } };
  };

  app.post(
    '/webapi/mfa/sign-in/options',
    {
      config,
      schema: {
        tags,
        hide,
        summary: 'The second step of a sign-in: assert a key, or register the first',
        response: { 200: SecondStep },
      },
    },
    async (request, reply) => mfaSignIn.options(pendingOf(request, reply).pending),
  );

  app.post(
    '/webapi/mfa/sign-in',
    {
      config,
      schema: {
        tags,
        hide,
        summary: 'Finish a sign-in with a security key',
        body: SecondStepAnswer,
        response: { 200: WebSession },
      },
    },
    async (request, reply) => {
      const { resolved, pending } = pendingOf(request, reply);
      const ctx = { ...contextOf(request), principal: resolved.principal };
      const body = request.body as { response: AuthenticationResponseJSON | RegistrationResponseJSON; name?: string };
      await mfaSignIn.verify(ctx, pending, body);
      return startSession(tokens, reply, await tokens.completeSecondFactor(resolved, contextOf(request)));
    },
  );

  app.post(
    '/webapi/mfa/passkey/options',
    {
      config,
      schema: {
        tags,
        hide,
        summary: 'Start a passkey sign-in',
        body: Type.Object({}, { additionalProperties: false }),
        response: { 200: WebAuthnOptions },
      },
    },
    async (request, reply) => {
      assertSameOrigin(request);
      reply.header('cache-control', 'no-store');
      return mfaSignIn.passkeyOptions();
    },
  );

  app.post(
    '/webapi/mfa/passkey',
    {
      config,
      schema: {
        tags,
        hide,
        summary: 'Sign in with a passkey alone (roles with mfa_passwordless)',
        body: PasskeyAnswer,
        response: { 200: WebSession },
      },
    },
    async (request, reply) => {
      assertSameOrigin(request);
      reply.header('cache-control', 'no-store');
      const ctx = contextOf(request);
      const { response } = request.body as { response: AuthenticationResponseJSON };
      const { userId } = await mfaSignIn.passkey(ctx, response);
      return startSession(tokens, reply, await tokens.issueForUser({ kind: 'user', id: userId }, ctx, 'passkey'));
    },
  );
}
