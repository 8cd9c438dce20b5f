import { Type } from '@sinclair/typebox';
import { idPattern } from '../../lib/ids.js';
import { CreatedBy, publicKeyLine, Timestamp } from '../../lib/shapes.js';
import { SSH_KEY_TYPES } from '../../ssh-keys/ssh-public-key.js';
import { listQuery, listResponse, pathId } from '../schemas.js';
import { UserRef } from '../users/users.schema.js';

export const SshKeyId = Type.String({ pattern: idPattern('sshKey'), maxLength: 40, description: 'sshkey_…' });

export const CreateSshKey = Type.Object(
  {
    public_key: publicKeyLine(
      `One OpenSSH public key line, e.g. "ssh-ed25519 AAAA… comment" (${SSH_KEY_TYPES.join(', ')}; RSA ≥ 2048 bits)`,
    ),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 64, pattern: '^[^\\x00-\\x1f\\x7f\\uD800-\\uDFFF]+$' })),
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

export const UserSshKeyParams = Type.Object({ id: UserRef, key_id: pathId('sshKey') }, { additionalProperties: false });
export const AgentSshKeyParams = Type.Object(
  { id: pathId('agent'), key_id: pathId('sshKey') },
  { additionalProperties: false },
);
