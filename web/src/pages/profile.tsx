// The signed-in person's own page: what she may reach and as whom (her effective access), her SSH
// public keys (add, name, remove: then plain ssh through the proxy works), her API keys (created
// within her own rights, shown once; revoke), her security keys and passkeys (the account page's
// component), her live logins (end one, or sign out everywhere) and her active sessions (end one).
// Every call is to /v1/users/me/…, which needs no admin permission.
import { useQuery } from '@tanstack/react-query';
import { api, ok } from '../api/client';
import { MyApiKeys } from '../components/my-api-keys';
import { MyLogins } from '../components/my-logins';
import { MySessions } from '../components/my-sessions';
import { MySshKeys } from '../components/my-ssh-keys';
import { AccessTable } from '../components/principal-access';
import { SecurityKeys } from '../components/security-keys';
import { Loading, ProblemView } from '../components/status';
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
          <SecurityKeys />
          <MyLogins />
          <MySessions />
        </>
      )}
    </section>
  );
}

/** Every resource she reaches, as whom, and the roles that grant it. */
function MyAccess() {
  const query = useQuery({ queryKey: ['my-access'], queryFn: () => ok(api.GET('/v1/users/me/access')) });
  return (
    <section aria-labelledby="my-access">
      <h2 id="my-access">What you can reach</h2>
      {query.isPending ? (
        <Loading what="your access" />
      ) : query.isError ? (
        <ProblemView error={query.error} />
      ) : (
        <AccessTable access={query.data} label="What you can reach" empty="Your roles let you reach no resource." />
      )}
    </section>
  );
}
