import { Type } from '@sinclair/typebox';
import { idPattern } from '../../lib/ids.js';
import { CreatedBy, listQuery, listResponse, Timestamp } from '../schemas.js';
import { SSH_KEY_TYPES } from './ssh-public-key.js';

export const SshKeyId = Type.String({ pattern: idPattern('sshKey'), maxLength: 40, description: 'sshkey_…' });

/** An OpenSSH public key line; RSA 16384 is under 3 KB, so 8 KB leaves room for a long comment. */
export const publicKeyLine = (description: string) => Type.String({ minLength: 1, maxLength: 8192, description });

export const CreateSshKey = Type.Object(
  {
    public_key: publicKeyLine(
      `One OpenSSH public key line, e.g. "ssh-ed25519 AAAA… comment" (${SSH_KEY_TYPES.join(', ')}; RSA ≥ 2048 bits)`,
    ),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 64, pattern: '^[^\\x00-\\x1f\\x7f]+$' })),
  },
  { additionalProperties: false },
);

export const SshKey = Type.Object(
  {
    id: SshKeyId,
    principal: Type.Object(
      { kind: Type.Union([Type.Literal('user'), Type.Literal('agent')]), id: Type.String() },
      { additionalProperties: false },
    ),
    type: Type.Union(SSH_KEY_TYPES.map((t) => Type.Literal(t))),
    fingerprint: Type.String({ description: 'SHA256:… as ssh-keygen -l prints it' }),
    comment: Type.String(),
    name: Type.Union([Type.String(), Type.Null()]),
    created_at: Timestamp,
    created_by: CreatedBy,
  },
  { additionalProperties: false },
);

export const SshKeyQuery = listQuery({});
export const SshKeyList = listResponse('ssh_keys', SshKey);

const params = (idPatternOf: 'user' | 'agent') =>
  Type.Object(
    { id: Type.String({ pattern: idPattern(idPatternOf), maxLength: 40 }), key_id: SshKeyId },
    { additionalProperties: false },
  );
export const UserSshKeyParams = params('user');
export const AgentSshKeyParams = params('agent');
