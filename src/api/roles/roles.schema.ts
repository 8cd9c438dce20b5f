import { Type } from '@sinclair/typebox';
import { Description, Name, PLAIN_TEXT_PATTERN, Timestamp } from '../../lib/shapes.js';
import { API_RESOURCES, KUBE_VERBS, RESOURCE_KINDS, VERBS } from '../../rbac/types.js';
import { listQuery, listResponse } from '../schemas.js';

/** A string enum typed as its union (validated by `enum`, so the type is sound). */
const oneOf = <T extends string>(values: readonly T[]) =>
  Type.Unsafe<T | '*'>({ type: 'string', enum: [...values, '*'] });

const Rule = Type.Object(
  {
    resources: Type.Array(oneOf(API_RESOURCES), { minItems: 1, maxItems: 16 }),
    verbs: Type.Array(oneOf(VERBS), { minItems: 1, maxItems: 8 }),
  },
  { additionalProperties: false },
);

const Selector = Type.Object(
  {
    kinds: Type.Array(oneOf(RESOURCE_KINDS), { minItems: 1, maxItems: 8 }),
    labels: Type.Optional(
      Type.Record(
        Type.String({ minLength: 1, maxLength: 63 }),
        Type.String({ maxLength: 255, pattern: PLAIN_TEXT_PATTERN }),
        {
          maxProperties: 32,
          description: 'Every label must match; values may use * globs; {"*": "*"} matches anything',
        },
      ),
    ),
  },
  { additionalProperties: false },
);

const KubeGlob = (description: string) =>
  Type.String({ minLength: 1, maxLength: 253, pattern: '^[a-z0-9*][a-z0-9.*-]*$', description });

const KubeResource = Type.Object(
  {
    kind: KubeGlob('The API resource as in the URL (pods, deployments, namespaces); * globs'),
    namespace: Type.Optional(KubeGlob('Namespace glob (default *)')),
    name: Type.Optional(KubeGlob('Object name glob (default *)')),
    verbs: Type.Array(oneOf(KUBE_VERBS), { minItems: 1, maxItems: 16 }),
  },
  { additionalProperties: false },
);

const AppRule = Type.Object(
  {
    methods: Type.Array(Type.String({ pattern: '^([A-Z]{1,20}|\\*)$', description: 'GET, POST… or *' }), {
      minItems: 1,
      maxItems: 16,
    }),
    paths: Type.Array(
      Type.String({
        minLength: 1,
        maxLength: 512,
        pattern: '^(\\*|/[!-~]*)$',
        description: 'A path glob (/api/*; * matches any run of characters, / included), or *',
      }),
      { minItems: 1, maxItems: 32 },
    ),
  },
  { additionalProperties: false },
);

// Logins, database users and names, Kubernetes groups: matched against what a client sends and
// logged, so no NUL and no lone surrogates (templates and globs are fine).
const Principals = Type.Array(Type.String({ minLength: 1, maxLength: 64, pattern: PLAIN_TEXT_PATTERN }), {
  maxItems: 64,
});

// MCP tool names are free text up to 128 characters in the specification; globs with `*`.
const McpToolGlobs = Type.Array(Type.String({ minLength: 1, maxLength: 128, pattern: PLAIN_TEXT_PATTERN }), {
  maxItems: 64,
});

// MCP resource URIs (RFC 3986, templates' too) as globs with `*`.
const McpResourceGlobs = Type.Array(Type.String({ minLength: 1, maxLength: 1024, pattern: PLAIN_TEXT_PATTERN }), {
  maxItems: 64,
  description:
    'MCP resources (URI globs) listed, read and subscribed to on the MCP servers this role selects; deny wins; unset: none',
});

const McpPromptGlobs = Type.Array(Type.String({ minLength: 1, maxLength: 128, pattern: PLAIN_TEXT_PATTERN }), {
  maxItems: 64,
  description: 'MCP prompts (name globs) listed and got on the MCP servers this role selects; deny wins; unset: none',
});

const McpToolArguments = Type.Object(
  {
    tool: Type.String({ minLength: 1, maxLength: 128, pattern: PLAIN_TEXT_PATTERN, description: 'Tool name glob' }),
    schema: Type.Record(Type.String(), Type.Unknown(), {
      description: "A JSON Schema 2020-12 the call's arguments must satisfy (checked when the role is saved)",
    }),
  },
  { additionalProperties: false },
);

const Conditions = Type.Object(
  {
    rules: Type.Optional(Type.Array(Rule, { maxItems: 64 })),
    resources: Type.Optional(Type.Array(Selector, { maxItems: 64 })),
    logins: Type.Optional(Principals),
    db_users: Type.Optional(Principals),
    db_names: Type.Optional(Principals),
    kube_groups: Type.Optional(Principals),
    kube_users: Type.Optional(Principals),
    kube_resources: Type.Optional(Type.Array(KubeResource, { maxItems: 64 })),
    app_rules: Type.Optional(
      Type.Array(AppRule, {
        maxItems: 64,
        description: 'Inside the apps this role selects: the requests allowed (or denied); unset: every request',
      }),
    ),
    mcp_tools: Type.Optional(McpToolGlobs),
    mcp_tool_arguments: Type.Optional(Type.Array(McpToolArguments, { maxItems: 64 })),
    mcp_resources: Type.Optional(McpResourceGlobs),
    mcp_prompts: Type.Optional(McpPromptGlobs),
  },
  { additionalProperties: false },
);

const Options = Type.Object(
  {
    max_session_ttl: Type.Optional(Type.String({ pattern: '^(\\d+(ms|s|m|h|d))+$' })),
    record_session: Type.Optional(Type.Union([Type.Literal('best_effort'), Type.Literal('strict')])),
    record_input: Type.Optional(Type.Boolean()),
    port_forwarding: Type.Optional(Type.Boolean()),
    db_read_only: Type.Optional(
      Type.Boolean({
        description:
          'Database sessions open with default_transaction_read_only=on; the proxy refuses what would turn it off',
      }),
    ),
    db_record_parameters: Type.Optional(
      Type.Boolean({
        description:
          "db.query events carry the statement's bind parameters (extended protocol); off by default, since they carry data",
      }),
    ),
    require_mfa: Type.Optional(
      Type.Boolean({
        description:
          'Console sign-ins (API key or SSO) end with a security key or passkey (WebAuthn); a holder without one registers it first. Any role asking wins',
      }),
    ),
    mfa_passwordless: Type.Optional(
      Type.Boolean({
        description:
          'A registered discoverable passkey alone signs in to the console; allowed when some role says true and none says false',
      }),
    ),
    mcp_require_approval: Type.Optional(McpToolGlobs),
    mcp_record_arguments: Type.Optional(
      Type.Boolean({
        description:
          "mcp.tool.call events carry the call's arguments (otherwise their hash and names only); any role asking wins",
      }),
    ),
  },
  { additionalProperties: false },
);

export const RoleInput = Type.Object(
  {
    name: Name,
    description: Type.Optional(Description),
    allow: Conditions,
    deny: Type.Optional(Conditions),
    options: Type.Optional(Options),
  },
  { additionalProperties: false },
);

export const Role = Type.Object(
  {
    id: Type.String(),
    name: Name,
    description: Type.String(),
    builtin: Type.Boolean(),
    allow: Conditions,
    deny: Conditions,
    options: Options,
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { additionalProperties: false },
);

export const RoleParams = Type.Object(
  {
    id: Type.String({
      minLength: 1,
      maxLength: 80,
      pattern: '^[A-Za-z0-9][A-Za-z0-9._@-]*$',
      description: 'The role id (role_…) or its name',
    }),
  },
  { additionalProperties: false },
);

export const RoleQuery = listQuery({ name: Type.Optional(Type.String({ maxLength: 64 })) });
export const RoleList = listResponse('roles', Role);
