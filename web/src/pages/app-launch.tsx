// Into an app: its host sent the person here (the app, the path they asked for, the launch state).
// Signed in (RequireSession saw to that), the console asks for a one-time URL into the app and goes
// there at once; the app host's callback turns it into the app's own session cookie (docs/apps.md).
import { useEffect, useState } from 'react';
import { useParams, useSearchParams } from 'react-router';
import { CSRF_HEADER, type Problem, problemOf, refreshSession, sessionFetch } from '../api/client';
import { Loading, ProblemView } from '../components/status';

async function launch(app: string, path: string, state: string): Promise<string> {
  // A fresh access token first: the app session lasts as long as the login's token it stands on.
  await refreshSession();
  const response = await sessionFetch(
    new Request('/v1/apps/launch', {
      method: 'POST',
      headers: { ...CSRF_HEADER, 'content-type': 'application/json' },
      body: JSON.stringify({ app, path, state }),
    }),
  );
  if (!response.ok) throw await problemOf(response);
  return ((await response.json()) as { url: string }).url;
}

export function AppLaunchPage() {
  const { app = '' } = useParams();
  const [params] = useSearchParams();
  const [problem, setProblem] = useState<Problem | Error>();
  useEffect(() => {
    launch(app, params.get('path') ?? '/', params.get('state') ?? '')
      .then((url) => window.location.assign(url))
      .catch((e: Problem | Error) => setProblem(e));
  }, [app, params]);
  if (problem) return <ProblemView error={problem} title={`Cannot open ${app}`} />;
  return <Loading what={`${app}: opening the app`} />;
}
