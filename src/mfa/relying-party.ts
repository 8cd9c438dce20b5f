// The WebAuthn relying party is the console's public address (web_public_url): its origin is what
// browsers put in clientDataJSON, its host name the RP id every credential is scoped to. A key
// registered under one RP id never signs for another, so changing web_public_url's host orphans
// every registered key (docs/mfa.md says so).
import { GatehouseError } from '../lib/errors.js';

export interface RelyingParty {
  /** The host name, e.g. `gatehouse.example.com` or `localhost`. */
  id: string;
  /** `https://gatehouse.example.com` (scheme, host and port as browsers write it). */
  origin: string;
  name: string;
}

export function relyingPartyOf(webPublicUrl: string): RelyingParty {
  let url: URL;
  try {
    url = new URL(webPublicUrl);
  } catch {
    throw new GatehouseError('unavailable', `web_public_url ${JSON.stringify(webPublicUrl)} is not a URL`);
  }
  // WebAuthn scopes credentials to a domain name: an IP address cannot be a relying-party id.
  if (/^[\d.]+$|^\[/.test(url.hostname)) {
    throw new GatehouseError(
      'unavailable',
      `security keys need a host name in web_public_url, not an address (${url.hostname}); e.g. http://localhost:${url.port || 80}`,
    );
  }
  return { id: url.hostname, origin: url.origin, name: 'Gatehouse' };
}
