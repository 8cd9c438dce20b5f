// A stand-in for src/audit/open.ts in bench/serve-gatehouse-audit.ts's no-op mode (swapped in by
// bench/noop-audit-hooks.mjs): an audit store that keeps nothing, so that bench/audit-api.ts can
// measure what durable events cost the request rate. Bench-only: Gatehouse itself has no store that
// acknowledges an event it did not keep.
import type { AuditStore } from '../src/audit/types.js';

export async function openAuditStore(): Promise<AuditStore> {
  return {
    // Resolved on the next turn, not synchronously: a real store's append never resolves within the
    // caller's own turn either.
    append: () => new Promise((resolve) => setImmediate(resolve)),
    query: async () => ({ events: [] }),
    tail: async (position) => ({ events: [], position }),
    deleteBefore: async () => 0,
    ping: async () => {},
    close: async () => {},
  };
}
