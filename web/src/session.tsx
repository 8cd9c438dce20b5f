// The signed-in person: who they are and what their roles let them do, from GET /webapi/session.
// The token itself never reaches this code: it lives in an HttpOnly cookie (src/api/console/session-cookie.ts).
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createContext, type ReactNode, useContext, useEffect, useState } from 'react';
import { Navigate, useLocation } from 'react-router';
import { CSRF_HEADER, onSignedOut, Problem, problemOf } from './api/client';
import { Loading, ProblemView } from './components/status';

export type Verb = 'list' | 'read' | 'create' | 'update' | 'delete';

export interface WebSession {
  principal: { kind: 'user' | 'agent'; id: string; name: string };
  expires_at: string;
  /** Per API collection, the verbs the principal's roles allow (for showing only usable controls). */
  permissions: Record<string, Verb[]>;
  /** The first factor was right; a role requires a security key before the session opens anything. */
  second_factor?: 'required';
}

async function getSession(): Promise<WebSession | null> {
  const response = await fetch('/webapi/session', { headers: CSRF_HEADER });
  if (response.status === 401) return null;
  if (!response.ok) throw await problemOf(response);
  return (await response.json()) as WebSession;
}

export async function signIn(credential: string): Promise<WebSession> {
  const secret = credential.trim();
  const body = secret.startsWith('gha_') ? { access_token: secret } : { api_key: secret };
  const response = await fetch('/webapi/session', {
    method: 'POST',
    headers: { ...CSRF_HEADER, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw await problemOf(response);
  return (await response.json()) as WebSession;
}

export async function signOut(): Promise<void> {
  const response = await fetch('/webapi/session', { method: 'DELETE', headers: CSRF_HEADER });
  if (!response.ok && response.status !== 401) throw await problemOf(response);
}

const SessionContext = createContext<WebSession | null>(null);

export function useSession(): WebSession {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside RequireSession');
  return session;
}

export function useCan(resource: string, verb: Verb): boolean {
  const { permissions } = useSession();
  return (permissions[resource] ?? []).includes(verb);
}

export const SESSION_KEY = ['webapi-session'] as const;

/** Where sign-in sends the person back to: only a path on this site, never another origin. */
export function safeNext(next: string | null): string {
  // Parsed as the browser will parse it: `/\host`, `//host`, `https:` and `javascript:` all leave the
  // console's origin and are refused; only a path of this origin (not the sign-in page) is followed.
  if (!next?.startsWith('/')) return '/resources';
  let url: URL;
  try {
    url = new URL(next, window.location.origin);
  } catch {
    return '/resources';
  }
  if (url.origin !== window.location.origin || url.pathname.startsWith('/login')) return '/resources';
  return `${url.pathname}${url.search}${url.hash}`;
}

/** Renders its children for a signed-in person; otherwise sends them to sign in, and back here after. */
export function RequireSession({ children }: { children: ReactNode }) {
  const location = useLocation();
  const queryClient = useQueryClient();
  const query = useQuery({ queryKey: SESSION_KEY, queryFn: getSession, staleTime: 60_000, retry: false });

  // Any API call that ends in 401 after a refresh attempt lands here: back to sign-in, then back.
  const [expired, setExpired] = useState(false);
  useEffect(
    () =>
      onSignedOut(() => {
        setExpired(true);
        queryClient.setQueryData(SESSION_KEY, null);
        queryClient.removeQueries({ predicate: (q) => q.queryKey[0] !== SESSION_KEY[0] });
      }),
    [queryClient],
  );

  if (query.isPending) return <Loading what="your session" />;
  if (query.isError) return <ProblemView error={query.error} />;
  if (query.data === null) {
    const next = location.pathname + location.search;
    return <Navigate to={`/login?next=${encodeURIComponent(next)}${expired ? '&expired=1' : ''}`} replace />;
  }
  return <SessionContext.Provider value={query.data}>{children}</SessionContext.Provider>;
}

export { Problem };
