// The account page: the signed-in person's security keys (the profile page includes them too).
import { SecurityKeys } from '../components/security-keys';
import { useSession } from '../session';

export function AccountPage() {
  const session = useSession();
  return (
    <section>
      <div className="title-row">
        <h1>Your account</h1>
      </div>
      {session.principal.kind === 'user' ? <SecurityKeys /> : <p>An agent has no security keys.</p>}
    </section>
  );
}
