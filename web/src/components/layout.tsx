// The frame of every signed-in page: navigation to what the person's roles let them list, and sign out.
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { NavLink, Outlet, useNavigate } from 'react-router';
import { SESSION_KEY, signOut, useSession } from '../session';
import { ProblemView } from './status';

// resource '': shown to everyone (what one reaches needs no permission to read).
const SECTIONS: Array<{ to: string; label: string; resource: string }> = [
  { to: '/resources', label: 'Resources', resource: 'resources' },
  { to: '/apps', label: 'Apps', resource: '' },
  { to: '/approvals', label: 'Approvals', resource: '' },
  { to: '/users', label: 'Users', resource: 'users' },
  { to: '/roles', label: 'Roles', resource: 'roles' },
  { to: '/agents', label: 'Agents', resource: 'agents' },
  { to: '/sessions', label: 'Sessions', resource: 'sessions' },
  { to: '/audit', label: 'Audit log', resource: 'events' },
  { to: '/connectors', label: 'Single sign-on', resource: 'connectors' },
];

export function Layout() {
  const session = useSession();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [error, setError] = useState<unknown>();
  const visible = SECTIONS.filter((s) => !s.resource || (session.permissions[s.resource] ?? []).includes('list'));
  return (
    <div className="shell">
      <header>
        <span className="brand">Gatehouse</span>
        <nav aria-label="Main">
          {visible.map((s) => (
            <NavLink key={s.to} to={s.to}>
              {s.label}
            </NavLink>
          ))}
        </nav>
        <span className="who">
          Signed in as <NavLink to="/profile">{session.principal.name}</NavLink>
        </span>
        <button
          type="button"
          onClick={async () => {
            try {
              await signOut();
              queryClient.clear();
              queryClient.setQueryData(SESSION_KEY, null);
              navigate('/login?signed_out=1', { replace: true });
            } catch (e) {
              setError(e);
            }
          }}
        >
          Sign out
        </button>
      </header>
      {error !== undefined && <ProblemView error={error} title="Sign-out failed" />}
      <main>
        <Outlet />
      </main>
    </div>
  );
}
