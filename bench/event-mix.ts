// The audit benchmarks' event mix, one definition for both (bench/audit-ingest.ts writes it through
// the stores, bench/audit-query-large.ts generates it in SQL): roughly a busy deployment, where token
// traffic dominates, and ACTORS principals of which actor i has weight 1/(i+1) (Zipf: the busiest has
// ~19% of events).
export const TYPES: Array<[string, number]> = [
  ['auth.token.issued', 30],
  ['auth.token.refreshed', 12],
  ['auth.token.revoked', 2],
  ['auth.login.failed', 5],
  ['auth.refresh.reused', 0.2],
  ['auth.login.throttled', 0.8],
  ['session.start', 10],
  ['session.end', 10],
  ['session.rejected', 2],
  ['access.allowed', 10],
  ['access.denied', 4],
  ['recording.uploaded', 8],
  ['user.created', 1],
  ['user.api_key.created', 1],
  ['role.updated', 1],
  ['resource.created', 1],
  ['agent.credentials.issued', 2],
];

export const ACTORS = 100;

/** Actor i's id: every fifth an agent. */
export const actorId = (i: number): string =>
  i % 5 === 4 ? `agent_${String(i).padStart(12, '0')}` : `user_${String(i).padStart(13, '0')}`;
