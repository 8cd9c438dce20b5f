// "Sign in with <provider>": one link per enabled single sign-on connector, from the public list
// (names and display names only, GET /webapi/sso/connectors). A link, not a fetch: the browser itself
// goes to the provider and comes back to /webapi/sso/callback, which sets the session cookies.
import { useQuery } from '@tanstack/react-query';
import { CSRF_HEADER, problemOf } from '../api/client';

interface PublicConnector {
  name: string;
  display_name: string;
}

async function enabledConnectors(): Promise<PublicConnector[]> {
  const response = await fetch('/webapi/sso/connectors', { headers: CSRF_HEADER });
  if (!response.ok) throw await problemOf(response);
  return ((await response.json()) as { connectors: PublicConnector[] }).connectors;
}

export function SsoButtons() {
  // Without connectors (or if the list cannot be read) the page is the API-key form alone.
  const { data } = useQuery({ queryKey: ['sso-connectors'], queryFn: enabledConnectors, retry: false });
  if (!data || data.length === 0) return null;
  return (
    <nav aria-label="Single sign-on" className="sso-buttons">
      {data.map((c) => (
        <a key={c.name} className="button" href={`/webapi/sso/${encodeURIComponent(c.name)}/login`}>
          Sign in with {c.display_name}
        </a>
      ))}
    </nav>
  );
}
