// A role as YAML, read and edited as a whole: what GET /v1/roles/{id} answers (without the fields
// the server keeps: id, builtin, times) and what PUT takes, so it round-trips with the API and with
// files kept under version control.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { parse, stringify } from 'yaml';
import { api, type Body, ifMatch, ok } from '../api/client';
import { TextAreaField } from './field';
import { ProblemView } from './status';

type RoleBody = Body<'/v1/roles/{id}', 'put'>;

export const roleYaml = (role: RoleBody & Record<string, unknown>): string => {
  const { name, description, allow, deny, options } = role;
  return stringify({ name, description, allow, deny, options });
};

export function RoleYaml({
  id,
  role,
  etag,
  canWrite,
  onSaved,
}: {
  id: string;
  role: RoleBody & { updated_at: string };
  /** The version shown: a save names it (If-Match). */
  etag: string | undefined;
  canWrite: boolean;
  onSaved: () => void;
}) {
  const queryClient = useQueryClient();
  const [text, setText] = useState(() => roleYaml(role));
  // Saved through the form: show what is stored now.
  // biome-ignore lint/correctness/useExhaustiveDependencies: only a new revision replaces the text
  useEffect(() => setText(roleYaml(role)), [role.updated_at]);
  const save = useMutation({
    mutationFn: () => {
      let body: RoleBody;
      try {
        body = parse(text) as RoleBody;
      } catch (e) {
        throw new Error(`not YAML: ${(e as Error).message}`);
      }
      return ok(api.PUT('/v1/roles/{id}', { params: { path: { id }, header: ifMatch(etag) }, body }));
    },
    onSuccess: (r) => {
      void queryClient.invalidateQueries({ queryKey: ['roles'] });
      // The saved role at once (the page stays, the form shows it), then read again for its new
      // version (its ETag), which the next save names.
      queryClient.setQueryData(['role', r.id], { data: r, etag: undefined });
      void queryClient.invalidateQueries({ queryKey: ['role', r.id] });
      setText(roleYaml(r as RoleBody));
      onSaved();
    },
  });
  return (
    <section aria-labelledby="role-yaml">
      <h2 id="role-yaml">As YAML</h2>
      <form
        aria-label="Edit as YAML"
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate();
        }}
      >
        <fieldset disabled={!canWrite}>
          <TextAreaField label="Role YAML" value={text} onChange={setText} />
          {canWrite && <button type="submit">Save YAML</button>}
        </fieldset>
      </form>
      {save.isError && <ProblemView error={save.error} title="Not saved" />}
      {save.isSuccess && <p role="status">Saved.</p>}
    </section>
  );
}
