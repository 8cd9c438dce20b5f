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
    backend_url: Type.Optional(Type.String({ minLength: 1 })),
    audit_url: Type.Optional(Type.String({ minLength: 1 })),
    bootstrap_api_key: Type.Optional(Type.String({ minLength: 32, maxLength: 512 })),
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
  },
  { additionalProperties: false },
);

export type Config = Static<typeof ConfigSchema>;
