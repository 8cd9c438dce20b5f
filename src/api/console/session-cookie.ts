// The browser's session: the access token and the refresh token in cookies that script cannot read,
// and the rule that makes such cookies safe against cross-site request forgery.
//
// Why it is CSRF-safe, in three layers, any one of which stops a forged request:
//  1. SameSite=Strict: a browser sends the cookies only with requests that another site did not
//     start (no cross-site links, forms, images or fetches carry them).
//  2. A cookie alone authenticates nothing: a request on a protected route is authenticated by the
//     cookie only when it also carries `X-Gatehouse-CSRF`. A page can add a custom header to a
//     cross-origin request only after a CORS preflight, and Gatehouse answers none, so only this
//     origin's own pages can send it (this covers same-site origins that SameSite does not: another
//     port or a sibling subdomain). HTML forms cannot set headers, and bodies must be JSON anyway.
//  3. When the browser says where a request comes from (`Sec-Fetch-Site`), it must be same-origin.
// The sign-in exchange itself requires the header too, so no other site can sign a person in to an
// account of its choosing (login CSRF).
import type { FastifyRequest } from 'fastify';
import { GatehouseError } from '../../lib/errors.js';

/** The access token; `__Host-`: Secure, Path=/, no Domain, so no other host or path can set it. */
export const ACCESS_COOKIE = '__Host-gatehouse_session';
/** The refresh token, sent only to the session endpoints that use it. */
export const REFRESH_COOKIE = '__Secure-gatehouse_refresh';
export const REFRESH_PATH = '/webapi/session';
export const CSRF_HEADER = 'x-gatehouse-csrf';

const COOKIE_PAIR = /(?:^|;\s*)([^=;\s]+)=([^;]*)/g;

export function readCookies(header: string | undefined): Map<string, string> {
  const cookies = new Map<string, string>();
  if (!header) return cookies;
  for (const m of header.matchAll(COOKIE_PAIR)) cookies.set(m[1] as string, m[2] as string);
  return cookies;
}

/** Set-Cookie for a token (the tokens are URL-safe base64 with a prefix: nothing to escape). */
export function sessionCookie(name: string, value: string, maxAgeSeconds: number, path = '/'): string {
  return `${name}=${value}; Path=${path}; Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}; HttpOnly; Secure; SameSite=Strict`;
}

export function clearedCookies(): string[] {
  return [sessionCookie(ACCESS_COOKIE, '', 0), sessionCookie(REFRESH_COOKIE, '', 0, REFRESH_PATH)];
}

/** Refuses a request that could have been forged by another site (see the header of this file). */
export function assertSameOrigin(request: FastifyRequest): void {
  if (request.headers[CSRF_HEADER] === undefined) {
    throw new GatehouseError(
      'forbidden',
      `a request authenticated by the session cookie must send the ${CSRF_HEADER} header (the console does)`,
    );
  }
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') {
    throw new GatehouseError('forbidden', `a request from ${String(site)} cannot use the session cookie`);
  }
}

/**
 * An onRequest hook for the web listener: a protected route called without an Authorization header
 * but with the session cookie is authenticated by that cookie, if the request passes the CSRF rule.
 * The security pipeline then treats it exactly like a bearer token.
 */
export function cookieAuthentication(request: FastifyRequest): void {
  if (request.headers.authorization !== undefined) return;
  if (request.routeOptions.config?.permission === 'public') return;
  const token = readCookies(request.headers.cookie).get(ACCESS_COOKIE);
  if (!token) return;
  assertSameOrigin(request);
  request.headers.authorization = `Bearer ${token}`;
}

/** cookieAuthentication as a callback-style hook (it runs on every request of the web listener). */
export function cookieAuthenticationHook(request: FastifyRequest, _reply: unknown, done: (err?: Error) => void): void {
  try {
    cookieAuthentication(request);
    done();
  } catch (e) {
    done(e as Error);
  }
}
