// The one configuration schema. YAML keys are these names; every leaf can be overridden by the
// environment variable GATEHOUSE_<PATH_IN_UPPER_CASE> (e.g. tokens.access_ttl → GATEHOUSE_TOKENS_ACCESS_TTL).
import { type Static, Type } from '@sinclair/typebox';
import { DURATION_PATTERN } from '../lib/duration.js';

const Duration = Type.String({ pattern: DURATION_PATTERN, description: 'e.g. 90s, 15m, 1h, 7d' });
const Address = Type.String({ pattern: '^(\\[[0-9a-fA-F:]+\\]|[A-Za-z0-9.-]+):\\d{1,5}$', description: 'host:port' });

export const ConfigSchema = Type.Object(
  {
    data_dir: Type.String({ minLength: 1, default: './data' }),
    roles: Type.Array(Type.Union([Type.Literal('auth'), Type.Literal('proxy')]), {
      minItems: 1,
      default: ['auth', 'proxy'],
    }),
    auth_addr: Type.String({ ...Address, default: '127.0.0.1:3025' }),
    web_addr: Type.String({ ...Address, default: '127.0.0.1:3080' }),
    ssh_addr: Type.String({
      ...Address,
      default: '127.0.0.1:3023',
      description: 'SSH proxy listener (roles: proxy).',
    }),
    ssh_public_addr: Type.Optional(
      Type.String({
        ...Address,
        description: 'host:port users connect to for SSH (behind a load balancer); default ssh_addr.',
      }),
    ),
    kube_addr: Type.String({
      ...Address,
      default: '127.0.0.1:3026',
      description:
        "Kubernetes proxy listener (roles: proxy), always TLS with a certificate from the cluster's Kubernetes CA.",
    }),
    kube_public_url: Type.Optional(
      Type.String({
        pattern: '^https://[^\\s/]+$',
        maxLength: 300,
        description: 'https://host:port kubeconfigs point at (behind a load balancer); default kube_addr.',
      }),
    ),
    web_public_url: Type.Optional(
      Type.String({
        pattern: '^https?://(\\[[0-9a-fA-F:]+\\]|[A-Za-z0-9.-]+)(:\\d{1,5})?/?$',
        maxLength: 300,
        description:
          'http(s)://host[:port] people reach the web listener at (as a load balancer or the tls listener answers it): ' +
          'single sign-on redirect URIs, the WebAuthn relying party and app addresses are made from it; ' +
          'default http://localhost:<web port> (https with tls).',
      }),
    ),
    apps_domain: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$',
        maxLength: 253,
        description:
          'Domain under which each app is served at <app name>.<apps_domain> on the web listener; default the host of web_public_url.',
      }),
    ),
    db_addr: Type.String({
      ...Address,
      default: '127.0.0.1:3036',
      description: 'PostgreSQL proxy listener (roles: proxy).',
    }),
    db_public_addr: Type.Optional(
      Type.String({
        ...Address,
        description: 'host:port users connect to for PostgreSQL (behind a load balancer); default db_addr.',
      }),
    ),
    db: Type.Object(
      {
        query_max_length: Type.Integer({
          minimum: 64,
          maximum: 1_048_576,
          default: 4096,
          description: 'Characters of a statement kept in its db.query event; longer text is cut (truncated: true).',
        }),
      },
      { additionalProperties: false, default: {} },
    ),
    metrics_enabled: Type.Boolean({ default: true, description: 'Serve GET /metrics on metrics_addr.' }),
    metrics_addr: Type.String({ ...Address, default: '127.0.0.1:9090' }),
    metrics_prefix: Type.String({
      pattern: '^[a-zA-Z_][a-zA-Z0-9_]*$',
      maxLength: 64,
      default: 'gatehouse',
      description: 'Prefix of every metric name.',
    }),
    backend_url: Type.Optional(Type.String({ minLength: 1 })),
    audit_url: Type.Optional(Type.String({ minLength: 1 })),
    audit_read_url: Type.Optional(
      Type.String({
        minLength: 1,
        description: 'A PostgreSQL replica (postgres://…, one host or several) for audit queries and export',
      }),
    ),
    redis_url: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 2048,
        description:
          'Shared counters, live-session registry and session pub/sub for several instances: redis://host:port ' +
          'or redis+cluster://h1:p1,h2:p2 (rediss:// for TLS). Unset: each process keeps these in memory.',
      }),
    ),
    recordings_url: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 2048,
        description:
          'Object storage for session recordings: file://DIR (default <data dir>/recordings) or ' +
          's3://bucket/prefix?endpoint=…&region=…&path_style=true',
      }),
    ),
    recordings: Type.Object(
      {
        session_max_bytes: Type.Integer({
          minimum: 65_536,
          default: 67_108_864,
          description:
            'Spool bytes one session may record; beyond it the recording is truncated (or the session ends).',
        }),
        spool_max_bytes: Type.Integer({
          minimum: 1_048_576,
          default: 4_294_967_296,
          description: 'Bytes the whole spool (<data dir>/spool) may hold, live and awaiting upload.',
        }),
        upload_retry_min: Type.String({ ...Duration, default: '1s', description: 'First retry bound (doubles).' }),
        upload_retry_max: Type.String({
          ...Duration,
          default: '5m',
          description: 'Largest retry bound; retries go on.',
        }),
      },
      { additionalProperties: false, default: {} },
    ),
    audit: Type.Object(
      {
        retention: Type.Optional(
          Type.String({
            ...Duration,
            description: 'Delete events older than this (e.g. 365d); unset keeps them forever',
          }),
        ),
        write_timeout: Type.String({
          ...Duration,
          default: '10s',
          description:
            'How long a request may wait for a durable audit write (a failover, a missing synchronous standby) before answering 503 audit_unavailable',
        }),
      },
      { additionalProperties: false, default: {} },
    ),
    // A proxy-only instance with auth_servers holds no store credentials: it forwards /v1 to the auth
    // tier and follows state through auth's watch stream (docs/deploy.md, docs/operations.md).
    auth_servers: Type.Optional(
      Type.Array(Type.String(Address), {
        minItems: 1,
        description: 'Auth instances (host:port, or one load-balancer address) a proxy-only instance forwards to.',
      }),
    ),
    cluster_token: Type.Optional(
      Type.String({
        minLength: 32,
        maxLength: 512,
        description: 'Shared secret proxies present to the auth tier (both sides set it; ≥ 32 characters).',
      }),
    ),
    // How a proxy-only instance proves who it is to the auth tier (docs/deploy.md "Joining a proxy").
    cluster: Type.Object(
      {
        join_token: Type.Optional(
          Type.String({
            minLength: 32,
            maxLength: 512,
            description:
              'A join token (POST /v1/cluster/join-tokens) a new proxy presents once; it then keeps its own key in its data dir. Also GATEHOUSE_JOIN_TOKEN.',
          }),
        ),
        allow_shared_token: Type.Boolean({
          default: false,
          description:
            'Deprecated: let proxies authenticate with the shared cluster_token (one trusted network only; no per-proxy identity).',
        }),
      },
      { additionalProperties: false, default: {} },
    ),
    trusted_proxies: Type.Array(Type.String({ minLength: 1 }), {
      default: [],
      description:
        'Addresses or CIDRs (load balancers) whose X-Forwarded-For a web listener believes; empty: the peer address.',
    }),
    bootstrap_api_key: Type.Optional(Type.String({ minLength: 32, maxLength: 512 })),
    // The 32-byte key every instance seals secrets with (webhook secrets, server keys, JWT keys, the
    // user CA). Unset: <data dir>/webhook-secret.key, generated on first start (one instance only).
    seal_key_file: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
    log_level: Type.Union(
      ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)),
      { default: 'info' },
    ),
    insecure: Type.Boolean({ default: false, description: 'Allow plain HTTP on non-loopback addresses.' }),
    tls: Type.Optional(
      Type.Object({ cert_file: Type.String(), key_file: Type.String() }, { additionalProperties: false }),
    ),
    tokens: Type.Object(
      {
        access_ttl: Type.String({ ...Duration, default: '1h' }),
        refresh_ttl: Type.String({ ...Duration, default: '24h' }),
        max_logins_per_key: Type.Integer({
          minimum: 1,
          maximum: 1_000_000,
          default: 1000,
          description: 'Logins one API key holds at once; another ends its least recently used login.',
        }),
      },
      { additionalProperties: false, default: {} },
    ),
    agents: Type.Object(
      {
        max_credential_ttl: Type.String({
          ...Duration,
          default: '24h',
          description: 'Longest lifetime of any agent credential (an agent may set less); at least 1m.',
        }),
        requests_per_minute: Type.Integer({
          minimum: 1,
          default: 600,
          description:
            "Default per-agent request limit (each instance counts its own; an agent's rate_limit overrides).",
        }),
        credentials_per_minute: Type.Integer({
          minimum: 1,
          default: 60,
          description: 'Default per-agent credential-issuance limit (credentials endpoint and token exchange).',
        }),
        max_credentials: Type.Integer({
          minimum: 1,
          default: 10_000,
          description:
            'Credential records one agent holds at most; expired and revoked ones make room for new ones, else an issuance is refused (409).',
        }),
        jwt_issuer: Type.String({
          minLength: 1,
          maxLength: 512,
          default: 'gatehouse',
          description: 'The iss of agent JWTs (a URL whose /.well-known/jwks.json serves the keys, ideally).',
        }),
        jwt_key_rotation: Type.String({
          ...Duration,
          default: '24h',
          description: 'How long one signing key signs; the next is published a whole period ahead.',
        }),
      },
      { additionalProperties: false, default: {} },
    ),
    // Bounds on what one client can hold open on the auth and web listeners: a request that never
    // finishes, a connection that goes silent, and how many connections one address may keep.
    http: Type.Object(
      {
        request_timeout: Type.String({
          ...Duration,
          default: '60s',
          description: 'Headers and body must arrive within this, else 408 and the connection closes.',
        }),
        idle_timeout: Type.String({
          ...Duration,
          default: '30s',
          description: 'A connection with no bytes in either direction this long is closed (408 mid-request).',
        }),
        max_connections: Type.Integer({
          minimum: 1,
          default: 10_000,
          description: 'Open connections per listener; beyond it new ones get 503 and are closed.',
        }),
        max_connections_per_source: Type.Integer({
          minimum: 1,
          default: 256,
          description: 'Open connections per client address and listener (raise it behind a TCP load balancer).',
        }),
        shutdown_drain: Type.String({
          ...Duration,
          default: '1s',
          description:
            'On SIGTERM a proxy on a shared store first answers 503 on /webapi/ping for this long, still serving, so a ' +
            'load balancer checking it takes the instance out before its listeners close (haproxy: inter × fall).',
        }),
      },
      { additionalProperties: false, default: {} },
    ),
    // The same for the SSH, PostgreSQL and Kubernetes listeners, where nobody is authenticated until a
    // handshake is done: idle sockets must not pile up to the process's open-file limit
    // (src/net/listener-limits.ts).
    proxy: Type.Object(
      {
        handshake_timeout: Type.String({
          ...Duration,
          default: '60s',
          description:
            'SSH banner and authentication, PostgreSQL startup and authentication, or the TLS handshake and first ' +
            'request on the Kubernetes listener must be done within this (at least 1s), else the connection is closed.',
        }),
        session_idle_timeout: Type.Optional(
          Type.String({
            ...Duration,
            description:
              'A proxied session (SSH shell, exec or forward; PostgreSQL connection; Kubernetes exec or port-forward) ' +
              'with no bytes either way this long is ended, and the user told why (at least 1s). Absent: no idle limit.',
          }),
        ),
        max_connections: Type.Integer({
          minimum: 1,
          default: 10_000,
          description: 'Open connections per proxy listener (SSH, PostgreSQL, Kubernetes); more are closed at once.',
        }),
        max_connections_per_source: Type.Integer({
          minimum: 1,
          default: 256,
          description:
            'Open connections per client address (an IPv6 /64) and proxy listener (raise it behind a TCP load balancer).',
        }),
        fd_reserve: Type.Integer({
          minimum: 16,
          default: 2048,
          description:
            "File descriptors the public listeners (web, SSH, PostgreSQL, Kubernetes) leave to the rest of the process: they share the process's open-file limit less this, so the auth API, the stores and upstream connections keep room.",
        }),
      },
      { additionalProperties: false, default: {} },
    ),
    login_throttle: Type.Object(
      {
        max_failures: Type.Integer({ minimum: 1, default: 10 }),
        window: Type.String({ ...Duration, default: '1m' }),
      },
      { additionalProperties: false, default: {} },
    ),
    sqlite: Type.Object(
      {
        synchronous: Type.Union([Type.Literal('FULL'), Type.Literal('NORMAL')], { default: 'FULL' }),
      },
      { additionalProperties: false, default: {} },
    ),
    webhook_allowed_hosts: Type.Array(Type.String({ minLength: 1, maxLength: 253 }), {
      maxItems: 64,
      default: [],
      description: 'Hosts exempt from the webhook URL policy (https only, no private or loopback addresses).',
    }),
    webhooks: Type.Object(
      {
        deliver: Type.Boolean({
          default: true,
          description: 'Whether this instance competes to deliver webhooks (false: never sends any).',
        }),
        timeout: Type.String({ ...Duration, default: '5s', description: 'Per delivery attempt.' }),
        retry_schedule: Type.Array(Duration, {
          maxItems: 20,
          default: ['5s', '30s', '2m', '10m', '30m', '1h'],
          description: 'Upper bounds of the (fully jittered) waits before each retry; then the delivery fails.',
        }),
        disable_after_failures: Type.Integer({
          minimum: 1,
          default: 5,
          description: 'Consecutive failed deliveries after which a webhook is disabled.',
        }),
        delivery_retention: Type.String({ ...Duration, default: '7d' }),
        poll_interval: Type.String({ ...Duration, default: '500ms', description: 'How often new events are read.' }),
        concurrency: Type.Integer({ minimum: 1, maximum: 256, default: 16, description: 'Attempts in flight.' }),
      },
      { additionalProperties: false, default: {} },
    ),
  },
  { additionalProperties: false },
);

export type Config = Static<typeof ConfigSchema>;
