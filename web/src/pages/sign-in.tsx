// Sign in with an API key (exchanged for a token pair), an access token, a single sign-on connector
// or a passkey; then back where you were. A single sign-on whose roles require a security key comes
// back here (?second_factor=1) for the key.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { PasskeySignIn, SecondFactor } from '../components/second-factor';
import { SsoButtons } from '../components/sso-buttons';
import { ProblemView } from '../components/status';
import { SESSION_KEY, safeNext, signIn, type WebSession } from '../session';

export function SignInPage() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [credential, setCredential] = useState('');
  // The first factor was right and a role requires a security key: the second step shows instead.
  const [pending, setPending] = useState<{ name?: string } | undefined>(params.get('second_factor') ? {} : undefined);
  const signedIn = (session: WebSession) => {
    if (session.second_factor === 'required') return setPending({ name: session.principal.name });
    queryClient.setQueryData(SESSION_KEY, session);
    navigate(safeNext(params.get('next')), { replace: true });
  };
  const mutation = useMutation({ mutationFn: signIn, onSuccess: signedIn });
  if (pending)
    return (
      <main className="sign-in">
        <h1>Gatehouse</h1>
        <SecondFactor {...pending} onSignedIn={signedIn} />
      </main>
    );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    mutation.mutate(credential);
  };
  return (
    <main className="sign-in">
      <h1>Gatehouse</h1>
      {params.get('expired') && (
        <p role="status" className="notice">
          Your session has ended. Sign in again to go back to where you were.
        </p>
      )}
      {params.get('signed_out') && (
        <p role="status" className="notice">
          You are signed out.
        </p>
      )}
      <form onSubmit={submit}>
        <label htmlFor="credential">API key or access token</label>
        <input
          id="credential"
          type="password"
          autoComplete="current-password"
          value={credential}
          onChange={(e) => setCredential(e.target.value)}
          placeholder="ghk_… or gha_…"
          required
        />
        <button type="submit" disabled={mutation.isPending}>
          {mutation.isPending ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      {mutation.isError && <ProblemView error={mutation.error} title="Sign-in failed" />}
      <SsoButtons />
      <PasskeySignIn onSignedIn={signedIn} />
      <p className="muted">
        A first start prints the admin's key once and writes it to <code>data/admin-api-key</code>.
      </p>
    </main>
  );
}
