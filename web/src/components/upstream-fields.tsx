// How Gatehouse reaches a cluster's or a database's upstream, as the register and edit forms take it:
// CA, token or client certificate for Kubernetes; CA, client certificate, users with their passwords
// and the read-only login for a database. Secrets are write-only: typed here, sealed by the server,
// never answered (the resource says only which are set), so these fields always start empty.
import { useState } from 'react';
import type { Body } from '../api/client';
import { SelectField, TextAreaField, TextField } from './field';

type ResourceBody = Body<'/v1/resources', 'post'>;
export type KubeBody = NonNullable<ResourceBody['kube']>;
export type DbBody = NonNullable<ResourceBody['db']>;

export interface KubeDraft {
  ca: string;
  credential: 'token' | 'client_certificate';
  token: string;
  cert: string;
  key: string;
}
export const emptyKube = (): KubeDraft => ({ ca: '', credential: 'token', token: '', cert: '', key: '' });

export function kubeBody(d: KubeDraft): KubeBody {
  return d.credential === 'token'
    ? { ca_pem: d.ca, token: d.token }
    : { ca_pem: d.ca, client_cert_pem: d.cert, client_key_pem: d.key };
}

export function KubeFields({
  draft: d,
  set,
  problem: p,
}: {
  draft: KubeDraft;
  set: (d: KubeDraft) => void;
  problem: unknown;
}) {
  const field =
    <K extends keyof KubeDraft>(k: K) =>
    (v: KubeDraft[K]) =>
      set({ ...d, [k]: v });
  return (
    <fieldset>
      <legend>Cluster credentials (sealed, never shown again)</legend>
      <TextAreaField
        label="API server CA (PEM)"
        path="/body/kube/ca_pem"
        problem={p}
        value={d.ca}
        onChange={field('ca')}
      />
      <SelectField
        label="Credential"
        value={d.credential}
        onChange={(v) => field('credential')(v as KubeDraft['credential'])}
        options={[
          ['token', 'Service-account token'],
          ['client_certificate', 'Client certificate'],
        ]}
      />
      {d.credential === 'token' ? (
        <TextField
          label="Token"
          type="password"
          autoComplete="off"
          path="/body/kube/token"
          problem={p}
          value={d.token}
          onChange={field('token')}
        />
      ) : (
        <>
          <TextAreaField
            label="Client certificate (PEM)"
            path="/body/kube/client_cert_pem"
            problem={p}
            value={d.cert}
            onChange={field('cert')}
          />
          <TextAreaField
            label="Client key (PEM)"
            path="/body/kube/client_key_pem"
            problem={p}
            value={d.key}
            onChange={field('key')}
          />
        </>
      )}
    </fieldset>
  );
}

export interface DbDraft {
  ca: string;
  cert: string;
  key: string;
  users: Array<{ name: string; password: string }>;
  readOnlyName: string;
  readOnlyPassword: string;
}
export const emptyDb = (): DbDraft => ({
  ca: '',
  cert: '',
  key: '',
  users: [],
  readOnlyName: '',
  readOnlyPassword: '',
});

/** Only what was filled in: an empty draft sends no db at all (a loopback database needs none). */
export function dbBody(d: DbDraft): DbBody | undefined {
  const users = d.users.filter((u) => u.name || u.password);
  const body: DbBody = {
    ...(d.ca ? { ca_pem: d.ca } : {}),
    ...(d.cert ? { client_cert_pem: d.cert } : {}),
    ...(d.key ? { client_key_pem: d.key } : {}),
    ...(users.length ? { users } : {}),
    ...(d.readOnlyName
      ? { read_only_login: { name: d.readOnlyName, ...(d.readOnlyPassword ? { password: d.readOnlyPassword } : {}) } }
      : {}),
  };
  return Object.keys(body).length ? body : undefined;
}

export function DbFields({
  draft: d,
  set,
  problem: p,
}: {
  draft: DbDraft;
  set: (d: DbDraft) => void;
  problem: unknown;
}) {
  const field =
    <K extends keyof DbDraft>(k: K) =>
    (v: DbDraft[K]) =>
      set({ ...d, [k]: v });
  const user = (i: number, change: Partial<DbDraft['users'][number]>) =>
    set({ ...d, users: d.users.map((u, j) => (j === i ? { ...u, ...change } : u)) });
  const [showTls, setShowTls] = useState(Boolean(d.ca || d.cert));
  return (
    <fieldset>
      <legend>Database credentials (sealed, never shown again)</legend>
      {d.users.map((u, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: rows have no identity but their place
        <div className="row" key={i}>
          <TextField
            label={`Database user ${i + 1}`}
            path={`/body/db/users/${i}/name`}
            problem={p}
            value={u.name}
            onChange={(name) => user(i, { name })}
          />
          <TextField
            label={`Password of user ${i + 1}`}
            type="password"
            autoComplete="new-password"
            path={`/body/db/users/${i}/password`}
            problem={p}
            value={u.password}
            onChange={(password) => user(i, { password })}
          />
          <button type="button" onClick={() => set({ ...d, users: d.users.filter((_, j) => j !== i) })}>
            Remove user {i + 1}
          </button>
        </div>
      ))}
      <button type="button" onClick={() => set({ ...d, users: [...d.users, { name: '', password: '' }] })}>
        Add a user with a password
      </button>
      <div className="row">
        <TextField
          label="Read-only login"
          path="/body/db/read_only_login/name"
          problem={p}
          value={d.readOnlyName}
          onChange={field('readOnlyName')}
          hint="the login db_read_only sessions run as"
        />
        <TextField
          label="Read-only login password"
          type="password"
          autoComplete="new-password"
          path="/body/db/read_only_login/password"
          problem={p}
          value={d.readOnlyPassword}
          onChange={field('readOnlyPassword')}
        />
      </div>
      <label>
        <input type="checkbox" checked={showTls} onChange={(e) => setShowTls(e.target.checked)} /> TLS to the database
        (verify-full)
      </label>
      {showTls && (
        <>
          <TextAreaField
            label="Database CA (PEM)"
            path="/body/db/ca_pem"
            problem={p}
            value={d.ca}
            onChange={field('ca')}
            hint="with a CA Gatehouse connects with TLS, verify-full; without one only a loopback address is allowed"
          />
          <TextAreaField
            label="Client certificate (PEM)"
            path="/body/db/client_cert_pem"
            problem={p}
            value={d.cert}
            onChange={field('cert')}
          />
          <TextAreaField
            label="Client key (PEM)"
            path="/body/db/client_key_pem"
            problem={p}
            value={d.key}
            onChange={field('key')}
          />
        </>
      )}
    </fieldset>
  );
}
