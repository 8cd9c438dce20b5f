// A person's own logins: each token family of theirs (one sign-in and its refreshes), where and how
// it began and when it was last refreshed, so they can end one they do not recognise, or all of them
// ("sign out everywhere"). Ending a login revokes every token of its family, the refresh token too,
// and the tokens exchanged from it (token-index.ts), so nothing of it can be renewed.
//
// How and where a login began is read from its auth.token.issued event (which names the family), not
// kept on its token records: those are held by every instance for every live login (issue 36), and a
// person's list of logins is asked for rarely.
import type { ServiceDeps } from '../audit/service-deps.js';
import type { AuditEvent } from '../audit/types.js';
import { GatehouseError } from '../lib/errors.js';
import { actorOf, eventContext, type Principal, type RequestContext } from './principal.js';
import type { TokenRecord } from './records.js';
import type { TokenIndex } from './token-index.js';

export interface Login {
  /** The login's family: the id to end it by. */
  id: string;
  via: 'api_key' | 'sso' | 'passkey' | 'unknown';
  address?: string;
  connector?: string;
  api_key_id?: string;
  console: boolean;
  started_at: string;
  last_refreshed_at: string;
  expires_at: string;
  /** Waiting for its second factor (a security key): it opens nothing yet. */
  pending: boolean;
  /** The login the caller is using now. */
  current: boolean;
}

export type LoginService = ReturnType<typeof createLoginService>;

export function createLoginService(
  deps: ServiceDeps & {
    index: Pick<TokenIndex, 'ofPrincipal' | 'ofFamily'>;
    /** How long a login may live (the refresh token's lifetime): how far back its start is looked for. */
    refreshTtlMs: number;
    revokeKeys(tokenKeys: string[]): Promise<number>;
  },
) {
  const { state, clock } = deps;

  /** The user's own live tokens, by family (a delegated agent's tokens are the agent's logins, not hers). */
  function families(userId: string): Map<string, TokenRecord[]> {
    const now = clock();
    const byFamily = new Map<string, TokenRecord[]>();
    for (const key of deps.index.ofPrincipal(userId)) {
      const record = state.get<TokenRecord>(key)?.value;
      if (record?.principal.kind !== 'user' || record.principal.id !== userId) continue;
      if (record.revoked_at !== undefined || record.expires_at <= now || record.used_at !== undefined) continue;
      byFamily.set(record.family, [...(byFamily.get(record.family) ?? []), record]);
    }
    return byFamily;
  }

  /** Each live login's first auth.token.issued event (where, how), from the audit trail. */
  async function origins(userId: string, live: Map<string, TokenRecord[]>): Promise<Map<string, AuditEvent>> {
    const found = new Map<string, AuditEvent>();
    let cursor: string | undefined;
    // Newest first; the oldest event of a family (its first factor, before any second step) wins.
    for (let pages = 0; pages < 10 && found.size <= live.size; pages++) {
      const page = await deps.audit.query({
        types: ['auth.token.issued'],
        actor: userId,
        from: clock() - deps.refreshTtlMs - 60_000,
        limit: 500,
        consistency: 'strong',
        ...(cursor ? { cursor } : {}),
      });
      for (const e of page.events) {
        const family = e.data?.family;
        if (typeof family === 'string' && live.has(family)) found.set(family, e);
      }
      if (!page.nextCursor) break;
      cursor = page.nextCursor;
    }
    return found;
  }

  function me(ctx: RequestContext): Principal {
    const p = ctx.principal;
    if (p?.kind !== 'user') throw new GatehouseError('forbidden', 'only a user has logins of their own here');
    return p;
  }

  async function end(ctx: RequestContext, toEnd: string[], scope: 'login' | 'all'): Promise<number> {
    const revoked = await deps.revokeKeys(toEnd.flatMap((family) => deps.index.ofFamily(family)));
    await deps.audit.record({
      type: 'auth.token.revoked',
      actor: actorOf(ctx),
      ...eventContext(ctx),
      data: {
        revoked_tokens: revoked,
        scope,
        ...(scope === 'login' ? { family: toEnd[0] } : { logins: toEnd.length }),
      },
    });
    return revoked;
  }

  return {
    /** The caller's logins, most recently refreshed first. */
    async list(ctx: RequestContext): Promise<Login[]> {
      const p = me(ctx);
      const iso = (ms: number) => new Date(ms).toISOString();
      const live = families(p.id);
      const began = await origins(p.id, live);
      return [...live]
        .map(([family, records]): Login => {
          const event = began.get(family);
          const data = event?.data ?? {};
          const via =
            data.via === 'sso' || data.via === 'passkey'
              ? data.via
              : event || records.some((r) => r.api_key_id)
                ? 'api_key'
                : 'unknown';
          return {
            id: family,
            via,
            ...(event?.remote_addr ? { address: event.remote_addr } : {}),
            ...(typeof data.connector === 'string' ? { connector: data.connector } : {}),
            ...(records[0]?.api_key_id ? { api_key_id: records[0].api_key_id } : {}),
            console: data.console === true,
            // The event is stamped as it is written, a moment after the login's first token.
            started_at: iso(
              Math.min(...records.map((r) => r.issued_at), event ? Date.parse(event.time) : Number.POSITIVE_INFINITY),
            ),
            last_refreshed_at: iso(Math.max(...records.map((r) => r.issued_at))),
            expires_at: iso(Math.max(...records.map((r) => r.expires_at))),
            pending: records.some((r) => r.mfa === 'pending'),
            current: p.token?.family === family,
          };
        })
        .sort((a, b) => b.last_refreshed_at.localeCompare(a.last_refreshed_at));
    },

    /** Ends one login of the caller's: its access and refresh tokens are revoked at once. */
    async revoke(ctx: RequestContext, family: string): Promise<{ revoked: number }> {
      const p = me(ctx);
      // Another person's login is answered as one that does not exist.
      if (!families(p.id).has(family)) throw new GatehouseError('not_found', 'you have no live login with this id');
      return { revoked: await end(ctx, [family], 'login') };
    },

    /** Sign out everywhere: every login of the caller's ends, the one asking included. */
    async revokeAll(ctx: RequestContext): Promise<{ revoked: number }> {
      const p = me(ctx);
      return { revoked: await end(ctx, [...families(p.id).keys()], 'all') };
    },
  };
}
