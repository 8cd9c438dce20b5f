// The security-key steps of signing in: the second step after an API key (or SSO) when a role
// requires a key — assert a registered one, or, holding none, register one now (there is no way
// around it) — and "Sign in with a passkey", where a role allows the passkey alone. Both end in the
// same session answer as the first step (src/api/mfa/mfa-console.routes.ts).
import { startAuthentication, startRegistration } from '@simplewebauthn/browser';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { CSRF_HEADER, problemOf } from '../api/client';
import type { WebSession } from '../session';
import { ProblemView } from './status';

async function post<T>(path: string, body: unknown = {}): Promise<T> {
  const response = await fetch(path, {
    method: 'POST',
    headers: { ...CSRF_HEADER, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw await problemOf(response);
  return (await response.json()) as T;
}

type Step = { mode: 'assert' | 'register'; options: never };

/** The second step: the server says whether to use a registered key or register the first one. */
export function SecondFactor({ name, onSignedIn }: { name?: string; onSignedIn: (s: WebSession) => void }) {
  const [keyName, setKeyName] = useState('Security key');
  const [mode, setMode] = useState<Step['mode'] | undefined>();
  const step = useMutation({
    mutationFn: async () => {
      const { mode: asked, options } = await post<Step>('/webapi/mfa/sign-in/options');
      setMode(asked);
      const response =
        asked === 'assert'
          ? await startAuthentication({ optionsJSON: options })
          : await startRegistration({ optionsJSON: options });
      return post<WebSession>('/webapi/mfa/sign-in', { response, ...(asked === 'register' ? { name: keyName } : {}) });
    },
    onSuccess: onSignedIn,
  });
  return (
    <section aria-labelledby="second-factor" className="second-factor">
      <h2 id="second-factor">Use your security key</h2>
      <p>
        {name ? (
          <>
            The first factor for <strong>{name}</strong> is right.
          </>
        ) : (
          'The first factor is right.'
        )}{' '}
        Your roles require a security key or passkey: touch it to finish. If you have none yet, you register one now.
      </p>
      {mode !== 'assert' && (
        <p>
          <label htmlFor="first-key-name">Name for a new key</label>
          <input id="first-key-name" value={keyName} onChange={(e) => setKeyName(e.target.value)} maxLength={64} />
        </p>
      )}
      <button type="button" onClick={() => step.mutate()} disabled={step.isPending}>
        {step.isPending ? 'Touch your key…' : 'Use your security key'}
      </button>
      {step.isError && <ProblemView error={step.error} title="The security key was not accepted" />}
    </section>
  );
}

/** A passkey alone: no name typed, the authenticator offers the passkeys it holds for this site. */
export function PasskeySignIn({ onSignedIn }: { onSignedIn: (s: WebSession) => void }) {
  const passkey = useMutation({
    mutationFn: async () => {
      const options = await post<never>('/webapi/mfa/passkey/options');
      const response = await startAuthentication({ optionsJSON: options });
      return post<WebSession>('/webapi/mfa/passkey', { response });
    },
    onSuccess: onSignedIn,
  });
  return (
    <div className="passkey">
      <button type="button" onClick={() => passkey.mutate()} disabled={passkey.isPending}>
        Sign in with a passkey
      </button>
      {passkey.isError && <ProblemView error={passkey.error} title="Passkey sign-in failed" />}
    </div>
  );
}
