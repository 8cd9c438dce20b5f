// The role model (docs/api.md, "Authorization"): rules govern the API, resource selectors govern what a principal
// sees and may connect to, logins and friends say as whom.
export const API_RESOURCES = [
  'users',
  'roles',
  'resources',
  'agents',
  'sessions',
  'recordings',
  'events',
  'webhooks',
  'tokens',
  // The cluster's proxies: join tokens and the identities they gave (api/cluster/).
  'cluster',
  'connectors',
] as const;
export type ApiResource = (typeof API_RESOURCES)[number];

export const VERBS = ['list', 'read', 'create', 'update', 'delete'] as const;
export type Verb = (typeof VERBS)[number];

export const RESOURCE_KINDS = ['server', 'database', 'app', 'kube_cluster'] as const;
export type ResourceKind = (typeof RESOURCE_KINDS)[number];

export interface Rule {
  resources: Array<ApiResource | '*'>;
  verbs: Array<Verb | '*'>;
}

export interface ResourceSelector {
  kinds: Array<ResourceKind | '*'>;
  labels?: Record<string, string>;
}

/** Kubernetes verbs a kube_resources rule names; exec covers attach, portforward port-forward. */
export const KUBE_VERBS = [
  'get',
  'list',
  'watch',
  'create',
  'update',
  'patch',
  'delete',
  'deletecollection',
  'exec',
  'portforward',
] as const;
export type KubeVerb = (typeof KUBE_VERBS)[number];

/**
 * Which Kubernetes objects a role reaches through the proxy (Teleport's kubernetes_resources):
 * `kind` is the API resource as in the URL (`pods`, `deployments`, `namespaces`), `namespace` and
 * `name` may use `*` globs (unset: `*`).
 */
export interface KubeResourceRule {
  kind: string;
  namespace?: string;
  name?: string;
  verbs: Array<KubeVerb | '*'>;
}

/**
 * What a role allows (or denies) inside the apps it selects: request methods (`GET`, `*`) and paths
 * (`/api/*`; `*` matches any run of characters, `/` included). See rbac/app-rules.ts.
 */
export interface AppRule {
  methods: string[];
  paths: string[];
}

/** An argument rule for MCP tools: every entry whose glob matches the tool must accept its arguments. */
export interface McpToolArguments {
  tool: string;
  /** A JSON Schema 2020-12 for the tool's `arguments` object. */
  schema: Record<string, unknown>;
}

export interface RoleConditions {
  rules?: Rule[];
  resources?: ResourceSelector[];
  logins?: string[];
  db_users?: string[];
  db_names?: string[];
  kube_groups?: string[];
  kube_users?: string[];
  kube_resources?: KubeResourceRule[];
  app_rules?: AppRule[];
  /** MCP tools (globs) on the MCP servers the role selects; deny wins; none: no tools (src/rbac/mcp-tools.ts). */
  mcp_tools?: string[];
  mcp_tool_arguments?: McpToolArguments[];
  /** MCP resources (URI globs) the role may list, read and subscribe to; deny wins; none: no resources. */
  mcp_resources?: string[];
  /** MCP prompts (name globs) the role may list and get; deny wins; none: no prompts. */
  mcp_prompts?: string[];
}

export interface RoleOptions {
  max_session_ttl?: string;
  record_session?: 'best_effort' | 'strict';
  record_input?: boolean;
  port_forwarding?: boolean;
  /** Database sessions open with default_transaction_read_only=on, which the proxy keeps on. */
  db_read_only?: boolean;
  /** db.query events carry the bind parameters (they carry data: off unless a role asks). */
  db_record_parameters?: boolean;
  /** Console sign-ins (API key or SSO) end with a WebAuthn assertion; true in any role wins. */
  require_mfa?: boolean;
  /** A registered discoverable passkey alone signs in to the console (some role allows, none forbids). */
  mfa_passwordless?: boolean;
  /** MCP tools (globs) whose calls wait for an approval bound to their exact arguments. */
  mcp_require_approval?: string[];
  /** mcp.tool.call events carry the arguments (they carry data: hash and names only unless a role asks). */
  mcp_record_arguments?: boolean;
}

export interface RoleSpec {
  name: string;
  description?: string;
  allow: RoleConditions;
  deny?: RoleConditions;
  options?: RoleOptions;
}

/** What a policy needs to know of a protected resource. */
export interface LabeledResource {
  kind: ResourceKind;
  labels: Record<string, string>;
}

export interface Decision {
  allowed: boolean;
  /** The role whose rule decided (the denying role, or the first allowing one). */
  role?: string;
}
