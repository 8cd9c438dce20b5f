// What crosses the app door in each direction. Towards the app: the client's headers less the
// hop-by-hop ones, less every Gatehouse credential (its cookies, a `Bearer gha_…` token), less what
// only Gatehouse may say (X-Forwarded-*, Forwarded, the identity assertion), plus Gatehouse's own
// X-Forwarded-* and assertion. Towards the client: the app's headers less the hop-by-hop ones, less
// any Set-Cookie naming a Gatehouse cookie (an app may not overwrite the session it is reached by).
import type { IncomingHttpHeaders } from 'node:http';
import { ASSERTION_HEADER } from '../../apps/app-assertion.js';

/** RFC 9110 §7.6.1, and what proxies have used as such; plus Host, which the door sets. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'proxy-authenticate',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
  'host',
  // HTTP/2 pseudo-headers never reach here on HTTP/1.1; an http2-settings header would be hop-by-hop.
  'http2-settings',
]);

/** Only Gatehouse says who the client is and how it came in. */
const GATEHOUSE_SAYS = new Set(['forwarded', 'x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host', 'x-real-ip']);

/** Cookies of Gatehouse's own (the console's, the app session's, the launch state): never to an app. */
export const isGatehouseCookie = (name: string): boolean => /^(__Host-|__Secure-)?gatehouse_/i.test(name);

/** A Gatehouse access token in Authorization (what the door authenticates with, and strips). */
export const GATEHOUSE_BEARER = /^Bearer\s+(gha_\S{1,200})\s*$/i;

/** The Cookie header without Gatehouse's cookies; undefined when nothing is left. */
export function appCookies(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const kept = header
    .split(';')
    .map((c) => c.trim())
    .filter((c) => c !== '' && !isGatehouseCookie(c.slice(0, Math.max(0, c.indexOf('=')))));
  return kept.length ? kept.join('; ') : undefined;
}

/** Names listed in Connection are hop-by-hop for this message too. */
const NONE: ReadonlySet<string> = new Set();
function connectionTokens(headers: IncomingHttpHeaders): ReadonlySet<string> {
  const value = headers.connection;
  // Most requests name nothing but keep-alive (or nothing at all): no set to build.
  if (value === undefined || value === 'keep-alive' || value === 'close') return NONE;
  return new Set(
    (Array.isArray(value) ? value.join(',') : (value ?? ''))
      .split(',')
      .map((t) => t.trim().toLowerCase())
      .filter(Boolean),
  );
}

export interface UpstreamIdentity {
  assertion: string;
  clientAddr: string;
  proto: 'http' | 'https';
  /** The Host the client asked for (the app's public host). */
  publicHost: string;
  /** Set when the app receives its public Host rather than its uri's. */
  host?: string;
  /** The app's rewritten headers (apps/app-rewrite.ts): each replaces the client's; undefined: removed only. */
  rewrite?: ReadonlyArray<{ name: string; value: string | undefined }>;
}

/** The headers the app receives. */
export function upstreamHeaders(
  headers: IncomingHttpHeaders,
  who: UpstreamIdentity,
): Record<string, string | string[]> {
  const listed = connectionTokens(headers);
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || listed.has(name) || GATEHOUSE_SAYS.has(name)) continue;
    if (name === ASSERTION_HEADER || name === 'cookie') continue;
    if (name === 'authorization' && GATEHOUSE_BEARER.test(String(value))) continue;
    out[name] = value;
  }
  for (const { name, value } of who.rewrite ?? []) {
    delete out[name];
    if (value !== undefined) out[name] = value;
  }
  const cookies = appCookies(headers.cookie);
  if (cookies) out.cookie = cookies;
  out['x-forwarded-for'] = who.clientAddr;
  out['x-forwarded-proto'] = who.proto;
  out['x-forwarded-host'] = who.publicHost;
  out[ASSERTION_HEADER] = who.assertion;
  if (who.host) out.host = who.host;
  return out;
}

/** The headers the client receives from the app. */
export function downstreamHeaders(
  headers: Record<string, string | string[] | undefined>,
): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  const listed = connectionTokens(headers as IncomingHttpHeaders);
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || (HOP_BY_HOP.has(name) && name !== 'host') || listed.has(name)) continue;
    if (name === 'set-cookie') {
      const kept = (Array.isArray(value) ? value : [value]).filter(
        (c) => !isGatehouseCookie(c.slice(0, Math.max(0, c.indexOf('='))).trim()),
      );
      if (kept.length) out[name] = kept;
      continue;
    }
    out[name] = value;
  }
  return out;
}
