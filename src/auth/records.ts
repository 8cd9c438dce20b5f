// The shapes Gatehouse keeps in the state backend, and where it keeps them.
import type { RoleSpec } from '../rbac/types.js';

export type PrincipalKind = 'user' | 'agent';
export interface PrincipalRef {
  kind: PrincipalKind;
  id: string;
}

/** Who created a credential: a user, an agent, or Gatehouse itself (kind system, no id). */
export interface CreatorRef {
  kind: string;
  id?: string;
}

export const creatorOf = (ctx: { principal?: { kind: PrincipalKind; id: string }; system?: string }): CreatorRef =>
  ctx.principal ? { kind: ctx.principal.kind, id: ctx.principal.id } : { kind: 'system' };

export interface UserRecord {
  id: string;
  name: string;
  roles: string[];
  traits: Record<string, string[]>;
  status: 'active' | 'suspended';
  /** The single sign-on connector this user signs in through; its roles then come from the provider. */
  auth?: string;
  created_at: string;
  updated_at: string;
}

export type AgentStatus = 'active' | 'suspended' | 'revoked';

export interface AgentRateLimit {
  /** Requests per minute with this agent's tokens; null: the cluster default. */
  requests_per_minute: number | null;
  /** Credentials issued to this agent per minute (credentials endpoint and token exchange). */
  credentials_per_minute: number | null;
}

export interface AgentRecord {
  id: string;
  name: string;
  status: AgentStatus;
  owner: string;
  roles: string[];
  description: string;
  labels: Record<string, string>;
  /** Upper bound of any credential's lifetime in seconds; null: the cluster's maximum. */
  max_credential_ttl?: number | null;
  rate_limit?: AgentRateLimit;
  /** Who created it; an agent that did is its creator in the lineage (agent-lineage.ts). Absent on older records. */
  created_by?: CreatorRef;
  created_at: string;
  updated_at: string;
}

export type CredentialType = 'api_key' | 'token' | 'jwt';

/** What was issued to an agent (metadata only; secrets are shown once and never stored). */
export interface CredentialRecord {
  id: string;
  agent_id: string;
  type: CredentialType;
  /** The roles the credential may use (a subset of the agent's); absent: all of the agent's roles. */
  roles?: string[];
  audience?: string;
  /** Set when the credential lets the agent act for a user (token exchange). */
  on_behalf_of?: PrincipalRef;
  created_by: CreatorRef;
  created_at: string;
  expires_at: string;
  revoked_at?: string;
  revoked_reason?: string;
  api_key_id?: string;
  token_family?: string;
  /** The signing key of a JWT. */
  kid?: string;
  /** Token exchange: the tokens it was exchanged from; a JWT is active only while both are. */
  exchanged_from?: ExchangeSources;
}

/** One token a delegated token was exchanged from: what ends it (its login, API key, credential) ends that one too. */
export interface TokenSource {
  /** The token's store id (keys.token). */
  id: string;
  family: string;
  api_key_id?: string;
  credential_id?: string;
}

/** The user's token (subject) and the agent's (actor) a delegated token came from. */
export interface ExchangeSources {
  subject: TokenSource;
  actor: TokenSource;
}

/** A user's consent that an agent may act for them (token exchange needs it). */
export interface DelegationGrant {
  agent_id: string;
  user_id: string;
  created_at: string;
  created_by: { kind: string; id?: string };
  expires_at?: string;
}

/** An Ed25519 signing key for agent JWTs; the private half is sealed (AES-GCM) with the data dir's key. */
export interface SigningKeyRecord {
  kid: string;
  alg: 'EdDSA';
  generation: number;
  public_jwk: { kty: string; crv: string; x: string };
  private_sealed: string;
  created_at: string;
  /** Signs tokens from here … */
  active_from: number;
  /** … until here; */
  active_until: number;
  /** and stays published until the last token it signed can have expired. */
  published_until: number;
}

export interface RoleRecord extends RoleSpec {
  id: string;
  builtin: boolean;
  created_at: string;
  updated_at: string;
}

export interface ApiKeyRecord {
  id: string;
  hash: string;
  hint: string;
  name: string;
  principal: PrincipalRef;
  created_at: string;
  expires_at?: string;
  /** Agent credentials: the roles tokens from this key may use, and the credential it belongs to. */
  roles?: string[];
  credential_id?: string;
  /** Absent on keys created before creators were recorded. */
  created_by?: CreatorRef;
}

export interface TokenRecord {
  kind: 'access' | 'refresh';
  principal: PrincipalRef;
  /** Every token descended from one API-key login shares a family; reuse of a refresh token ends it. */
  family: string;
  api_key_id?: string;
  issued_at: number;
  expires_at: number;
  revoked_at?: number;
  /** Why it was revoked, when the reason matters to the holder (e.g. agent_suspended). */
  revoked_reason?: string;
  used_at?: number;
  /** Agent tokens: the roles they may use (absent: all of the agent's roles). */
  roles?: string[];
  /** The agent credential the token belongs to (its last use is tracked, revoking it ends the token). */
  credential_id?: string;
  /** No token of this login outlives this (epoch ms): the expiry of the agent credential it came from. */
  not_after?: number;
  /** Delegation (RFC 8693): the agent (principal) acts for this user. */
  on_behalf_of?: PrincipalRef;
  /** Delegation: the tokens it was exchanged from; it dies with either (token-index.ts, token-service.ts). */
  exchanged_from?: ExchangeSources;
  /**
   * Console logins of people whose roles require a second factor: `pending` opens nothing but the
   * second step (src/mfa) and lives minutes; `verified`: the login ended with a security key.
   */
  mfa?: 'pending' | 'verified';
  /** A pending login's own bound (an SSO login's not_after), restored when its second factor is given. */
  login_not_after?: number;
  /** How and where the login began: every token of the login carries it, so its owner can tell logins apart. */
  origin?: LoginOrigin;
}

/** A login's first factor, the address it came from and when it began (its owner's list of logins). */
export interface LoginOrigin {
  via: 'api_key' | 'sso' | 'passkey';
  address: string;
  started_at: number;
  console?: true;
  connector?: string;
}

/**
 * The form in which names must be unique. NFC first, so that canonically equivalent spellings (a
 * precomposed "é" and "e" + combining accent) fold alike; then toLowerCase(), which is locale-independent
 * (unlike toLocaleLowerCase, whose Turkish "I" would make the key depend on the host), so every instance
 * and every backfill computes the same key for the same name.
 */
export const foldName = (name: string): string => name.normalize('NFC').toLowerCase();

/** Where each kind of record lives: list a kind by its prefix, never by a string written elsewhere. */
export const prefixes = {
  users: 'users/',
  agents: 'agents/',
  roles: 'roles/',
  resources: 'resources/',
  apiKeys: 'apikeys/',
  sshKeys: 'sshkeys/',
  sessions: 'sessions/',
  credentials: 'credentials/',
  delegations: 'delegations/',
  tokens: 'tokens/',
  jwks: 'jwks/',
} as const;

export const keys = {
  user: (id: string) => `users/${id}`,
  /** Exact name → record: lookups by name. */
  userName: (name: string) => `index/users/name/${name}`,
  /** Folded name → record: only guards uniqueness regardless of case (lookups stay exact). */
  userFoldedName: (name: string) => `index/users/folded/${foldName(name)}`,
  agent: (id: string) => `agents/${id}`,
  agentName: (name: string) => `index/agents/name/${name}`,
  agentFoldedName: (name: string) => `index/agents/folded/${foldName(name)}`,
  role: (id: string) => `roles/${id}`,
  /** Role resolution goes through the exact key only: a role named `ADMIN` never resolves to `admin`. */
  roleName: (name: string) => `index/roles/name/${name}`,
  roleFoldedName: (name: string) => `index/roles/folded/${foldName(name)}`,
  resource: (id: string) => `resources/${id}`,
  resourceName: (kind: string, name: string) => `index/resources/name/${kind}/${name}`,
  resourceFoldedName: (kind: string, name: string) => `index/resources/folded/${kind}/${foldName(name)}`,
  apiKey: (id: string) => `apikeys/${id}`,
  apiKeyHash: (hash: string) => `index/apikeys/hash/${hash}`,
  token: (hash: string) => `tokens/${hash}`,
  session: (id: string) => `sessions/${id}`,
  credential: (agentId: string, id: string) => `credentials/${agentId}/${id}`,
  credentialsOf: (agentId: string) => `credentials/${agentId}/`,
  delegation: (agentId: string, userId: string) => `delegations/${agentId}/${userId}`,
  delegationsOf: (agentId: string) => `delegations/${agentId}/`,
  signingKey: (generation: number) => `jwks/${String(generation).padStart(12, '0')}`,
  usage: (kind: 'agent' | 'credential', id: string) => `usage/${kind}/${id}`,
  sshKey: (id: string) => `sshkeys/${id}`,
  /** sha256 (hex) of the key blob: a key identifies exactly one principal. */
  sshKeyBlob: (digest: string) => `index/sshkeys/blob/${digest}`,
  /** A server's sealed upstream private key, apart from the resource record (never in responses). */
  serverSecret: (id: string) => `secrets/servers/${id}`,
  /** A Kubernetes cluster's sealed upstream credential (token or client key) and its CA. */
  kubeSecret: (id: string) => `secrets/kube/${id}`,
  /** A database's sealed upstream passwords and client key, and its CA. */
  dbSecret: (id: string) => `secrets/db/${id}`,
  /** An MCP server's sealed upstream credential (headers), src/mcp/mcp-upstream.ts. */
  mcpSecret: (id: string) => `secrets/mcp/${id}`,
};
