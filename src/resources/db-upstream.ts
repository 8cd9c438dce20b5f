// A database's upstream credentials: the passwords Gatehouse logs in with (per database user), an
// optional client certificate and key, and the CA that the server's certificate must chain to (TLS
// verify-full). Secrets are sealed with the data dir's key, bound to the database id, and kept apart
// from the resource record; the API answers only which kinds are set, never a value.
import { X509Certificate } from 'node:crypto';
import { type Static, Type } from '@sinclair/typebox';
import { invalidField } from '../lib/errors.js';
import type { SecretBox } from '../webhooks/secret-box.js';

const Pem = (what: string) =>
  Type.String({ minLength: 1, maxLength: 16_384, pattern: '^-----BEGIN [A-Z ]+-----', description: what });

/** database only: how Gatehouse logs in to the database server. Sealed at rest, never answered. */
export const DbInput = Type.Object(
  {
    ca_pem: Type.Optional(
      Pem(
        "The database server's CA (PEM): Gatehouse then connects with TLS and verify-full (the certificate must chain to it and name the address's host). Without it the connection is plain, which only a loopback address allows",
      ),
    ),
    users: Type.Optional(
      Type.Array(
        Type.Object(
          {
            name: Type.String({ minLength: 1, maxLength: 63, description: 'A database user' }),
            password: Type.String({
              minLength: 1,
              maxLength: 1024,
              description: 'Its password (SCRAM-SHA-256, MD5 or cleartext, as the server asks)',
            }),
          },
          { additionalProperties: false },
        ),
        { maxItems: 64, description: 'Passwords per database user' },
      ),
    ),
    client_cert_pem: Type.Optional(Pem('A client certificate (PEM) to present, with client_key_pem (needs ca_pem)')),
    client_key_pem: Type.Optional(Pem('The client certificate’s private key (PEM)')),
  },
  { additionalProperties: false },
);

/** What the API says about a database's upstream credentials. */
export const DbSummary = Type.Object(
  {
    tls: Type.Union([Type.Literal('verify-full'), Type.Literal('off')], {
      description: 'verify-full: TLS against the registered CA; off: plain (loopback addresses only)',
    }),
    ca_fingerprint: Type.Optional(Type.String({ description: "SHA-256 fingerprint of the server's CA" })),
    client_certificate: Type.Boolean({ description: 'Whether a client certificate and key are set' }),
    password_users: Type.Array(Type.String(), { description: 'Database users Gatehouse holds a password for' }),
  },
  { additionalProperties: false },
);

export interface DbSecret {
  ca_pem?: string;
  /** Database user → sealed password. */
  passwords_sealed?: Record<string, string>;
  client_cert_pem?: string;
  client_key_sealed?: string;
}

/** What the database proxy needs to log in as one database user (in memory only). */
export interface DbUpstream {
  password?: string;
  tls?: { ca: string; cert?: string; key?: string };
}

const sealContext = (dbId: string, what: string) => `db-upstream-${what}:${dbId}`;

function certificate(pem: string, path: string): X509Certificate {
  try {
    return new X509Certificate(pem);
  } catch {
    throw invalidField(path, 'is not a PEM certificate');
  }
}

export function sealDbUpstream(
  box: Pick<SecretBox, 'seal'>,
  dbId: string,
  input: Static<typeof DbInput>,
): { secret: DbSecret; summary: Static<typeof DbSummary> } {
  const ca = input.ca_pem === undefined ? undefined : certificate(input.ca_pem, '/body/db/ca_pem');
  if ((input.client_cert_pem === undefined) !== (input.client_key_pem === undefined))
    throw invalidField('/body/db', 'client_cert_pem and client_key_pem go together');
  if (input.client_cert_pem !== undefined) {
    if (!ca) throw invalidField('/body/db/ca_pem', 'is required with a client certificate (it is sent over TLS)');
    certificate(input.client_cert_pem, '/body/db/client_cert_pem');
  }
  const secret: DbSecret = {};
  const names = new Set<string>();
  for (const [i, u] of (input.users ?? []).entries()) {
    if (names.has(u.name)) throw invalidField(`/body/db/users/${i}/name`, `${u.name} is given twice`);
    names.add(u.name);
    secret.passwords_sealed ??= {};
    secret.passwords_sealed[u.name] = box.seal(u.password, sealContext(dbId, `password-${u.name}`));
  }
  if (input.ca_pem !== undefined) secret.ca_pem = input.ca_pem;
  if (input.client_cert_pem !== undefined && input.client_key_pem !== undefined) {
    secret.client_cert_pem = input.client_cert_pem;
    secret.client_key_sealed = box.seal(input.client_key_pem, sealContext(dbId, 'client-key'));
  }
  return {
    secret,
    summary: {
      tls: ca ? 'verify-full' : 'off',
      ...(ca ? { ca_fingerprint: ca.fingerprint256 } : {}),
      client_certificate: secret.client_cert_pem !== undefined,
      password_users: [...names].sort(),
    },
  };
}

export function openDbUpstream(box: Pick<SecretBox, 'open'>, dbId: string, secret: DbSecret, dbUser: string) {
  const sealed = secret.passwords_sealed?.[dbUser];
  const upstream: DbUpstream = {
    ...(sealed ? { password: box.open(sealed, sealContext(dbId, `password-${dbUser}`)) } : {}),
  };
  if (secret.ca_pem) {
    upstream.tls = {
      ca: secret.ca_pem,
      ...(secret.client_cert_pem ? { cert: secret.client_cert_pem } : {}),
      ...(secret.client_key_sealed ? { key: box.open(secret.client_key_sealed, sealContext(dbId, 'client-key')) } : {}),
    };
  }
  return upstream;
}
