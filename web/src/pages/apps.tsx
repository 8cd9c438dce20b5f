// The apps the signed-in person reaches (her effective access, kind app): a web app with Launch, an
// MCP server with its endpoint and the CLI line. Needs no permission beyond being signed in, so it is
// the way in for someone who may not list resources.
import { useQuery } from '@tanstack/react-query';
import { api, ok } from '../api/client';
import { AppOpen } from '../components/app-open';
import { formatLabels } from '../components/labels';
import { QueryTable } from '../components/query-table';

export function AppsPage() {
  const query = useQuery({
    queryKey: ['my-access', 'apps'],
    queryFn: () => ok(api.GET('/v1/users/me/access', { params: { query: { kind: 'app' } } })),
  });
  return (
    <section>
      <div className="title-row">
        <h1>Apps</h1>
      </div>
      <QueryTable
        query={query}
        what="your apps"
        label="Your apps"
        items={(d) => (d.active ? d.resources : [])}
        empty="Your roles let you reach no app."
        headers={['Name', 'Labels', 'Open']}
        row={(r) => (
          <tr key={r.id}>
            <td>{r.name}</td>
            <td>{formatLabels(r.labels)}</td>
            <td>
              <AppOpen access={r} />
            </td>
          </tr>
        )}
      />
    </section>
  );
}
