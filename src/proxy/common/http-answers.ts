// What the app door itself answers on an app host: short pages for people (no script, nothing from
// elsewhere), problem+json for programs, the redirect to the console, and the door's cookies. The
// app-session cookie is host-only (no Domain: no other app host ever receives it), HttpOnly, Lax
// (the app's own pages and a link into it carry it; another site's forms and fetches do not), and
// Secure with the __Host- prefix when the web listener is https.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ERROR_CATALOGUE, type ErrorCode } from '../../lib/errors.js';

export const APP_COOKIE = 'gatehouse_app';
/** The launch's state: ties a callback to the browser that started the launch (no login CSRF). */
export const STATE_COOKIE = 'gatehouse_app_state';
const STATE_PATH = '/.gatehouse';

const PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'";

export const cookieName = (name: string, secure: boolean): string => (secure ? `__Host-${name}` : name);

export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export function sessionCookie(value: string, maxAgeSeconds: number, secure: boolean): string {
  const age = Math.max(0, Math.floor(maxAgeSeconds));
  return `${cookieName(APP_COOKIE, secure)}=${value}; Path=/; Max-Age=${age}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

export function stateCookie(value: string, maxAgeSeconds: number, secure: boolean): string {
  // Not __Host- (that needs Path=/): sent only to the callback, and Secure on https.
  return `${STATE_COOKIE}=${value}; Path=${STATE_PATH}; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

/** Whether a person's browser asked (a page navigation), rather than a program or a page's fetch. */
export function wantsPage(req: IncomingMessage): boolean {
  const method = req.method ?? 'GET';
  if (method !== 'GET' && method !== 'HEAD') return false;
  const mode = req.headers['sec-fetch-mode'];
  if (mode !== undefined) return mode === 'navigate';
  return /\btext\/html\b/.test(String(req.headers.accept ?? ''));
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

/** The stable code a program reads in the door's own answers, as the API's (lib/errors.ts). */
const CODE_OF_STATUS: Record<number, ErrorCode> = {
  400: 'invalid_request',
  401: 'unauthenticated',
  403: 'forbidden',
  404: 'not_found',
  429: 'rate_limited',
  500: 'internal_error',
  502: 'upstream_unreachable',
  503: 'unavailable',
};

/** The door's answer to a program: RFC 9457 problem details, the shape of every API error. */
export function problemBody(status: number, message: string, code?: ErrorCode): string {
  const c = code ?? CODE_OF_STATUS[status] ?? (status >= 500 ? 'internal_error' : 'invalid_request');
  const detail = message.replace(/^gatehouse: /, '');
  return `${JSON.stringify({ type: `urn:gatehouse:error:${c}`, title: ERROR_CATALOGUE[c].title, status, detail, code: c })}\n`;
}

/**
 * An answer of the door itself (never the app's): a small page for a browser's navigation,
 * application/problem+json for a program (a fetch, curl, an agent), with the same codes as the API.
 */
export function answer(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string | string[]> = {},
  code?: ErrorCode,
): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const page = wantsPage(req);
  const body = page
    ? `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Gatehouse</title></head><body style="font-family:sans-serif;max-width:40em;margin:4em auto"><h1>Gatehouse</h1><p>${escapeHtml(message)}</p></body></html>\n`
    : problemBody(status, message, code);
  res.writeHead(status, {
    ...headers,
    'content-type': page ? 'text/html; charset=utf-8' : 'application/problem+json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    ...(page ? { 'content-security-policy': PAGE_CSP } : {}),
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}

export function redirect(res: ServerResponse, location: string, cookies: string[] = []): void {
  res.writeHead(302, {
    location,
    'cache-control': 'no-store',
    'content-length': 0,
    ...(cookies.length ? { 'set-cookie': cookies } : {}),
  });
  res.end();
}
