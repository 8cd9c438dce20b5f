// Per-app header rewriting: `app.rewrite.headers: [{name, value}]`, each value a literal with
// templates — `{{internal.name}}` (the person's user name), `{{internal.roles}}`, and a trait by
// `{{traits.x}}`, `{{internal.x}}` or `{{external.x}}` (single sign-on claims become traits through
// the connector's traits_from_claims, so external and internal traits are one set). A rewritten
// header always replaces the client's of that name, even when its value cannot be sent. Headers
// that decide how the message is framed or routed (hop-by-hop, Host, Content-Length…), Gatehouse's
// own (the assertion, X-Forwarded-*) and cookies cannot be rewritten; a value that would carry a
// control character (CR/LF: a second header, or a second request) is never sent.
import type { Principal } from '../auth/principal.js';
import { invalidField } from '../lib/errors.js';
import { ASSERTION_HEADER } from './app-assertion.js';

export interface RewriteHeader {
  name: string;
  value: string;
}

/** Names a rewrite may not set: framing, routing, hop-by-hop, Gatehouse's own, cookies. */
const FORBIDDEN = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'te',
  'trailer',
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'proxy-authenticate',
  'upgrade',
  'expect',
  'http2-settings',
  'cookie',
  'set-cookie',
  'forwarded',
  'x-forwarded-for',
  'x-forwarded-proto',
  'x-forwarded-host',
  'x-real-ip',
  ASSERTION_HEADER,
]);

const TOKEN = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$/;
const TEMPLATE = /\{\{\s*(internal|traits|external)\.([A-Za-z0-9_-]{1,64})\s*\}\}/g;
/** Any control character but tab: what would end a header line or the request. */
const hasControl = (s: string): boolean => [...s].some((c) => (c < ' ' && c !== '\t') || c === '\x7f');

/** Why a rewrite cannot be stored (a 400 naming the field), checked when an app is registered or changed. */
export function checkRewrite(headers: readonly RewriteHeader[], field: string): void {
  const seen = new Set<string>();
  headers.forEach((h, i) => {
    const name = h.name.toLowerCase();
    if (!TOKEN.test(h.name)) throw invalidField(`${field}/${i}/name`, 'must be a header name (RFC 9110 token)');
    if (FORBIDDEN.has(name) || name.startsWith('gatehouse-'))
      throw invalidField(
        `${field}/${i}/name`,
        `${h.name} is set by Gatehouse or frames the request: it cannot be rewritten`,
      );
    if (seen.has(name)) throw invalidField(`${field}/${i}/name`, `${h.name} is rewritten twice`);
    seen.add(name);
    if (hasControl(h.value)) throw invalidField(`${field}/${i}/value`, 'must not contain control characters');
    const rest = h.value.replace(TEMPLATE, '');
    if (rest.includes('{{') || rest.includes('}}'))
      throw invalidField(
        `${field}/${i}/value`,
        'templates are {{internal.name}}, {{internal.roles}}, {{traits.x}}, {{internal.x}} or {{external.x}}',
      );
  });
}

export interface RewriteSubject {
  principal: Pick<Principal, 'name' | 'roles' | 'onBehalfOf'>;
  traits: Record<string, string[]>;
}

/** What one template stands for: the person's (for a delegated agent, the user's) name, roles or trait. */
function valuesOf(space: string, key: string, who: RewriteSubject): string[] {
  if (space === 'internal' && key === 'name') return [who.principal.onBehalfOf?.name ?? who.principal.name];
  if (space === 'internal' && key === 'roles') return [...who.principal.roles];
  return who.traits[key] ?? [];
}

/**
 * The rewritten headers for one request, names in lower case: `value` undefined when the header is
 * only removed (a template with no value, or a value that would carry a control character).
 */
export function expandRewrite(
  headers: readonly RewriteHeader[],
  who: RewriteSubject,
): Array<{ name: string; value: string | undefined; refused?: true }> {
  return headers.map((h) => {
    let empty = false;
    const value = h.value.replace(TEMPLATE, (_m, space: string, key: string) => {
      const values = valuesOf(space, key, who);
      if (values.length === 0) empty = true;
      return values.join(', ');
    });
    const name = h.name.toLowerCase();
    if (FORBIDDEN.has(name) || empty) return { name, value: undefined };
    // A trait (or an SSO claim made one) is not the administrator's text: it is checked at each use.
    if (hasControl(value)) return { name, value: undefined, refused: true };
    return { name, value };
  });
}
