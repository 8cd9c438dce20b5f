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

export const Labels = Type.Record(
  Type.String({ minLength: 1, maxLength: 63, pattern: '^[A-Za-z0-9][A-Za-z0-9._/-]*$' }),
  Type.String({ maxLength: 255 }),
  { maxProperties: 64, description: 'Free-form key/value labels that RBAC selectors match' },
);

/** An OpenSSH public key line; RSA 16384 is under 3 KB, so 8 KB leaves room for a long comment. */
export const publicKeyLine = (description: string) => Type.String({ minLength: 1, maxLength: 8192, description });
