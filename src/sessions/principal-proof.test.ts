// The SSH side of the principal's proof (issue 29), played as a hostile proxy would: it holds what a
// client once sent (key, signature, signed data) and tries it again, for another login, with a
// forged signature, or in another principal's name. The token and ticket sides are covered over the
// cluster's internal API (test/cluster-secrets.test.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Principal } from '../auth/principal.js';
import type { PrincipalRef } from '../auth/records.js';
import { generateEd25519 } from '../lib/ssh-keygen.js';
import { createPrincipalProofs, type PrincipalProof, type ProofGrounds } from './principal-proof.js';

/** A state store of one map: insert refuses a key that is there, as the real one does. */
function memoryState() {
  const items = new Map<string, unknown>();
  return {
    get: (key: string) => (items.has(key) ? { key, value: items.get(key), revision: '1' } : undefined),
    async insert(key: string, value: unknown) {
      if (items.has(key)) throw new Error(`${key} exists`);
      items.set(key, value);
    },
    async remove(key: string) {
      items.delete(key);
    },
  };
}

// generateEd25519: ssh2's own generator makes a malformed key about once in 256 (lib/ssh-keygen.ts).
const keyPair = () => {
  const { key } = generateEd25519();
  return { priv: key, blob: key.getPublicSSH() };
};
const alice = keyPair();
const bob = keyPair();
const owners = new Map<string, PrincipalRef & { keyId: string }>([
  [alice.blob.toString('base64'), { kind: 'user', id: 'user_alice', keyId: 'key_a' }],
  [bob.blob.toString('base64'), { kind: 'user', id: 'user_bob', keyId: 'key_b' }],
]);

const proofs = createPrincipalProofs({
  state: memoryState() as never,
  clock: () => Date.now(),
  tokens: {
    resolve() {
      throw new Error('no tokens here');
    },
  },
  pipeline: {
    tryResolve: (ref: PrincipalRef, scope: { ssh_key_id?: string }) =>
      ({
        kind: ref.kind,
        id: ref.id,
        name: ref.id.slice(5),
        roles: [],
        ...(scope.ssh_key_id ? { sshKeyId: scope.ssh_key_id } : {}),
      }) as unknown as Principal,
  } as never,
  findKeyOwner: (blob) => owners.get(blob.toString('base64')),
});

/**
 * An RFC 4252 §7 publickey request for `user`, signed with the key: what a client sends. Ed25519
 * signatures are deterministic: another connection (session id) is what makes another signature.
 */
function signedLogin(k: ReturnType<typeof keyPair>, user: string, connection = 7): PrincipalProof {
  const str = (b: Buffer | string) => {
    const v = Buffer.from(b);
    const n = Buffer.alloc(4);
    n.writeUInt32BE(v.length);
    return Buffer.concat([n, v]);
  };
  const data = Buffer.concat([
    str(Buffer.alloc(32, connection)), // session id
    Buffer.from([50]),
    str(user),
    str('ssh-connection'),
    str('publickey'),
    Buffer.from([1]),
    str('ssh-ed25519'),
    str(k.blob),
  ]);
  const signature = k.priv.sign(data);
  return {
    kind: 'ssh_key',
    key: k.blob.toString('base64'),
    signature: Buffer.from(signature).toString('base64'),
    data: data.toString('base64'),
  };
}

const grounds = (id: string, keyId: string, login = 'root'): ProofGrounds => ({
  principal: { kind: 'user', id },
  origin: { method: 'publickey', ssh_key_id: keyId, scope: {} },
  resource: { id: 'srv_web', name: 'web' },
  login,
});

test("alice's signature over root@web proves her once; a replay is refused as reused", async () => {
  const proof = signedLogin(alice, 'root@web');
  assert.equal(await proofs.verify(proof, grounds('user_alice', 'key_a')), undefined, 'positive control');
  assert.equal((await proofs.verify(proof, grounds('user_alice', 'key_a')))?.reason, 'proof_reused');
});

test('a signature over another login or server is not a proof for this one', async () => {
  const proof = signedLogin(alice, 'deploy@web');
  assert.equal((await proofs.verify(proof, grounds('user_alice', 'key_a', 'root')))?.reason, 'proof_other_principal');
  const elsewhere = signedLogin(alice, 'root@db');
  assert.equal((await proofs.verify(elsewhere, grounds('user_alice', 'key_a')))?.reason, 'proof_other_principal');
});

test('a forged signature, or one by a key that is not the one sent, is invalid', async () => {
  const proof = signedLogin(alice, 'root@web') as Extract<PrincipalProof, { kind: 'ssh_key' }>;
  const forged = Buffer.from(proof.signature, 'base64');
  forged[0] = (forged[0] as number) ^ 0xff;
  const flipped = { ...proof, signature: forged.toString('base64') };
  assert.equal((await proofs.verify(flipped, grounds('user_alice', 'key_a')))?.reason, 'proof_invalid');
  // Bob's signature over a request naming alice's key.
  const bobs = signedLogin(bob, 'root@web') as Extract<PrincipalProof, { kind: 'ssh_key' }>;
  const mixed = { ...signedLogin(alice, 'root@web'), signature: bobs.signature };
  assert.equal((await proofs.verify(mixed, grounds('user_alice', 'key_a')))?.reason, 'proof_invalid');
});

test("bob's real proof does not stand for alice; no proof at all is missing", async () => {
  const proof = signedLogin(bob, 'root@web');
  assert.equal((await proofs.verify(proof, grounds('user_alice', 'key_a')))?.reason, 'proof_other_principal');
  assert.equal((await proofs.verify(undefined, grounds('user_alice', 'key_a')))?.reason, 'proof_missing');
  // Positive control: bob's proof from another connection, for bob as bob.
  assert.equal(await proofs.verify(signedLogin(bob, 'root@web', 8), grounds('user_bob', 'key_b')), undefined);
});
