// The shapes Gatehouse keeps in the state backend, and where it keeps them.
import type { RoleSpec } from '../rbac/types.js';

export type PrincipalKind = 'user' | 'agent';
export interface PrincipalRef {
  kind: PrincipalKind;
  id: string;
}

export interface UserRecord {
  id: string;
  name: string;
  roles: string[];
  traits: Record<string, string[]>;
  status: 'active' | 'suspended';
  created_at: string;
  updated_at: string;
}

export interface AgentRecord {
  id: string;
  name: string;
  status: 'active' | 'suspended' | 'revoked';
  owner: string;
  roles: string[];
  description: string;
  labels: Record<string, string>;
  created_at: string;
  updated_at: string;
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
  used_at?: number;
}

export const keys = {
  user: (id: string) => `users/${id}`,
  userName: (name: string) => `index/users/name/${name}`,
  agent: (id: string) => `agents/${id}`,
  agentName: (name: string) => `index/agents/name/${name}`,
  role: (id: string) => `roles/${id}`,
  roleName: (name: string) => `index/roles/name/${name}`,
  resource: (id: string) => `resources/${id}`,
  resourceName: (kind: string, name: string) => `index/resources/name/${kind}/${name}`,
  apiKey: (id: string) => `apikeys/${id}`,
  apiKeyHash: (hash: string) => `index/apikeys/hash/${hash}`,
  token: (hash: string) => `tokens/${hash}`,
  session: (id: string) => `sessions/${id}`,
};
