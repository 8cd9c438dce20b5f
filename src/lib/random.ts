// Small random values drawn from a pooled buffer of the CSPRNG's output, as Node's own randomUUID
// does: on these VMs each synchronous crypto.randomBytes costs ~10 µs whatever its size (the
// getrandom call), and a login drew three values, a request id one more. Filling 4 KiB at once costs
// ~21 µs, so each draw becomes a copy. Bytes are handed out once and wiped from the pool as they go;
// anything larger than a quarter of the pool goes straight to crypto.randomBytes.
import { randomBytes as cryptoRandomBytes, randomFillSync } from 'node:crypto';

const POOL_BYTES = 4096;
const pool = Buffer.allocUnsafeSlow(POOL_BYTES);
let offset = POOL_BYTES;

export function randomBytes(size: number): Buffer {
  if (size > POOL_BYTES / 4) return cryptoRandomBytes(size);
  if (offset + size > POOL_BYTES) {
    randomFillSync(pool);
    offset = 0;
  }
  const out = Buffer.allocUnsafe(size);
  pool.copy(out, 0, offset, offset + size);
  pool.fill(0, offset, offset + size);
  offset += size;
  return out;
}

/** `req_` and 32 hex digits (128 random bits), the id of one HTTP request in logs and problems. */
export function newRequestId(): string {
  return `req_${randomBytes(16).toString('hex')}`;
}
