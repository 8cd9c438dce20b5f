// What the approvals pages show of one held MCP tool call (GET /v1/approvals): who asks on whose
// behalf, and the call's arguments exactly as the API answers them — as text (React escapes it),
// never as markup — or only their names when no role of the requester records argument values.
import { api, ok } from '../api/client';
import type { paths } from '../api/schema';

type Query = NonNullable<paths['/v1/approvals']['get']['parameters']['query']>;
export const listApprovals = (query: Query) => ok(api.GET('/v1/approvals', { params: { query } }));
export type Approval = Awaited<ReturnType<typeof listApprovals>>['approvals'][number];

/** "alice-bot (agent), owned by user_…, acting for alice (user)": the delegation chain. */
export function Chain({ approval: a }: { approval: Pick<Approval, 'requester' | 'owner' | 'on_behalf_of'> }) {
  return (
    <span>
      <strong>{a.requester.name}</strong> <span className="muted">({a.requester.kind})</span>
      {a.owner && (
        <>
          , owned by <code>{a.owner}</code>
        </>
      )}
      {a.on_behalf_of && (
        <>
          , acting for <strong>{a.on_behalf_of.name}</strong> <span className="muted">({a.on_behalf_of.kind})</span>
        </>
      )}
    </span>
  );
}

/** The arguments verbatim (JSON, as recorded), or their names only. */
export function Arguments({ shown, label }: { shown: Record<string, unknown>; label: string }) {
  if ('arguments' in shown)
    return (
      <section aria-label={label}>
        <pre className="event-detail">{JSON.stringify(shown.arguments, null, 2)}</pre>
      </section>
    );
  const names = Array.isArray(shown.argument_names) ? shown.argument_names.map(String) : [];
  return (
    <section aria-label={label}>
      {names.length ? names.join(', ') : 'none'}{' '}
      <span className="muted">(names only: no role of the requester sets mcp_record_arguments)</span>
    </section>
  );
}

export function When({ at }: { at: string }) {
  return (
    <time dateTime={at} title={at}>
      {new Date(at).toLocaleString()}
    </time>
  );
}
