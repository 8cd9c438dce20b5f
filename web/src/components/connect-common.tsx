// What the Connect panel's parts share: the signed-in person's access (its types) and a command to copy.
import { api, ok } from '../api/client';
import { CopyButton } from './secret';

export const getMyAccess = (resource: string) =>
  ok(api.GET('/v1/users/me/access', { params: { query: { resource } } }));

export type MyAccess = Awaited<ReturnType<typeof getMyAccess>>;
export type MyResourceAccess = MyAccess['resources'][number];
export type Endpoints = MyAccess['proxy'];

/** One command to copy: shown as it will be typed, with its own copy button. */
export function Command({ label, text }: { label: string; text: string }) {
  return (
    <div className="row command">
      <section aria-label={label}>
        <pre>{text}</pre>
      </section>
      <CopyButton text={text} label={`Copy ${label}`} />
    </div>
  );
}

/** The roles that grant each value, for "why may I": "ubuntu (dev-ssh)". */
export function grantedBy(access: MyResourceAccess, field: 'logins' | 'db_users' | 'db_names', value: string) {
  return access.grants
    .filter((g) => g[field].includes(value))
    .map((g) => g.role)
    .join(', ');
}
