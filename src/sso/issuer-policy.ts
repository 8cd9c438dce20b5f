// Which issuers a connector may name. An OpenID Provider is trusted with who people are, so it is
// reached over https; plain http only on this machine's loopback (tests, local trials), where nobody
// on the network can alter discovery, keys or tokens.
import { isIP } from 'node:net';

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

export function isLoopbackHost(hostname: string): boolean {
  if (LOOPBACK_NAMES.has(hostname)) return true;
  return isIP(hostname) === 4 && hostname.startsWith('127.');
}

/** The issuer as a URL, or why it is refused. */
export function checkIssuer(issuer: string): { ok: true; url: URL } | { ok: false; reason: string } {
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    return { ok: false, reason: 'is not a URL' };
  }
  if (url.search || url.hash) return { ok: false, reason: 'must not carry a query or a fragment' };
  if (url.username || url.password) return { ok: false, reason: 'must not carry credentials' };
  if (url.protocol === 'https:') return { ok: true, url };
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return { ok: true, url };
  if (url.protocol === 'http:') return { ok: false, reason: 'must be https (http only on loopback, for tests)' };
  return { ok: false, reason: 'must be an https URL' };
}
