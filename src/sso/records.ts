// The shapes single sign-on keeps in the state backend, and where it keeps them.
import { foldName } from '../auth/records.js';

/** One rule of claims_to_roles: when the claim (or one of its values) matches the glob, these roles. */
export interface ClaimMapping {
  claim: string;
  /** A `*` glob over the claim's value (each value, for a list claim such as groups). */
  value: string;
  /** Role names; `{{value}}` is the matched value, `{{claims.<name>}}` each value of that claim. */
  roles: string[];
}

export interface ConnectorRecord {
  id: string;
  kind: 'oidc';
  /** The connector's name in URLs (/webapi/sso/<name>/login) and the user's `auth`. */
  name: string;
  display_name: string;
  issuer: string;
  client_id: string;
  /** Sealed by the secret box, bound to the connector's id; never answered. */
  client_secret: string;
  scopes: string[];
  claims_to_roles: ClaimMapping[];
  /** Trait name → claim whose value(s) become that trait (e.g. logins ← unix_username). */
  traits_from_claims: Record<string, string>;
  username_claim: string;
  enabled: boolean;
  /** Seconds one sign-in lasts at most, refreshes included: then the provider is asked again. */
  max_session_ttl: number;
  created_at: string;
  updated_at: string;
}

/** A sign-in on its way through the provider: what the callback needs to finish it. */
export interface FlowRecord {
  connector_id: string;
  /** PKCE: the verifier whose S256 challenge went to the provider. */
  code_verifier: string;
  nonce: string;
  /** sha256 of the value in the browser's flow cookie: the callback must come from that browser. */
  binding: string;
  /** A native client's loopback redirect (RFC 8252), its state and its PKCE challenge. */
  native?: { redirect_uri: string; state?: string; code_challenge: string };
  expires_at: number;
}

/** A native client's one-time code: exchanged once, with the verifier of its challenge, for tokens. */
export interface NativeCodeRecord {
  user_id: string;
  connector: string;
  code_challenge: string;
  not_after: number;
  expires_at: number;
}

export const ssoKeys = {
  connector: (id: string) => `sso/connectors/${id}`,
  connectors: 'sso/connectors/',
  connectorName: (name: string) => `index/sso/connectors/name/${name}`,
  connectorFoldedName: (name: string) => `index/sso/connectors/folded/${foldName(name)}`,
  /** By sha256 of the state parameter: the state itself is never stored. */
  flow: (stateHash: string) => `sso/flows/${stateHash}`,
  /** By sha256 of the code. */
  nativeCode: (codeHash: string) => `sso/codes/${codeHash}`,
};
