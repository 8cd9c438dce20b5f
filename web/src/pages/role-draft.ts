// A role as the editor holds it (text per field) and as the API takes it. Values are passed as
// typed, without client-side checks: the API validates, and its errors land on the field they name.
import type { Body } from '../api/client';
import { formatLabels, parseLabels, parseList } from '../components/labels';

export type RoleBody = Body<'/v1/roles', 'post'>;
type Side = NonNullable<RoleBody['deny']>;

export interface RuleDraft {
  resources: string;
  verbs: string;
}
export interface SelectorDraft {
  kinds: string;
  labels: string;
}
export interface SideDraft {
  rules: RuleDraft[];
  selectors: SelectorDraft[];
  logins: string;
  db_users: string;
  db_names: string;
  kube_groups: string;
}
export interface RoleDraft {
  name: string;
  description: string;
  allow: SideDraft;
  deny: SideDraft;
  max_session_ttl: string;
  record_session: string;
  record_input: string;
  port_forwarding: string;
}

export const LIST_FIELDS = ['logins', 'db_users', 'db_names', 'kube_groups'] as const;

const emptySide = (): SideDraft => ({
  rules: [],
  selectors: [],
  logins: '',
  db_users: '',
  db_names: '',
  kube_groups: '',
});

export const emptyDraft = (): RoleDraft => ({
  name: '',
  description: '',
  allow: { ...emptySide(), rules: [{ resources: '', verbs: '' }] },
  deny: emptySide(),
  max_session_ttl: '',
  record_session: '',
  record_input: '',
  port_forwarding: '',
});

function sideToDraft(side: Side | undefined): SideDraft {
  return {
    rules: (side?.rules ?? []).map((r) => ({ resources: r.resources.join(', '), verbs: r.verbs.join(', ') })),
    selectors: (side?.resources ?? []).map((s) => ({ kinds: s.kinds.join(', '), labels: formatLabels(s.labels) })),
    logins: (side?.logins ?? []).join(', '),
    db_users: (side?.db_users ?? []).join(', '),
    db_names: (side?.db_names ?? []).join(', '),
    kube_groups: (side?.kube_groups ?? []).join(', '),
  };
}

export function roleToDraft(role: RoleBody): RoleDraft {
  const o = role.options ?? {};
  const bool = (b: boolean | undefined) => (b === undefined ? '' : String(b));
  return {
    name: role.name,
    description: role.description ?? '',
    allow: sideToDraft(role.allow),
    deny: sideToDraft(role.deny),
    max_session_ttl: o.max_session_ttl ?? '',
    record_session: o.record_session ?? '',
    record_input: bool(o.record_input),
    port_forwarding: bool(o.port_forwarding),
  };
}

function sideToBody(side: SideDraft): Side {
  const body: Record<string, unknown> = {};
  if (side.rules.length) {
    body.rules = side.rules.map((r) => ({ resources: parseList(r.resources), verbs: parseList(r.verbs) }));
  }
  if (side.selectors.length) {
    body.resources = side.selectors.map((s) => ({
      kinds: parseList(s.kinds),
      ...(s.labels.trim() ? { labels: parseLabels(s.labels) } : {}),
    }));
  }
  for (const f of LIST_FIELDS) if (side[f].trim()) body[f] = parseList(side[f]);
  return body as Side;
}

export function draftToBody(d: RoleDraft): RoleBody {
  const options: Record<string, unknown> = {};
  if (d.max_session_ttl.trim()) options.max_session_ttl = d.max_session_ttl.trim();
  if (d.record_session) options.record_session = d.record_session;
  if (d.record_input) options.record_input = d.record_input === 'true';
  if (d.port_forwarding) options.port_forwarding = d.port_forwarding === 'true';
  const deny = sideToBody(d.deny);
  return {
    name: d.name,
    ...(d.description ? { description: d.description } : {}),
    allow: sideToBody(d.allow),
    ...(Object.keys(deny).length ? { deny } : {}),
    ...(Object.keys(options).length ? { options: options as RoleBody['options'] } : {}),
  };
}
