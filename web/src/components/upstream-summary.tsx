// What a resource says about its upstream credentials: which are set, never a secret (the API never
// answers one). Shown among a resource's facts.
interface Summary {
  kube?: { credential: string; ca_fingerprint: string };
  db?: {
    tls: string;
    ca_fingerprint?: string;
    client_certificate: boolean;
    password_users: string[];
    read_only_login?: { name: string; password: boolean };
  };
}

export function UpstreamFacts({ resource: r }: { resource: Summary }) {
  if (r.kube)
    return (
      <>
        <dt>Credential</dt>
        <dd>{r.kube.credential === 'token' ? 'service-account token (sealed)' : 'client certificate (sealed)'}</dd>
        <dt>CA fingerprint</dt>
        <dd>
          <code>{r.kube.ca_fingerprint}</code>
        </dd>
      </>
    );
  if (!r.db) return null;
  const ro = r.db.read_only_login;
  return (
    <>
      <dt>TLS</dt>
      <dd>
        {r.db.tls}
        {r.db.ca_fingerprint && (
          <>
            {' '}
            (CA <code>{r.db.ca_fingerprint}</code>)
          </>
        )}
        {r.db.client_certificate ? ', client certificate' : ''}
      </dd>
      <dt>Passwords held for</dt>
      <dd>{r.db.password_users.join(', ') || '—'}</dd>
      <dt>Read-only login</dt>
      <dd>{ro ? `${ro.name}${ro.password ? ' (password held)' : ''}` : '—'}</dd>
    </>
  );
}
