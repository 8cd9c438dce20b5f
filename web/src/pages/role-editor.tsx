// The role editor: allow and deny (API rules, resource selectors, logins and the like) and options;
// before saving a change, "Preview changes" shows who would gain or lose what.
// The API's validation errors appear at the field their path names (/body/allow/rules/0/verbs/1).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api, ifMatch, ok, okTagged } from '../api/client';
import { ConfirmButton } from '../components/confirm';
import { SelectField, TextField, unclaimedErrors } from '../components/field';
import { parseList } from '../components/labels';
import { API_RESOURCES, LOGIN_SUGGESTIONS, RESOURCE_KINDS, VERBS } from '../components/pickers';
import { RolePreviewView } from '../components/role-preview';
import { RoleYaml } from '../components/role-yaml';
import { Loading, ProblemView } from '../components/status';
import { TokenInput } from '../components/token-input';
import { useCan } from '../session';
import {
  draftToBody,
  emptyDraft,
  LIST_FIELDS,
  type RoleBody,
  type RoleDraft,
  roleToDraft,
  type SideDraft,
} from './role-draft';

const CLAIMED = /^\/body\/(name|description|options\/\w+|(allow|deny)\/(rules|resources)\/\d+\/\w+|(allow|deny)\/\w+)/;

export function RoleEditorPage() {
  const { id } = useParams();
  const canUpdate = useCan('roles', 'update');
  const [yamlSaves, setYamlSaves] = useState(0);
  const query = useQuery({
    queryKey: ['role', id],
    // With its ETag: a save names the version it was made on (If-Match).
    queryFn: () => okTagged(api.GET('/v1/roles/{id}', { params: { path: { id: id ?? '' } } })),
    enabled: id !== undefined,
  });
  if (id !== undefined && query.isPending) return <Loading what="the role" />;
  if (id !== undefined && query.isError) return <ProblemView error={query.error} />;
  const data = id !== undefined ? query.data?.data : undefined;
  const etag = query.data?.etag;
  // One tree for a new role and a saved one, so the form stays mounted (and says "Saved.") when a
  // new role's page becomes its own; a save of the YAML starts the form again from the saved role.
  return (
    <>
      <RoleForm
        key={yamlSaves}
        {...(data ? { id: data.id, role: data as RoleBody, builtin: data.builtin, etag } : {})}
      />
      {data && (
        <RoleYaml
          id={data.id}
          role={data}
          etag={etag}
          canWrite={canUpdate && !data.builtin}
          onSaved={() => setYamlSaves((n) => n + 1)}
        />
      )}
    </>
  );
}

function RoleForm({
  id,
  role,
  builtin,
  etag,
}: {
  id?: string;
  role?: RoleBody;
  builtin?: boolean;
  /** The version the form was opened on: a save names it, so another person's change is not overwritten. */
  etag?: string | undefined;
}) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const canWrite = useCan('roles', id ? 'update' : 'create') && !builtin;
  const canDelete = useCan('roles', 'delete') && !builtin && id !== undefined;
  const [draft, setDraft] = useState<RoleDraft>(() => (role ? roleToDraft(role) : emptyDraft()));
  const [saved, setSaved] = useState(false);
  const save = useMutation({
    mutationFn: () => {
      const body = draftToBody(draft);
      return id
        ? ok(api.PUT('/v1/roles/{id}', { params: { path: { id }, header: ifMatch(etag) }, body }))
        : ok(api.POST('/v1/roles', { body }));
    },
    onSuccess: (r) => {
      void queryClient.invalidateQueries({ queryKey: ['roles'] });
      // The saved role at once (the page stays, the form shows it), then read again for its new
      // version (its ETag), which the next save names.
      queryClient.setQueryData(['role', r.id], { data: r, etag: undefined });
      void queryClient.invalidateQueries({ queryKey: ['role', r.id] });
      setSaved(true);
      preview.reset();
      if (!id) navigate(`/roles/${r.id}`, { replace: true });
    },
  });
  const preview = useMutation({
    mutationFn: () =>
      ok(api.POST('/v1/roles/{id}/preview', { params: { path: { id: id ?? '' } }, body: draftToBody(draft) })),
  });
  const remove = useMutation({
    mutationFn: () => ok(api.DELETE('/v1/roles/{id}', { params: { path: { id: id ?? '' } } })),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['roles'] });
      navigate('/roles');
    },
  });
  const p = save.error;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  const set = (patch: Partial<RoleDraft>) => {
    setSaved(false);
    preview.reset();
    setDraft((d) => ({ ...d, ...patch }));
  };
  const others = unclaimedErrors(p, (path) => CLAIMED.test(path));
  return (
    <section>
      <p>
        <Link to="/roles">← Roles</Link>
      </p>
      <div className="title-row">
        <h1>{id ? `Role ${role?.name}` : 'New role'}</h1>
        {canDelete && (
          <ConfirmButton label="Delete role" confirmLabel={`Delete ${role?.name}`} onConfirm={() => remove.mutate()} />
        )}
      </div>
      {builtin && <p className="notice">Built-in roles can be assigned but not changed.</p>}
      {remove.isError && <ProblemView error={remove.error} title="Not deleted" />}
      <form aria-label="Role" onSubmit={submit} className="role-form">
        <fieldset disabled={!canWrite}>
          <TextField
            label="Role name"
            path="/body/name"
            problem={p}
            value={draft.name}
            onChange={(v) => set({ name: v })}
          />
          <TextField
            label="Description"
            path="/body/description"
            problem={p}
            value={draft.description}
            onChange={(v) => set({ description: v })}
          />
          <SideEditor title="Allow" which="allow" side={draft.allow} problem={p} onChange={(s) => set({ allow: s })} />
          <SideEditor title="Deny" which="deny" side={draft.deny} problem={p} onChange={(s) => set({ deny: s })} />
          <fieldset>
            <legend>Options</legend>
            <TextField
              label="Maximum session length"
              path="/body/options/max_session_ttl"
              problem={p}
              value={draft.max_session_ttl}
              onChange={(v) => set({ max_session_ttl: v })}
              placeholder="8h"
            />
            <SelectField
              label="Session recording"
              value={draft.record_session}
              onChange={(v) => set({ record_session: v })}
              options={[
                ['', 'default'],
                ['best_effort', 'best effort'],
                ['strict', 'strict'],
              ]}
            />
            <SelectField
              label="Record input"
              value={draft.record_input}
              onChange={(v) => set({ record_input: v })}
              options={[
                ['', 'default (no)'],
                ['true', 'yes'],
                ['false', 'no'],
              ]}
            />
            <SelectField
              label="Port forwarding"
              value={draft.port_forwarding}
              onChange={(v) => set({ port_forwarding: v })}
              options={[
                ['', 'default (no)'],
                ['true', 'allowed'],
                ['false', 'forbidden'],
              ]}
            />
          </fieldset>
          {canWrite && (
            <div className="row">
              <button type="submit" disabled={save.isPending}>
                {id ? 'Save role' : 'Create role'}
              </button>
              {id && (
                <button type="button" onClick={() => preview.mutate()} disabled={preview.isPending}>
                  Preview changes
                </button>
              )}
            </div>
          )}
        </fieldset>
      </form>
      {preview.isError && <ProblemView error={preview.error} title="No preview" />}
      {preview.data && <RolePreviewView preview={preview.data} />}
      {saved && (
        <p role="status" className="notice">
          Saved.
        </p>
      )}
      {save.isError && (
        <ProblemView
          error={save.error}
          title={others.length ? 'Not saved' : 'Not saved: see the fields marked'}
          inline={others.length === 0}
        />
      )}
    </section>
  );
}

function SideEditor({
  title,
  which,
  side,
  problem,
  onChange,
}: {
  title: string;
  which: 'allow' | 'deny';
  side: SideDraft;
  problem: unknown;
  onChange: (s: SideDraft) => void;
}) {
  const base = `/body/${which}`;
  const setRule = (i: number, patch: Partial<SideDraft['rules'][number]>) =>
    onChange({ ...side, rules: side.rules.map((r, j) => (j === i ? { ...r, ...patch } : r)) });
  const setSelector = (i: number, patch: Partial<SideDraft['selectors'][number]>) =>
    onChange({ ...side, selectors: side.selectors.map((s, j) => (j === i ? { ...s, ...patch } : s)) });
  return (
    <fieldset>
      <legend>{title}</legend>
      <h3>API rules</h3>
      {side.rules.map((r, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: rows are positional, as the API's error paths are
        <div className="row" key={i}>
          <TokenInput
            label={`${title} rule ${i + 1} collections`}
            path={`${base}/rules/${i}/resources`}
            problem={problem}
            values={parseList(r.resources)}
            onChange={(v) => setRule(i, { resources: v.join(', ') })}
            suggestions={API_RESOURCES}
            strict
            placeholder="users, roles or *"
          />
          <TokenInput
            label={`${title} rule ${i + 1} verbs`}
            path={`${base}/rules/${i}/verbs`}
            problem={problem}
            values={parseList(r.verbs)}
            onChange={(v) => setRule(i, { verbs: v.join(', ') })}
            suggestions={VERBS}
            strict
            placeholder="list, read"
          />
          <button
            type="button"
            aria-label={`Remove ${title.toLowerCase()} rule ${i + 1}`}
            onClick={() => onChange({ ...side, rules: side.rules.filter((_, j) => j !== i) })}
          >
            Remove
          </button>
        </div>
      ))}
      <button type="button" onClick={() => onChange({ ...side, rules: [...side.rules, { resources: '', verbs: '' }] })}>
        Add {title.toLowerCase()} rule
      </button>
      <h3>Resource selectors</h3>
      {side.selectors.map((s, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: rows are positional, as the API's error paths are
        <div className="row" key={i}>
          <TokenInput
            label={`${title} selector ${i + 1} kinds`}
            path={`${base}/resources/${i}/kinds`}
            problem={problem}
            values={parseList(s.kinds)}
            onChange={(v) => setSelector(i, { kinds: v.join(', ') })}
            suggestions={RESOURCE_KINDS}
            strict
            placeholder="server, database, app or *"
          />
          <TextField
            label={`${title} selector ${i + 1} labels`}
            path={`${base}/resources/${i}/labels`}
            problem={problem}
            value={s.labels}
            onChange={(v) => setSelector(i, { labels: v })}
            placeholder="env=dev, tier=web*"
          />
          <button
            type="button"
            aria-label={`Remove ${title.toLowerCase()} selector ${i + 1}`}
            onClick={() => onChange({ ...side, selectors: side.selectors.filter((_, j) => j !== i) })}
          >
            Remove
          </button>
        </div>
      ))}
      <button
        type="button"
        onClick={() => onChange({ ...side, selectors: [...side.selectors, { kinds: 'server', labels: '' }] })}
      >
        Add {title.toLowerCase()} selector
      </button>
      <div className="grid">
        {LIST_FIELDS.map((f) => (
          <TokenInput
            key={f}
            label={`${title} ${f.replace('_', ' ')}`}
            path={`${base}/${f}`}
            problem={problem}
            values={parseList(side[f])}
            onChange={(v) => onChange({ ...side, [f]: v.join(', ') })}
            {...(f === 'logins' ? { suggestions: LOGIN_SUGGESTIONS } : {})}
          />
        ))}
      </div>
    </fieldset>
  );
}
