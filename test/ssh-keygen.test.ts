// ssh2 1.17's generator drops leading zero bytes of ed25519 public keys (mscdex/ssh2#1390): about
// 1 key in 256 cannot even be parsed by ssh2 itself. Host keys, per-server keys and CA keys all come
// from generateEd25519, which must never hand out such a key.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import ssh2 from 'ssh2';
import { generateEd25519 } from '../src/lib/ssh-keygen.js';

test('every generated ed25519 pair parses, private and public, with a 32-byte key', () => {
  // 2,000 keys: with a 1/256 defect rate, raw ssh2 output fails this with probability > 99.9 %.
  for (let i = 0; i < 2000; i++) {
    const pair = generateEd25519('t');
    const priv = ssh2.utils.parseKey(pair.private);
    const pub = ssh2.utils.parseKey(pair.public);
    assert.ok(!(priv instanceof Error) && !(pub instanceof Error), `key ${i} does not parse`);
    const blob = (Array.isArray(pub) ? pub[0] : pub)?.getPublicSSH() as Buffer;
    assert.equal(blob.length, 4 + 'ssh-ed25519'.length + 4 + 32);
  }
});
