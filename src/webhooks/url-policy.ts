// Where webhooks may point (SSRF defence): https only, and never at private, loopback, link-local,
// CGNAT, unique-local or other non-public addresses, IPv4 or IPv6 (IPv4 embedded in IPv6 included).
// Hosts in `webhook_allowed_hosts` are exempt. Names are checked again when they are resolved, at
// delivery time, against the very address the connection will use (no DNS-rebinding window).
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';

export interface UrlPolicy {
  allowedHosts: readonly string[];
}

type Range = { bytes: number[]; bits: number; label: string };

function ipv4Bytes(text: string): number[] | undefined {
  const parts = text.split('.');
  if (parts.length !== 4 || parts.some((p) => !/^\d{1,3}$/.test(p) || Number(p) > 255)) return undefined;
  return parts.map(Number);
}

function ipv6Bytes(input: string): number[] | undefined {
  let text = input.split('%')[0] as string; // a zone id names an interface, not an address
  let tail: number[] = [];
  const dotted = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const v4 = ipv4Bytes(dotted[2] as string);
    if (!v4) return undefined;
    tail = v4;
    text = `${dotted[1]}0:0`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const groups = (s: string | undefined) => (s ? s.split(':') : []);
  const head = groups(halves[0]);
  const rest = groups(halves[1]);
  const missing = 8 - head.length - rest.length;
  if ((halves.length === 1 && missing !== 0) || missing < 0) return undefined;
  const all = [...head, ...Array(halves.length === 2 ? missing : 0).fill('0'), ...rest];
  if (all.some((g) => !/^[0-9a-f]{1,4}$/i.test(g))) return undefined;
  const bytes = all.flatMap((g) => [parseInt(g, 16) >> 8, parseInt(g, 16) & 0xff]);
  if (tail.length === 4) bytes.splice(12, 4, ...tail);
  return bytes;
}

function range(cidr: string, label: string): Range {
  const [addr, bits] = cidr.split('/') as [string, string];
  const bytes = (addr.includes(':') ? ipv6Bytes(addr) : ipv4Bytes(addr)) as number[];
  return { bytes, bits: Number(bits), label };
}

function inRange(bytes: number[], r: Range): boolean {
  for (let bit = 0; bit < r.bits; bit++) {
    const mask = 0x80 >> (bit % 8);
    if (((bytes[bit >> 3] as number) & mask) !== ((r.bytes[bit >> 3] as number) & mask)) return false;
  }
  return true;
}

const IPV4_BLOCKED: Range[] = [
  range('0.0.0.0/8', '"this network"'),
  range('10.0.0.0/8', 'private'),
  range('100.64.0.0/10', 'carrier-grade NAT'),
  range('127.0.0.0/8', 'loopback'),
  range('169.254.0.0/16', 'link-local'),
  range('172.16.0.0/12', 'private'),
  range('192.0.0.0/24', 'IETF protocol assignment'),
  range('192.0.2.0/24', 'documentation'),
  range('192.88.99.0/24', '6to4 relay'),
  range('192.168.0.0/16', 'private'),
  range('198.18.0.0/15', 'benchmarking'),
  range('198.51.100.0/24', 'documentation'),
  range('203.0.113.0/24', 'documentation'),
  range('224.0.0.0/4', 'multicast'),
  range('240.0.0.0/4', 'reserved'),
];

const IPV6_BLOCKED: Range[] = [
  range('::/128', 'unspecified'),
  range('::1/128', 'loopback'),
  range('64:ff9b:1::/48', 'local NAT64'),
  range('100::/64', 'discard-only'),
  range('2001::/23', 'IETF protocol assignment'),
  range('2001:db8::/32', 'documentation'),
  range('fc00::/7', 'unique local'),
  range('fe80::/10', 'link-local'),
  range('fec0::/10', 'site-local'),
  range('ff00::/8', 'multicast'),
];

/** IPv6 forms that carry an IPv4 address, which is then what must be public. */
const IPV4_CARRIERS: Array<{ r: Range; at: number }> = [
  { r: range('::ffff:0:0/96', 'IPv4-mapped'), at: 12 },
  { r: range('::/96', 'IPv4-compatible'), at: 12 },
  { r: range('64:ff9b::/96', 'NAT64'), at: 12 },
  { r: range('2002::/16', '6to4'), at: 2 },
];

/** Why an IP address is not a public unicast address, or undefined when it is one. */
export function nonPublicRange(ip: string): string | undefined {
  const v4 = ipv4Bytes(ip);
  if (v4) return IPV4_BLOCKED.find((r) => inRange(v4, r))?.label;
  const v6 = ipv6Bytes(ip);
  if (!v6) return 'unparseable';
  const blocked = IPV6_BLOCKED.find((r) => inRange(v6, r));
  if (blocked) return blocked.label;
  const carrier = IPV4_CARRIERS.find((c) => inRange(v6, c.r));
  if (carrier) {
    const embedded = IPV4_BLOCKED.find((r) => inRange(v6.slice(carrier.at, carrier.at + 4), r));
    if (embedded) return `${carrier.r.label} ${embedded.label}`;
  }
  return undefined;
}

/** The host of a URL as compared with the allow-list: lower case, no IPv6 brackets, no trailing dot. */
export function hostOf(url: URL): string {
  return url.hostname
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '')
    .toLowerCase();
}

function normalizeHost(entry: string): string {
  const bare = entry.trim().replace(/^\[(.*)\]$/, '$1');
  try {
    return hostOf(new URL(`http://${bare.includes(':') ? `[${bare}]` : bare}/`));
  } catch {
    return bare.toLowerCase();
  }
}

export function isAllowListed(host: string, policy: UrlPolicy): boolean {
  return policy.allowedHosts.some((h) => normalizeHost(h) === host);
}

export type UrlVerdict = { ok: true; url: URL; allowListed: boolean } | { ok: false; reason: string };

/** The static part of the policy: scheme, credentials, IP literals and loopback names. */
export function checkWebhookUrl(raw: string, policy: UrlPolicy): UrlVerdict {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'is not a valid absolute URL' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { ok: false, reason: 'must be an https URL' };
  if (url.username || url.password) return { ok: false, reason: 'must not carry credentials (user:password@)' };
  const host = hostOf(url);
  const allowListed = isAllowListed(host, policy);
  if (allowListed) return { ok: true, url, allowListed };
  if (url.protocol === 'http:') {
    return { ok: false, reason: 'must use https (plain http only for hosts in webhook_allowed_hosts)' };
  }
  if (isIP(host)) {
    const why = nonPublicRange(host);
    if (why) return { ok: false, reason: `points at a ${why} address (${host}), which webhooks may not reach` };
  } else if (host === 'localhost' || host.endsWith('.localhost')) {
    return { ok: false, reason: `points at ${host}, a loopback name, which webhooks may not reach` };
  }
  return { ok: true, url, allowListed };
}

type Resolve = (
  hostname: string,
  options: { all: true; family?: number },
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

/**
 * A `lookup` for http.request that refuses names resolving to any non-public address. The
 * connection uses exactly the addresses checked here, so a rebinding DNS answer cannot slip past.
 */
export function publicOnlyLookup(resolve: Resolve = dnsLookup as unknown as Resolve): LookupFunction {
  return (hostname, options, callback) => {
    const family = typeof options.family === 'number' && options.family !== 0 ? { family: options.family } : {};
    resolve(hostname, { all: true, ...family }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const bad = addresses.find((a) => nonPublicRange(a.address) !== undefined);
      if (bad || addresses.length === 0) {
        const why = bad
          ? `${hostname} resolves to ${bad.address}, a ${nonPublicRange(bad.address)} address; refused`
          : `${hostname} has no address`;
        return callback(Object.assign(new Error(why), { code: 'EWEBHOOKADDR' }), '', 0);
      }
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const first = addresses[0] as LookupAddress;
      return callback(null, first.address, first.family);
    });
  };
}
