// The signed-in person's live logins (profile page): how each began (API key, single sign-on,
// passkey), from where, when it began and was last refreshed; end one, or sign out everywhere. Ending
// a login revokes its refresh token too, so it cannot come back; ending the one in use signs out here.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { api, ok } from '../api/client';
import type { paths } from '../api/schema';
import { SESSION_KEY, signOut } from '../session';
import { ConfirmButton } from './confirm';
import { relativeTime } from './event-summary';
import { QueryTable } from './query-table';
import { ProblemView } from './status';

const KEY = ['my-logins'];
type Login = paths['/v1/users/me/logins']['get']['responses'][200]['content']['application/json']['logins'][number];

const how = (l: Login) =>
  [
    { api_key: 'API key', sso: 'Single sign-on', passkey: 'Passkey', unknown: 'Unknown' }[l.via],
    l.connector,
    l.console ? 'console' : 'API or command line',
    l.pending ? 'waiting for its security key' : '',
  ]
    .filter(Boolean)
    .join(' · ');

/** A time as "3 minutes ago", the viewer's local date and time on hover. */
export function When({ iso }: { iso: string }) {
  return (
    <time dateTime={iso} title={new Date(iso).toLocaleString()}>
      {relativeTime(iso)}
    </time>
  );
}

export function MyLogins() {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const query = useQuery({ queryKey: KEY, queryFn: () => ok(api.GET('/v1/users/me/logins')) });
  // This console's own login ended: its cookies go too, and the person signs in again.
  const signedOutHere = async () => {
    await signOut().catch(() => undefined);
    queryClient.clear();
    queryClient.setQueryData(SESSION_KEY, null);
    navigate('/login?signed_out=1', { replace: true });
  };
  const end = useMutation({
    mutationFn: (login: Login) =>
      ok(api.DELETE('/v1/users/me/logins/{login_id}', { params: { path: { login_id: login.id } } })).then(() => login),
    onSuccess: (login) => (login.current ? signedOutHere() : queryClient.invalidateQueries({ queryKey: KEY })),
  });
  const everywhere = useMutation({
    mutationFn: () => ok(api.DELETE('/v1/users/me/logins')),
    onSuccess: signedOutHere,
  });
  return (
    <section aria-labelledby="my-logins">
      <div className="title-row">
        <h2 id="my-logins">Your logins</h2>
        <ConfirmButton
          label="Sign out everywhere"
          confirmLabel="Sign out of every login"
          onConfirm={() => everywhere.mutate()}
        />
      </div>
      {end.isError && <ProblemView error={end.error} title="Login not ended" />}
      {everywhere.isError && <ProblemView error={everywhere.error} title="Not signed out everywhere" />}
      <QueryTable
        query={query}
        what="your logins"
        label="Your logins"
        items={(d) => d.logins}
        empty="No live login."
        headers={['How', 'From', 'Began', 'Last refreshed', 'Ends', '']}
        row={(l) => (
          <tr key={l.id}>
            <td>
              {how(l)}
              {l.current && <strong> (this one)</strong>}
            </td>
            <td>{l.address ?? '—'}</td>
            <td>
              <When iso={l.started_at} />
            </td>
            <td>
              <When iso={l.last_refreshed_at} />
            </td>
            <td>
              <When iso={l.expires_at} />
            </td>
            <td>
              <ConfirmButton
                label={l.current ? 'Sign out of this login' : 'End this login'}
                confirmLabel="End it"
                onConfirm={() => end.mutate(l)}
              />
            </td>
          </tr>
        )}
      />
    </section>
  );
}
