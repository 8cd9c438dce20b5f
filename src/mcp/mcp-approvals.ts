// Approvals bound to the exact call. A tools/call under options.mcp_require_approval is held, not
// sent: an approval is asked for the SHA-256 of the canonical JSON of {tool, arguments, principal}
// (mcp-calls.ts). Another principal who covers the requester's rights approves or denies it (never
// the requester itself); once approved, the same call — same tool, same arguments, same principal —
// passes once within the TTL (default 10 minutes); any other arguments need an approval of their own.
// The client learns where to approve through the protocol's URL elicitation: an input-required
// result on the 2026-07-28 revision, error -32042 on 2025-11-25.
import type { AuditLog } from '../audit/audit-log.js';
import type { Covering } from '../auth/covering.js';
import { actorOf, actorOfPrincipal, eventContext, type Principal, type RequestContext } from '../auth/principal.js';
import type { StateStore } from '../backend/state.js';
import { type Clock, isoTime } from '../lib/clock.js';
import { conflict, forbidden, notFound } from '../lib/errors.js';
import { newId } from '../lib/ids.js';
import { page } from '../lib/paging.js';
import { callDigest, recordedArguments } from './mcp-calls.js';

export const APPROVAL_TTL_MS = 10 * 60_000;

export type ApprovalStatus = 'pending' | 'approved' | 'denied' | 'used';

export interface ApprovalRecord {
  id: string;
  status: ApprovalStatus;
  app: { id: string; name: string };
  tool: string;
  /** SHA-256 (hex) of canonical {tool, arguments, principal}: what the approval is for, exactly. */
  digest: string;
  requester: { kind: 'user' | 'agent'; id: string; name: string };
  owner?: string;
  on_behalf_of?: { kind: string; id: string; name: string };
  /** What the approver is shown of the arguments (their names, or the values under mcp_record_arguments). */
  shown: Record<string, unknown>;
  created_at: string;
  expires_at: string;
  decided_by?: { kind: string; id: string; name: string };
  decided_at?: string;
}

const key = (id: string) => `mcp-approvals/${id}`;
const PREFIX = 'mcp-approvals/';

/** What a held call answers the client with, in the revision it speaks. */
export function heldAnswer(
  id: unknown,
  revision: string | undefined,
  approval: { id: string; url: string; tool: string },
): string {
  const message = `Gatehouse holds this call to ${approval.tool} until someone approves it`;
  const elicitation = { mode: 'url', elicitationId: approval.id, url: approval.url, message };
  // 2026-07-28 took elicitationId out of URL elicitation (the approval's id ends its URL).
  if (revision !== undefined && revision >= '2026-07-28')
    return JSON.stringify({
      jsonrpc: '2.0',
      id,
      result: {
        resultType: 'input_required',
        inputRequests: {
          gatehouse_approval: { method: 'elicitation/create', params: { mode: 'url', url: approval.url, message } },
        },
      },
    });
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    error: { code: -32042, message: `${message}: ${approval.url}`, data: { elicitations: [elicitation] } },
  });
}

export type McpApprovals = ReturnType<typeof createMcpApprovals>;

export function createMcpApprovals(deps: {
  state: StateStore;
  audit: AuditLog;
  clock: Clock;
  covering: Pick<Covering, 'requirePrincipal'>;
  /** The console's page for one approval; undefined where no console URL is known. */
  approvalUrl: (id: string) => string;
  ttlMs?: number;
}) {
  const { state, audit, clock } = deps;
  const ttl = deps.ttlMs ?? APPROVAL_TTL_MS;
  const live = (r: ApprovalRecord) => Date.parse(r.expires_at) > clock();
  const all = () => state.list<ApprovalRecord>(PREFIX);

  // Whom an approval concerns: the requester, its owner, the person it acts for, and whoever may
  // manage such principals (agents:update, users:update); deciding still needs covering the requester.
  function concerns(ctx: RequestContext, r: ApprovalRecord): boolean {
    const p = ctx.principal;
    return (
      !!p &&
      ((p.kind === r.requester.kind && p.id === r.requester.id) ||
        (p.kind === 'user' && (p.id === r.owner || p.id === r.on_behalf_of?.id)) ||
        p.policy.can(r.requester.kind === 'agent' ? 'agents' : 'users', 'update').allowed)
    );
  }

  async function decide(ctx: RequestContext, id: string, to: 'approved' | 'denied'): Promise<ApprovalRecord> {
    const item = state.get<ApprovalRecord>(key(id));
    if (!item || !live(item.value)) throw notFound('approval', id);
    const r = item.value;
    const p = ctx.principal;
    if (p && p.kind === r.requester.kind && p.id === r.requester.id)
      throw forbidden('the principal that asked for an approval cannot give it');
    await deps.covering.requirePrincipal(
      ctx,
      { kind: r.requester.kind, id: r.requester.id },
      `${to === 'approved' ? 'approve' : 'deny'} a call of ${r.requester.name}`,
    );
    if (r.status !== 'pending') throw conflict(`approval ${id} is already ${r.status}`);
    const next: ApprovalRecord = {
      ...r,
      status: to,
      decided_by: p ? { kind: p.kind, id: p.id, name: p.name } : { kind: 'system', id: '', name: ctx.system ?? '' },
      decided_at: isoTime(clock()),
    };
    await state.replace(item.key, item.revision, next, { expiresAt: Date.parse(r.expires_at) });
    await audit.record({
      type: to === 'approved' ? 'mcp.approval.approved' : 'mcp.approval.denied',
      actor: actorOf(ctx),
      target: { kind: 'app', id: r.app.id, name: r.app.name },
      ...eventContext(ctx),
      data: { approval_id: r.id, tool: r.tool, digest: r.digest, requester: r.requester },
    });
    return next;
  }

  return {
    list(ctx: RequestContext, q: { page: number; per_page: number; status?: ApprovalStatus }) {
      const items = all()
        .map((i) => i.value)
        .filter((r) => live(r) && (q.status === undefined || r.status === q.status) && concerns(ctx, r))
        .sort((a, b) => (a.created_at < b.created_at ? 1 : -1));
      return page(items, q);
    },
    /** One approval, to whom it concerns (as the list); to anyone else it does not exist (404). */
    show(ctx: RequestContext, id: string): ApprovalRecord {
      const r = state.get<ApprovalRecord>(key(id))?.value;
      if (!r || !live(r) || !concerns(ctx, r)) throw notFound('approval', id);
      return r;
    },
    get(id: string): ApprovalRecord {
      const r = state.get<ApprovalRecord>(key(id))?.value;
      if (!r || !live(r)) throw notFound('approval', id);
      return r;
    },
    approve: (ctx: RequestContext, id: string) => decide(ctx, id, 'approved'),
    deny: (ctx: RequestContext, id: string) => decide(ctx, id, 'denied'),

    /**
     * A call that needs an approval: passes (its approval used, once) or is held (a pending approval
     * for exactly this call, reused while it waits).
     */
    async gate(call: {
      principal: Principal;
      app: { id: string; name: string };
      tool: string;
      arguments: unknown;
      revision: string | undefined;
      recordArguments: boolean;
      remoteAddr: string;
    }): Promise<
      { pass: string } | { held: { id: string; url: string; tool: string; answer: (rpcId: unknown) => string } }
    > {
      const p = call.principal;
      const digest = callDigest({ tool: call.tool, arguments: call.arguments, principal: `${p.kind}:${p.id}` });
      const mine = all().filter((i) => i.value.digest === digest && i.value.app.id === call.app.id && live(i.value));
      const held = (r: ApprovalRecord) => ({
        held: {
          id: r.id,
          url: deps.approvalUrl(r.id),
          tool: r.tool,
          answer: (rpcId: unknown) =>
            heldAnswer(rpcId, call.revision, { id: r.id, url: deps.approvalUrl(r.id), tool: r.tool }),
        },
      });
      for (const item of mine) {
        if (item.value.status !== 'approved') continue;
        try {
          // One use: the write that marks it used is conditional on its revision.
          await state.replace(
            item.key,
            item.revision,
            { ...item.value, status: 'used' },
            { expiresAt: Date.parse(item.value.expires_at) },
          );
        } catch {
          continue; // another call used it first
        }
        await audit.record({
          type: 'mcp.approval.used',
          actor: actorOfPrincipal(p),
          target: { kind: 'app', id: call.app.id, name: call.app.name },
          remote_addr: call.remoteAddr,
          data: { approval_id: item.value.id, tool: call.tool, digest },
        });
        return { pass: item.value.id };
      }
      const pending = mine.find((i) => i.value.status === 'pending');
      if (pending) return held(pending.value);
      const now = clock();
      const record: ApprovalRecord = {
        id: newId('approval', now),
        status: 'pending',
        app: { id: call.app.id, name: call.app.name },
        tool: call.tool,
        digest,
        requester: { kind: p.kind as 'user' | 'agent', id: p.id, name: p.name },
        ...(p.owner ? { owner: p.owner } : {}),
        ...(p.onBehalfOf ? { on_behalf_of: { ...p.onBehalfOf } } : {}),
        shown: recordedArguments(call.arguments, call.recordArguments),
        created_at: isoTime(now),
        expires_at: isoTime(now + ttl),
      };
      await state.insert(key(record.id), record, { expiresAt: now + ttl });
      await audit.record({
        type: 'mcp.approval.requested',
        actor: actorOfPrincipal(p),
        target: { kind: 'app', id: call.app.id, name: call.app.name },
        remote_addr: call.remoteAddr,
        data: { approval_id: record.id, tool: call.tool, digest },
      });
      return held(record);
    },
  };
}
