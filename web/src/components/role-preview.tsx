// What saving the role editor's draft would change (POST /v1/roles/{id}/preview): per principal the
// role reaches, each resource gained, lost, or reached as others, with the values. Only what the
// signed-in person may see is listed (the API leaves the rest out).
import { Link } from 'react-router';
import type { paths } from '../api/schema';
import { asWhom } from './principal-access';
import { Empty } from './status';

type Preview = paths['/v1/roles/{id}/preview']['post']['responses'][200]['content']['application/json'];

const CHANGE = { gains: 'gains access', loses: 'loses access', changes: 'as others' } as const;

export function RolePreviewView({ preview }: { preview: Preview }) {
  const rows = preview.principals.flatMap((p) => p.changes.map((c) => ({ p, c })));
  return (
    <section aria-labelledby="role-preview" className="receipt">
      <h2 id="role-preview">What saving would change</h2>
      <p className="muted">
        {preview.principals_checked} principal{preview.principals_checked === 1 ? '' : 's'} checked
        {preview.truncated ? ' (the first 500 only)' : ''}.
      </p>
      {rows.length === 0 ? (
        <Empty>Nobody's access changes.</Empty>
      ) : (
        <table aria-label="What saving would change">
          <thead>
            <tr>
              <th>Who</th>
              <th>Resource</th>
              <th>Change</th>
              <th>Gains</th>
              <th>Loses</th>
            </tr>
          </thead>
          <tbody>
            {rows.map(({ p, c }) => (
              <tr key={`${p.id}/${c.resource.id}`}>
                <td>
                  <Link to={`/${p.kind}s/${p.id}?tab=access`}>{p.name}</Link> <span className="muted">({p.kind})</span>
                </td>
                <td>
                  {c.resource.name} <span className="muted">({c.resource.kind.replace('_', ' ')})</span>
                </td>
                <td>{CHANGE[c.change]}</td>
                <td>{asWhom(c.gained) || '—'}</td>
                <td>{asWhom(c.lost) || '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
