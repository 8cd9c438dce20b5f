// A database's upstream credentials: the passwords Gatehouse logs in with (per database user), the
// login that read-only sessions run as, an optional client certificate and key, and the CA that the
// server's certificate must chain to (TLS verify-full). Secrets are sealed with the data dir's key,
// bound to the database id, and kept apart from the resource record; the API answers only which
// kinds are set, never a value.
import { X509Certificate } from 'node:crypto';
import { type Static, Type } from '@sinclair/typebox';
import { invalidField } from '../lib/errors.js';
import type { SecretBox } from '../lib/secret-box.js';

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
    read_only_login: Type.Optional(
      Type.Object(
        {
          name: Type.String({ minLength: 1, maxLength: 63, description: 'The database login (role) name' }),
          password: Type.Optional(
            Type.String({
              minLength: 1,
              maxLength: 1024,
              description: 'Its password, if the server asks for one (sealed at rest, never answered)',
            }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    client_cert_pem: Type.Optional(Pem('A client certificate (PEM) to present, with client_key_pem (needs ca_pem)')),
    client_key_pem: Type.Optional(Pem('The client certificate’s private key (PEM)')),
  },
  {
    additionalProperties: false,
    description:
      'read_only_login: the database login that sessions under the role option db_read_only run as, whatever db_user they ask for. It must hold no write privilege (e.g. granted pg_read_all_data only, PostgreSQL 14+): parsing SQL cannot keep a session read-only, the server must. Without it such sessions are refused',
  },
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
    read_only_login: Type.Optional(
      Type.Object(
        {
          name: Type.String({ description: 'The login db_read_only sessions run as' }),
          password: Type.Boolean({ description: 'Whether Gatehouse holds a password for it' }),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

export interface DbSecret {
  ca_pem?: string;
  /** Database user → sealed password. */
  passwords_sealed?: Record<string, string>;
  client_cert_pem?: string;
  client_key_sealed?: string;
  /** The login read-only sessions run as, its password sealed. */
  read_only_login?: { name: string; password_sealed?: string };
}

/** What the database proxy needs to log in as one database user (in memory only). */
export interface DbUpstream {
  /** The database user to log in as (a read-only session's is the read-only login). */
  user: string;
  password?: string;
  tls?: { ca: string; cert?: string; key?: string };
}

const sealContext = (dbId: string, what: string) => `db-upstream-${what}:${dbId}`;

/** A PEM certificate field of a registration, parsed; invalid_request naming the field otherwise. */
export function pemCertificate(pem: string, path: string): X509Certificate {
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
  const ca = input.ca_pem === undefined ? undefined : pemCertificate(input.ca_pem, '/body/db/ca_pem');
  if ((input.client_cert_pem === undefined) !== (input.client_key_pem === undefined))
    throw invalidField('/body/db', 'client_cert_pem and client_key_pem go together');
  if (input.client_cert_pem !== undefined) {
    if (!ca) throw invalidField('/body/db/ca_pem', 'is required with a client certificate (it is sent over TLS)');
    pemCertificate(input.client_cert_pem, '/body/db/client_cert_pem');
  }
  const secret: DbSecret = {};
  const names = new Set<string>();
  for (const [i, u] of (input.users ?? []).entries()) {
    if (names.has(u.name)) throw invalidField(`/body/db/users/${i}/name`, `${u.name} is given twice`);
    names.add(u.name);
    secret.passwords_sealed ??= {};
    secret.passwords_sealed[u.name] = box.seal(u.password, sealContext(dbId, `password-${u.name}`));
  }
  const readOnly = input.read_only_login;
  if (readOnly) {
    // One password per login: were it also under users, which one the server gets would be a guess.
    if (names.has(readOnly.name))
      throw invalidField('/body/db/read_only_login/name', `${readOnly.name} is also in users: give it once, here`);
    secret.read_only_login = {
      name: readOnly.name,
      ...(readOnly.password === undefined
        ? {}
        : { password_sealed: box.seal(readOnly.password, sealContext(dbId, 'read-only-password')) }),
    };
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
      ...(readOnly ? { read_only_login: { name: readOnly.name, password: readOnly.password !== undefined } } : {}),
    },
  };
}

/** Whether anything sealed is held: a password (a user's or the read-only login's) or a client key. */
export function holdsDbSecrets(secret: DbSecret | undefined): boolean {
  if (!secret) return false;
  return (
    Object.keys(secret.passwords_sealed ?? {}).length > 0 ||
    secret.read_only_login?.password_sealed !== undefined ||
    secret.client_key_sealed !== undefined
  );
}

function openTls(box: Pick<SecretBox, 'open'>, dbId: string, secret: DbSecret): DbUpstream['tls'] {
  if (!secret.ca_pem) return undefined;
  return {
    ca: secret.ca_pem,
    ...(secret.client_cert_pem ? { cert: secret.client_cert_pem } : {}),
    ...(secret.client_key_sealed ? { key: box.open(secret.client_key_sealed, sealContext(dbId, 'client-key')) } : {}),
  };
}

/** How to log in as `dbUser` (read-write sessions). */
export function openDbUpstream(
  box: Pick<SecretBox, 'open'>,
  dbId: string,
  secret: DbSecret,
  dbUser: string,
): DbUpstream {
  const readOnly = secret.read_only_login;
  if (readOnly?.name === dbUser) return openDbReadOnly(box, dbId, secret) as DbUpstream;
  const sealed = secret.passwords_sealed?.[dbUser];
  const tls = openTls(box, dbId, secret);
  return {
    user: dbUser,
    ...(sealed ? { password: box.open(sealed, sealContext(dbId, `password-${dbUser}`)) } : {}),
    ...(tls ? { tls } : {}),
  };
}

/** How a read-only session logs in: as the read-only login; undefined when none is registered. */
export function openDbReadOnly(box: Pick<SecretBox, 'open'>, dbId: string, secret: DbSecret): DbUpstream | undefined {
  const login = secret.read_only_login;
  if (!login) return undefined;
  const tls = openTls(box, dbId, secret);
  return {
    user: login.name,
    ...(login.password_sealed
      ? { password: box.open(login.password_sealed, sealContext(dbId, 'read-only-password')) }
      : {}),
    ...(tls ? { tls } : {}),
  };
}
