// The audit log, filtered on the server with every filter the API has, all kept in the URL so a
// search can be shared; newest first, more loaded with the cursor as the list is scrolled; each
// event's detail; NDJSON export of the current filter.
import { useInfiniteQuery } from '@tanstack/react-query';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { useSearchParams } from 'react-router';
import { api, download, ok } from '../api/client';
import type { paths } from '../api/schema';
import { eventSummary, relativeTime } from '../components/event-summary';
import { SelectField, TextField } from '../components/field';
import { parseList } from '../components/labels';
import { Empty, Loading, ProblemView } from '../components/status';

const TEXT_FILTERS = [
  ['actor', 'Actor', 'user_… or agent_…'],
  ['target', 'Target', 'id'],
  ['session_id', 'Session', 'sess_…'],
] as const;
const PER_PAGE = 50;

type Filters = {
  type: string[];
  actor?: string;
  actor_kind?: 'user' | 'agent' | 'system' | 'anonymous';
  target?: string;
  session_id?: string;
  success?: boolean;
  from?: string;
  to?: string;
};

function filtersOf(params: URLSearchParams): Filters {
  const f: Filters = { type: params.getAll('type') };
  for (const [k] of TEXT_FILTERS) {
    const v = params.get(k);
    if (v) f[k] = v;
  }
  const kind = params.get('actor_kind');
  if (kind) f.actor_kind = kind as Filters['actor_kind'];
  const success = params.get('success');
  if (success === 'true' || success === 'false') f.success = success === 'true';
  for (const k of ['from', 'to'] as const) {
    const v = params.get(k);
    if (v) f[k] = v;
  }
  return f;
}

/** The API's query for these filters (the `type` array only when it has items). */
function queryOf(f: Filters) {
  const { type, ...rest } = f;
  return { ...rest, ...(type.length ? { type } : {}) };
}

// datetime-local inputs speak local time without a zone; the URL and the API speak ISO 8601 UTC.
const toLocalInput = (iso?: string) => {
  if (!iso) return '';
  const d = new Date(iso);
  return Number.isNaN(d.getTime())
    ? ''
    : new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};
const fromLocalInput = (v: string) => (v ? new Date(v).toISOString() : '');

export function AuditPage() {
  const [params, setParams] = useSearchParams();
  const filters = filtersOf(params);
  const [exportError, setExportError] = useState<unknown>();
  const events = useInfiniteQuery({
    queryKey: ['events', filters],
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) =>
      ok(
        api.GET('/v1/events', {
          params: {
            query: { ...queryOf(filters), page: 1, per_page: PER_PAGE, ...(pageParam ? { cursor: pageParam } : {}) },
          },
        }),
      ),
    getNextPageParam: (last) => last.next_cursor ?? undefined,
  });
  const exportNdjson = () => {
    const q = new URLSearchParams(params);
    q.set('format', 'ndjson');
    download(`/v1/events?${q}`, 'gatehouse-events.ndjson').catch(setExportError);
  };
  const total = events.data?.pages[0]?.pagination;
  const rows = events.data?.pages.flatMap((p) => p.events) ?? [];
  return (
    <section>
      <div className="title-row">
        <h1>Audit log</h1>
        <button type="button" onClick={exportNdjson}>
          Export NDJSON
        </button>
      </div>
      {exportError !== undefined && <ProblemView error={exportError} title="Export failed" />}
      <AuditFilters key={params.toString()} params={params} onApply={setParams} />
      {events.isPending ? (
        <Loading what="events" />
      ) : rows.length === 0 && events.isError ? (
        <ProblemView error={events.error} />
      ) : rows.length === 0 ? (
        <Empty>No events match.</Empty>
      ) : (
        <>
          {total && (
            <p className="muted" data-testid="event-total">
              {total.total === total.total_limit ? `At least ${total.total}` : total.total} matching events
            </p>
          )}
          <table aria-label="Events">
            <thead>
              <tr>
                <th>Time</th>
                <th>Type</th>
                <th>Actor</th>
                <th>Target</th>
                <th>Summary</th>
                <th>Outcome</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((e) => (
                <EventRow key={e.id} event={e} />
              ))}
            </tbody>
          </table>
          <MoreOnScroll
            hasMore={events.hasNextPage}
            loading={events.isFetchingNextPage}
            onMore={() => void events.fetchNextPage()}
          />
          {events.isFetchNextPageError && <ProblemView error={events.error} title="More events could not be loaded" />}
        </>
      )}
    </section>
  );
}

/** The filter form, made anew whenever the URL changes (back, forward, a shared link). */
function AuditFilters({ params, onApply }: { params: URLSearchParams; onApply: (p: URLSearchParams) => void }) {
  const filters = filtersOf(params);
  const [form, setForm] = useState(() => ({
    type: filters.type.join(', '),
    actor: filters.actor ?? '',
    target: filters.target ?? '',
    session_id: filters.session_id ?? '',
    actor_kind: filters.actor_kind ?? '',
    success: filters.success === undefined ? '' : String(filters.success),
    from: toLocalInput(filters.from),
    to: toLocalInput(filters.to),
  }));
  const apply = (e: FormEvent) => {
    e.preventDefault();
    const next = new URLSearchParams();
    for (const t of parseList(form.type)) next.append('type', t);
    for (const [k] of TEXT_FILTERS) if (form[k].trim()) next.set(k, form[k].trim());
    if (form.actor_kind) next.set('actor_kind', form.actor_kind);
    if (form.success) next.set('success', form.success);
    if (form.from) next.set('from', fromLocalInput(form.from));
    if (form.to) next.set('to', fromLocalInput(form.to));
    onApply(next);
  };
  return (
    <form className="filters" aria-label="Filter events" onSubmit={apply}>
      <TextField
        label="Event types"
        value={form.type}
        onChange={(v) => setForm({ ...form, type: v })}
        placeholder="session.*, auth.token.issued"
      />
      {TEXT_FILTERS.map(([k, label, hint]) => (
        <TextField
          key={k}
          label={label}
          value={form[k]}
          onChange={(v) => setForm({ ...form, [k]: v })}
          placeholder={hint}
        />
      ))}
      <SelectField
        label="Actor kind"
        value={form.actor_kind}
        onChange={(v) => setForm({ ...form, actor_kind: v })}
        options={[
          ['', 'Any'],
          ['user', 'User'],
          ['agent', 'Agent'],
          ['system', 'System'],
          ['anonymous', 'Anonymous'],
        ]}
      />
      <SelectField
        label="Outcome"
        value={form.success}
        onChange={(v) => setForm({ ...form, success: v })}
        options={[
          ['', 'Any'],
          ['true', 'Succeeded'],
          ['false', 'Failed or denied'],
        ]}
      />
      <TextField label="From" type="datetime-local" value={form.from} onChange={(v) => setForm({ ...form, from: v })} />
      <TextField label="To" type="datetime-local" value={form.to} onChange={(v) => setForm({ ...form, to: v })} />
      <button type="submit">Search</button>
    </form>
  );
}

type EventItem = paths['/v1/events']['get']['responses'][200]['content']['application/json']['events'][number];

function EventRow({ event }: { event: EventItem }) {
  const [open, setOpen] = useState(false);
  const e = event;

  return (
    <>
      <tr>
        <td>
          <time dateTime={e.time} title={new Date(e.time).toLocaleString()}>
            {relativeTime(e.time)}
          </time>
        </td>
        <td>
          <button type="button" className="link" aria-expanded={open} onClick={() => setOpen(!open)}>
            {e.type}
          </button>
        </td>
        <td>{e.actor.name ?? e.actor.id ?? e.actor.kind}</td>
        <td>{e.target ? (e.target.name ?? e.target.id) : ''}</td>
        <td className="summary">{eventSummary(e)}</td>
        <td>{e.success ? 'ok' : 'failed'}</td>
      </tr>
      {open && (
        <tr>
          <td colSpan={6}>
            <section aria-label={`Event ${e.id}`}>
              <pre className="event-detail">{JSON.stringify(event, null, 2)}</pre>
            </section>
          </td>
        </tr>
      )}
    </>
  );
}

/** Loads the next page when its sentinel scrolls into view; the button does the same by keyboard. */
function MoreOnScroll({ hasMore, loading, onMore }: { hasMore: boolean; loading: boolean; onMore: () => void }) {
  const sentinel = useRef<HTMLDivElement>(null);
  const more = useRef(onMore);
  more.current = onMore;
  useEffect(() => {
    const el = sentinel.current;
    if (!el || !hasMore) return;
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((x) => x.isIntersecting)) more.current();
    });
    observer.observe(el);
    return () => observer.disconnect();
  }, [hasMore]);
  if (!hasMore) return <p className="muted">End of the log for this search.</p>;
  return (
    <div ref={sentinel} className="more">
      <button type="button" onClick={onMore} disabled={loading}>
        {loading ? 'Loading more…' : 'Load more events'}
      </button>
    </div>
  );
}
