// The signed-in person's live sessions (profile page): SSH, database, Kubernetes and app sessions
// of hers that are running now, where and since when, each with End. Through /v1/users/me/sessions,
// which lists only her own and needs no sessions:list; the list refreshes while it is open, so a
// session she starts or ends elsewhere shows up without a reload.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ok } from '../api/client';
import type { paths } from '../api/schema';
import { ConfirmButton } from './confirm';
import { When } from './my-logins';
import { QueryTable } from './query-table';
import { ProblemView } from './status';

const KEY = ['my-sessions'];
const PER_PAGE = 50;
type Session =
  paths['/v1/users/me/sessions']['get']['responses'][200]['content']['application/json']['sessions'][number];

const KINDS: Record<Session['kind'], string> = { ssh: 'SSH', db: 'Database', kube: 'Kubernetes', app: 'App' };

/** "ubuntu@web-1", "app@orders/orders", or the cluster or app alone. */
const where = (s: Session) =>
  s.kind === 'ssh'
    ? `${s.login}@${s.resource.name}`
    : s.kind === 'db'
      ? `${s.login}@${s.resource.name}/${s.db_name ?? ''}`
      : s.resource.name;

export function MySessions() {
  const queryClient = useQueryClient();
  const query = useQuery({
    queryKey: KEY,
    queryFn: () =>
      ok(api.GET('/v1/users/me/sessions', { params: { query: { status: 'active', per_page: PER_PAGE } } })),
    refetchInterval: 5000,
  });
  const end = useMutation({
    mutationFn: (s: Session) => ok(api.DELETE('/v1/users/me/sessions/{id}', { params: { path: { id: s.id } } })),
    onSettled: () => queryClient.invalidateQueries({ queryKey: KEY }),
  });
  return (
    <section aria-labelledby="my-sessions">
      <h2 id="my-sessions">Your active sessions</h2>
      {end.isError && <ProblemView error={end.error} title="Session not ended" />}
      <QueryTable
        query={query}
        what="your sessions"
        label="Your active sessions"
        items={(d) => d.sessions}
        empty="No session of yours is running."
        headers={['Where', 'What', 'From', 'Began', '']}
        row={(s) => (
          <tr key={s.id}>
            <td>
              {KINDS[s.kind]}: {where(s)}
            </td>
            <td>{s.command ? `${s.type}: ${s.command}` : s.type}</td>
            <td>{s.remote_addr}</td>
            <td>
              <When iso={s.started_at} />
            </td>
            <td>
              <ConfirmButton label="End" confirmLabel="End it" onConfirm={() => end.mutate(s)} />
            </td>
          </tr>
        )}
        footer={(d) =>
          d.pagination.total > d.sessions.length ? (
            <p className="muted">
              The {d.sessions.length} newest of {d.pagination.total} shown.
            </p>
          ) : null
        }
      />
    </section>
  );
}
