// Data shapes every domain shares (TypeBox: validation, types and OpenAPI from one definition).
import { Type } from '@sinclair/typebox';

export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601, UTC' });

export const Name = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: '^[A-Za-z0-9][A-Za-z0-9._@-]*$',
  description: 'Letters, digits and . _ @ -, starting with a letter or digit',
});

export const Description = Type.String({ maxLength: 1024 });

/** Who created a credential; null on ones created before creators were recorded. */
export const CreatedBy = Type.Union(
  [
    Type.Object(
      {
        kind: Type.String({ description: 'user | agent | system' }),
        id: Type.Optional(Type.String()),
      },
      { additionalProperties: false },
    ),
    Type.Null(),
  ],
  { description: 'Who created it: a user, an agent, or Gatehouse itself (system)' },
);

/**
 * Text without NUL and without lone UTF-16 surrogates (ajv compiles patterns with the u flag, under
 * which a surrogate range matches only unpaired halves): such strings cannot be stored, logged or
 * matched faithfully, and no client means them.
 */
export const PLAIN_TEXT_PATTERN = '^[^\\u0000\\uD800-\\uDFFF]*$';

/** A TCP port, 1–65535, in decimal without leading zeros (for patterns; port 0 means "any" only in config). */
export const PORT_PATTERN = '(?:6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3})';

/** A resource's network address: host, [IPv6] or https://host, and an optional port. */
export const ADDRESS_PATTERN = `^(https://)?(\\[[0-9a-fA-F:.]+\\]|[A-Za-z0-9._-]+)(:${PORT_PATTERN})?$`;

export const LABEL_KEY_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._/-]*$';

// Keys are validated by propertyNames and anything else is refused (additionalProperties: false):
// patternProperties alone let a bad key in, and the response serializer then dropped it from every
// answer while filters still found it.
export const Labels = Type.Record(
  Type.String({ minLength: 1, maxLength: 63, pattern: LABEL_KEY_PATTERN }),
  Type.String({ maxLength: 255, pattern: PLAIN_TEXT_PATTERN }),
  {
    maxProperties: 64,
    additionalProperties: false,
    propertyNames: { minLength: 1, maxLength: 63, pattern: LABEL_KEY_PATTERN },
    description:
      'Free-form key/value labels that RBAC selectors match. Keys: 1–63 letters, digits and . _ / -, starting with a letter or digit',
  },
);

/** An OpenSSH public key line; RSA 16384 is under 3 KB, so 8 KB leaves room for a long comment. */
export const publicKeyLine = (description: string) => Type.String({ minLength: 1, maxLength: 8192, description });
