// What the app door itself answers on an app host: short pages for people (no script, nothing from
// elsewhere), plain text for programs, the redirect to the console, and the door's cookies. The
// app-session cookie is host-only (no Domain: no other app host ever receives it), HttpOnly, Lax
// (the app's own pages and a link into it carry it; another site's forms and fetches do not), and
// Secure with the __Host- prefix when the web listener is https.
import type { IncomingMessage, ServerResponse } from 'node:http';

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

/** An answer of the door: a small page for a browser, text otherwise. */
export function answer(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string | string[]> = {},
): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const page = wantsPage(req);
  const body = page
    ? `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Gatehouse</title></head><body style="font-family:sans-serif;max-width:40em;margin:4em auto"><h1>Gatehouse</h1><p>${escapeHtml(message)}</p></body></html>\n`
    : `${message}\n`;
  res.writeHead(status, {
    ...headers,
    'content-type': page ? 'text/html; charset=utf-8' : 'text/plain; charset=utf-8',
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
