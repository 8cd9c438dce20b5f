// The shapes of protected resources (databases, servers, apps): what registering one takes and what
// the API answers. Defined once here; the routes use them for validation and OpenAPI.
import { Type } from '@sinclair/typebox';
import { ADDRESS_PATTERN, Description, Labels, Name, publicKeyLine, Timestamp } from '../lib/shapes.js';
import { McpInput, McpSummary } from '../mcp/mcp-upstream.js';
import { DbInput, DbSummary } from './db-upstream.js';

export const ResourceKindSchema = Type.Union([
  Type.Literal('database'),
  Type.Literal('server'),
  Type.Literal('app'),
  Type.Literal('kube_cluster'),
]);
export const DATABASE_PROTOCOLS = ['postgres', 'mysql', 'mongodb', 'redis'] as const;

const Address = Type.String({
  minLength: 1,
  maxLength: 261,
  pattern: ADDRESS_PATTERN,
  description: 'host or host:port, port 1–65535 (database, server); https://host:port (kube_cluster: its API server)',
});
const Pem = (what: string) =>
  Type.String({ minLength: 1, maxLength: 16_384, pattern: '^-----BEGIN [A-Z ]+-----', description: what });

/**
 * kube_cluster only: how Gatehouse reaches the cluster's API server. The upstream identity must be
 * allowed to impersonate users and groups (a ClusterRole with verb impersonate on users and groups).
 * Sealed at rest, never answered.
 */
export const KubeInput = Type.Object(
  {
    ca_pem: Pem("The API server's CA (PEM); TLS verification is always on"),
    token: Type.Optional(Type.String({ minLength: 1, maxLength: 8192, description: 'A service-account bearer token' })),
    client_cert_pem: Type.Optional(Pem('A client certificate (PEM), with client_key_pem, instead of a token')),
    client_key_pem: Type.Optional(Pem('The client certificate’s private key (PEM)')),
  },
  { additionalProperties: false },
);
/** What the API says about a cluster's upstream credential: which kind is set, never its value. */
export const KubeSummary = Type.Object(
  {
    credential: Type.Union([Type.Literal('token'), Type.Literal('client_certificate')]),
    ca_fingerprint: Type.String({ description: "SHA-256 fingerprint of the API server's CA certificate" }),
  },
  { additionalProperties: false },
);
const Protocol = Type.Union(
  [...DATABASE_PROTOCOLS, 'mcp' as const].map((p) => Type.Literal(p)),
  { description: "Wire protocol: a database's; mcp for an app that is an MCP server (docs/mcp.md)" },
);
const Uri = Type.String({
  maxLength: 2048,
  pattern: '^https?://[^\\s]+$',
  description: 'http(s) URL of the app (app only)',
});

const HOSTNAME_PATTERN =
  '^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$';

/** app only: where people reach it and how Gatehouse reaches its uri (docs/apps.md). */
export const AppSettings = Type.Object(
  {
    public_addr: Type.Optional(
      Type.String({
        maxLength: 253,
        pattern: HOSTNAME_PATTERN,
        description: 'A host name of its own on the web listener, instead of <name>.<apps domain>',
      }),
    ),
    ca_pem: Type.Optional(Pem("The CA (PEM) the app's https uri is verified against; verification is always on")),
    rewrite: Type.Optional(
      Type.Object(
        {
          headers: Type.Array(
            Type.Object(
              {
                name: Type.String({
                  minLength: 1,
                  maxLength: 64,
                  description: 'A header name (not Host, hop-by-hop, Cookie, X-Forwarded-*)',
                }),
                value: Type.String({
                  maxLength: 1024,
                  description:
                    'Literal text with templates: {{internal.name}}, {{internal.roles}}, {{traits.x}}, {{internal.x}}, {{external.x}}',
                }),
              },
              { additionalProperties: false },
            ),
            { maxItems: 32 },
          ),
        },
        {
          additionalProperties: false,
          description: 'Headers the app receives, set per request (replacing the client’s)',
        },
      ),
    ),
    host_header: Type.Optional(
      Type.Union([Type.Literal('upstream'), Type.Literal('public')], {
        description: "The Host the app receives: its uri's host (upstream, the default) or its public host",
      }),
    ),
  },
  { additionalProperties: false },
);

export const ResourceInput = Type.Object(
  {
    kind: ResourceKindSchema,
    name: Name,
    description: Type.Optional(Description),
    labels: Type.Optional(Labels),
    address: Type.Optional(Address),
    protocol: Type.Optional(Protocol),
    uri: Type.Optional(Uri),
    ssh_host_key: Type.Optional(
      publicKeyLine('Server only: its SSH host key (OpenSSH line); without it the proxy pins the key seen first'),
    ),
    kube: Type.Optional(KubeInput),
    db: Type.Optional(DbInput),
    app: Type.Optional(AppSettings),
    mcp: Type.Optional(McpInput),
  },
  { additionalProperties: false },
);

/** What PATCH changes: the connection details, description and labels (not the kind, name or pin). */
export const ResourcePatch = Type.Object(
  {
    description: Type.Optional(Description),
    labels: Type.Optional(Labels),
    address: Type.Optional(Address),
    protocol: Type.Optional(Protocol),
    uri: Type.Optional(Uri),
    db: Type.Optional(DbInput),
    kube: Type.Optional(KubeInput),
    app: Type.Optional(AppSettings),
    mcp: Type.Optional(McpInput),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const HostKeyPinned = Type.Union([Type.Literal('registered'), Type.Literal('first_use'), Type.Null()], {
  description: 'How the host key was pinned: given at registration, or seen on first connection; null: not yet',
});

export const Resource = Type.Object(
  {
    id: Type.String({ description: 'db_…, srv_…, app_… or kube_…' }),
    kind: ResourceKindSchema,
    name: Name,
    description: Type.String(),
    labels: Labels,
    address: Type.Optional(Address),
    protocol: Type.Optional(Protocol),
    uri: Type.Optional(Uri),
    ssh_public_key: Type.Optional(
      Type.Union([Type.String(), Type.Null()], {
        description: "Server only: Gatehouse's public key for this server, to add to the target's authorized_keys",
      }),
    ),
    ssh_host_key_fingerprint: Type.Optional(
      Type.Union([Type.String(), Type.Null()], {
        description: "Server only: the pinned host key's SHA256 fingerprint",
      }),
    ),
    ssh_host_key_pinned: Type.Optional(HostKeyPinned),
    kube: Type.Optional(KubeSummary),
    db: Type.Optional(DbSummary),
    app: Type.Optional(AppSettings),
    public_url: Type.Optional(
      Type.String({ description: 'App only: where people and programs reach it through Gatehouse (docs/apps.md)' }),
    ),
    mcp: Type.Optional(McpSummary),
    mcp_url: Type.Optional(
      Type.String({
        description: 'MCP servers only: the URL an MCP client connects to through Gatehouse (docs/mcp.md)',
      }),
    ),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { additionalProperties: false },
);
