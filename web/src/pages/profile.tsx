// The signed-in person's own page: what she may reach and as whom (her effective access), her SSH
// public keys (add, name, remove: then plain ssh through the proxy works) and her API keys (created
// within her own rights, shown once; revoke). Every call is to /v1/users/me/…, which needs no admin
// permission.
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, ok } from '../api/client';
import { MyApiKeys } from '../components/my-api-keys';
import { MySshKeys } from '../components/my-ssh-keys';
import { QueryTable } from '../components/query-table';
import { useSession } from '../session';

export function ProfilePage() {
  const session = useSession();
  return (
    <section>
      <div className="title-row">
        <h1>Your profile</h1>
      </div>
      <dl className="facts">
        <dt>Name</dt>
        <dd>
          {session.principal.name} <span className="muted">({session.principal.kind})</span>
        </dd>
        <dt>Session ends</dt>
        <dd>
          <time dateTime={session.expires_at} title={session.expires_at}>
            {new Date(session.expires_at).toLocaleString()}
          </time>
        </dd>
      </dl>
      <MyAccess />
      {session.principal.kind === 'user' && (
        <>
          <MySshKeys />
          <MyApiKeys />
        </>
      )}
    </section>
  );
}

const asWhom = (r: {
  logins: string[];
  db_users: string[];
  db_names: string[];
  kube_users: string[];
  kube_groups: string[];
}) =>
  [
    r.logins.join(', '),
    r.db_users.length ? `${r.db_users.join(', ')} → ${r.db_names.join(', ')}` : '',
    [...r.kube_users, ...r.kube_groups.map((g) => `group ${g}`)].join(', '),
  ]
    .filter(Boolean)
    .join('; ');

/** Every resource she reaches, as whom, and the roles that grant it. */
function MyAccess() {
  const query = useQuery({ queryKey: ['my-access'], queryFn: () => ok(api.GET('/v1/users/me/access')) });
  return (
    <section aria-labelledby="my-access">
      <h2 id="my-access">What you can reach</h2>
      <QueryTable
        query={query}
        what="your access"
        label="What you can reach"
        items={(d) => d.resources}
        empty="Your roles let you reach no resource."
        headers={['Resource', 'Kind', 'As', 'Granted by']}
        row={(r) => (
          <tr key={r.id}>
            <td>
              <Link to={`/resources/${r.id}`}>{r.name}</Link>
            </td>
            <td>{r.kind.replace('_', ' ')}</td>
            <td>{asWhom(r) || '—'}</td>
            <td>{r.grants.map((g) => g.role).join(', ')}</td>
          </tr>
        )}
      />
    </section>
  );
}
