// "Nobody grants what they do not hold" (docs/api.md), written once. A grant — the roles a user or
// agent would get, a role being created or changed, a credential for another principal — is within a
// caller's rights when everything it allows, the caller is allowed too, and its session options are
// no looser than the caller's. Pure and conservative: where containment cannot be proven (two globs),
// the answer is "not covered", never a guess in the caller's favour.

import { appRuleAtoms } from './app-rules.js';
import {
  appRuleContains,
  describeSelector,
  globContains,
  globsMayMeet,
  kubeRuleContains,
  selectorContains,
  selectorsMayMeet,
  UNDENIED,
} from './containment.js';
import { combineOptions, compilePolicy, type Traits } from './policy.js';
import { APP_RULES, KUBE_RULES, scopedGaps } from './scoped-coverage.js';
import { API_RESOURCES, type RoleConditions, type RoleSpec, type Rule, VERBS, type Verb } from './types.js';

/**
 * A set of rights: roles, and the traits their templates expand with. Without traits (a role on its
 * own, not yet anyone's), a template such as `{{traits.logins}}` stays as written: it can expand to
 * anything, so only a caller who holds `*` (or is admin) covers it.
 */
export { appRuleContains, describeSelector, globContains, kubeRuleContains, selectorContains };

export interface Grant {
  roles: readonly RoleSpec[];
  traits?: Traits;
}

/** The built-in superuser role: whoever holds it covers everything, by definition. */
export const SUPERUSER_ROLE = 'admin';

// MCP tool, resource and prompt globs are covered as "as whom" values are: role by role, on the
// servers that role selects.
const PRINCIPAL_FIELDS = [
  'logins',
  'db_users',
  'db_names',
  'kube_groups',
  'kube_users',
  'mcp_tools',
  'mcp_resources',
  'mcp_prompts',
] as const;
type CoveredField = (typeof PRINCIPAL_FIELDS)[number];
const FIELD_LABEL: Record<CoveredField, string> = {
  logins: 'login',
  db_users: 'db_user',
  db_names: 'db_name',
  kube_groups: 'kube_group',
  kube_users: 'kube_user',
  mcp_tools: 'mcp_tool',
  mcp_resources: 'mcp_resource',
  mcp_prompts: 'mcp_prompt',
};

/** Containment for an "as whom" field: a login is a literal name, never a glob (policy.ts). */
const valueContains = (field: CoveredField, outer: string, inner: string): boolean =>
  field === 'logins' ? outer === inner : globContains(outer, inner);

const TEMPLATE = /^\{\{\s*(?:traits|internal)\.([a-z_]+)\s*\}\}$/;

/** One role's values of a field, templates expanded with the grant's traits (kept as written without). */
function roleValues(r: RoleSpec, traits: Traits | undefined, side: 'allow' | 'deny', field: CoveredField): string[] {
  const raw = (side === 'allow' ? r.allow : r.deny)?.[field] ?? [];
  if (!traits) return raw;
  return raw.flatMap((v) => {
    const m = TEMPLATE.exec(v);
    return m ? (traits[m[1] as string] ?? []) : [v];
  });
}

const valuesOf = (g: Grant, side: 'allow' | 'deny', field: CoveredField): string[] =>
  g.roles.flatMap((r) => roleValues(r, g.traits, side, field));

const selectorsOf = (g: Grant, side: 'allow' | 'deny') =>
  g.roles.flatMap((r) => (side === 'allow' ? r.allow : r.deny)?.resources ?? []);

/**
 * Whether a grant's own roles let anyone connect anywhere: only then do its session options matter.
 * What a removed deny opens up is reached under the holder's other roles' options, so it is left out.
 */
const connects = (g: Grant) => {
  const denied = selectorsOf(g, 'deny');
  return g.roles
    .filter((r) => r.name !== UNDENIED)
    .some((r) => (r.allow.resources ?? []).some((s) => !denied.some((d) => selectorContains(d, s))));
};

/**
 * The "as whom" values a grant gives, judged role by role as the access checker uses them: a value
 * of a target role reaches only the resources that same role selects, so the caller must hold it on
 * those resources through one role of its own (a login held on dev covers nothing on prod). A role
 * with values and no selectors reaches nothing, but whoever grants it must still hold
 * its values somewhere (conservative). What removed denies reopen (UNDENIED) has no
 * selectors of its own: a value there must be held by some role of the caller, on anything.
 */
function identityGaps(caller: Grant, target: Grant): string[] {
  const gaps: string[] = [];
  const targetDenies = selectorsOf(target, 'deny');
  for (const field of PRINCIPAL_FIELDS) {
    const tDeny = valuesOf(target, 'deny', field);
    // A deny the target carries too takes from the grant what it takes from the caller: no gap.
    const cDeny = valuesOf(caller, 'deny', field).filter((d) => !tDeny.some((td) => valueContains(field, td, d)));
    const holds = (r: RoleSpec, v: string) =>
      roleValues(r, caller.traits, 'allow', field).some((p) => valueContains(field, p, v)) &&
      !cDeny.some((d) => (field === 'logins' ? d === v : globsMayMeet(d, v)));
    for (const t of target.roles) {
      for (const v of new Set(roleValues(t, target.traits, 'allow', field))) {
        if (tDeny.some((d) => valueContains(field, d, v))) continue;
        if (!caller.roles.some((c) => holds(c, v))) {
          gaps.push(`${FIELD_LABEL[field]} ${v}`);
          continue;
        }
        if (t.name === UNDENIED) continue;
        for (const s of t.allow.resources ?? []) {
          if (targetDenies.some((d) => selectorContains(d, s))) continue;
          const onIt = caller.roles.some(
            (c) => holds(c, v) && (c.allow.resources ?? []).some((cs) => selectorContains(cs, s)),
          );
          if (!onIt) gaps.push(`${FIELD_LABEL[field]} ${v} on ${describeSelector(s)}`);
        }
      }
    }
  }
  return gaps;
}

/**
 * MCP restrictions the caller works under must bind the grant too: each of the caller's argument
 * schemas appears in the target as written (a schema cannot be proven narrower), and each tool the
 * caller may call only with an approval needs one under the target as well.
 */
function mcpGaps(caller: Grant, target: Grant): string[] {
  const targetTools = target.roles.some((r) => (r.allow.mcp_tools ?? []).length > 0);
  if (!targetTools) return [];
  const gaps: string[] = [];
  const carried = (r: RoleSpec) => (r.allow.mcp_tool_arguments ?? []).map((a) => JSON.stringify(a));
  const tArgs = target.roles.flatMap(carried);
  for (const a of caller.roles.flatMap((r) => r.allow.mcp_tool_arguments ?? [])) {
    const schema = JSON.stringify(a);
    if (!tArgs.includes(schema)) {
      gaps.push(`mcp_tool_arguments for ${a.tool} as yours`);
      continue;
    }
    // The gateway checks a call against the schemas of the roles that select the server only
    // (rbac/mcp-tools.ts), so carrying the schema somewhere is not enough: every role that may give
    // the tool on some servers needs it from a role selecting at least those servers (itself, or one
    // whose selectors contain each of its own). Otherwise a role selecting nothing carries the schema
    // while another gives the tool unchecked.
    for (const r of target.roles) {
      const selectors = r.allow.resources ?? [];
      if (selectors.length === 0 || !(r.allow.mcp_tools ?? []).some((t) => globsMayMeet(t, a.tool))) continue;
      const bound = target.roles.some(
        (r2) =>
          carried(r2).includes(schema) &&
          selectors.every((s) => (r2.allow.resources ?? []).some((s2) => selectorContains(s2, s))),
      );
      if (!bound) gaps.push(`mcp_tool_arguments for ${a.tool} as yours, in role ${r.name} (it gives the tool)`);
    }
  }
  const tApproval = target.roles.flatMap((r) => r.options?.mcp_require_approval ?? []);
  for (const p of caller.roles.flatMap((r) => r.options?.mcp_require_approval ?? [])) {
    if (!tApproval.some((t) => globContains(t, p))) gaps.push(`option mcp_require_approval ${p}`);
  }
  const recorded = (g: Grant) => g.roles.some((r) => r.options?.mcp_record_arguments === true);
  if (recorded(caller) && !recorded(target)) gaps.push('option mcp_record_arguments: true');
  return gaps;
}

/** What `target` allows that `caller` does not, one line each; empty when covered. */
function gapsAgainst(caller: Grant, target: Grant): string[] {
  if (caller.roles.some((r) => r.name === SUPERUSER_ROLE)) return [];
  const gaps: string[] = [];
  const t = compilePolicy(target.roles, target.traits ?? {});
  const c = compilePolicy(caller.roles, caller.traits ?? {});
  for (const resource of API_RESOURCES) {
    for (const verb of VERBS) {
      if (t.can(resource, verb).allowed && !c.can(resource, verb).allowed) gaps.push(`${resource}:${verb}`);
    }
  }

  const targetDenies = selectorsOf(target, 'deny');
  const callerAllows = selectorsOf(caller, 'allow');
  const callerDenies = selectorsOf(caller, 'deny');
  for (const s of selectorsOf(target, 'allow')) {
    if (targetDenies.some((d) => selectorContains(d, s))) continue;
    if (!callerAllows.some((a) => selectorContains(a, s))) {
      gaps.push(`resources ${describeSelector(s)}`);
      continue;
    }
    const denied = callerDenies.find(
      (d) => selectorsMayMeet(d, s) && !targetDenies.some((td) => selectorContains(td, d)),
    );
    if (denied) gaps.push(`resources ${describeSelector(s)} (you are denied ${describeSelector(denied)})`);
  }

  gaps.push(...identityGaps(caller, target));
  gaps.push(...scopedGaps(caller, target, KUBE_RULES));
  gaps.push(...scopedGaps(caller, target, APP_RULES));
  gaps.push(...mcpGaps(caller, target));

  if (connects(target)) {
    const co = combineOptions(caller.roles.map((r) => r.options));
    const to = combineOptions(target.roles.filter((r) => r.name !== UNDENIED).map((r) => r.options));
    if (
      co.maxSessionTtlMs !== undefined &&
      (to.maxSessionTtlMs === undefined || to.maxSessionTtlMs > co.maxSessionTtlMs)
    )
      gaps.push(`option max_session_ttl no longer than yours (${co.maxSessionTtlMs / 1000}s)`);
    if (co.recordSession === 'strict' && to.recordSession !== 'strict') gaps.push('option record_session: strict');
    if (co.recordInput && !to.recordInput) gaps.push('option record_input: true');
    if (!co.portForwarding && to.portForwarding) gaps.push('option port_forwarding');
    if (co.dbReadOnly && !to.dbReadOnly) gaps.push('option db_read_only: true');
    if (co.dbRecordParameters && !to.dbRecordParameters) gaps.push('option db_record_parameters: true');
  }
  return gaps;
}

/**
 * What `target` would give that the caller does not hold; empty when the caller covers it. The
 * caller's rights are an intersection (an agent: its token's roles ∩ its owner's ∩ the user it acts
 * for), so the target must fit within every part.
 */
export function coverageGaps(caller: readonly Grant[], target: Grant): string[] {
  if (caller.length === 0) return ['(no rights at all)'];
  return [...new Set(caller.flatMap((part) => gapsAgainst(part, target)))];
}

const deniedPairs = (roles: readonly RoleSpec[]): Set<string> => {
  const denies = compilePolicy(roles.map((r) => ({ name: r.name, allow: { rules: r.deny?.rules ?? [] } })));
  const out = new Set<string>();
  for (const resource of API_RESOURCES) {
    for (const verb of VERBS) if (denies.can(resource, verb).allowed) out.add(`${resource}:${verb}`);
  }
  return out;
};

const sameRights = (a: RoleSpec, b: RoleSpec) =>
  JSON.stringify([a.allow, a.deny ?? {}, a.options ?? {}]) === JSON.stringify([b.allow, b.deny ?? {}, b.options ?? {}]);

/**
 * What changing a principal's (or a role's) rights from `before` to `after` adds: every role that is
 * new or changed, plus whatever a removed deny stops denying — dropping a deny widens, as surely as
 * adding an allow does.
 */
export function wideningOf(before: readonly RoleSpec[], after: readonly RoleSpec[]): RoleSpec[] {
  const added = after.filter((a) => !before.some((b) => b.name === a.name && sameRights(a, b)));
  const undenied: RoleConditions = {};
  const stillDenied = deniedPairs(after);
  const rules: Rule[] = [...deniedPairs(before)]
    .filter((pair) => !stillDenied.has(pair))
    .map((pair) => {
      const [resource, verb] = pair.split(':') as [Rule['resources'][number], Verb];
      return { resources: [resource], verbs: [verb] };
    });
  if (rules.length) undenied.rules = rules;
  const afterSelectors = after.flatMap((r) => r.deny?.resources ?? []);
  const selectors = before
    .flatMap((r) => r.deny?.resources ?? [])
    .filter((d) => !afterSelectors.some((a) => selectorContains(a, d)));
  if (selectors.length) undenied.resources = selectors;
  for (const field of PRINCIPAL_FIELDS) {
    const afterValues = after.flatMap((r) => r.deny?.[field] ?? []);
    const values = before
      .flatMap((r) => r.deny?.[field] ?? [])
      .filter((v) => !afterValues.some((a) => globContains(a, v)));
    if (values.length) undenied[field] = [...new Set(values)];
  }
  const afterKube = after.flatMap((r) => r.deny?.kube_resources ?? []);
  const kube = before
    .flatMap((r) => r.deny?.kube_resources ?? [])
    .filter((d) => !afterKube.some((a) => kubeRuleContains(a, d)));
  if (kube.length) undenied.kube_resources = kube;
  const afterApp = appRuleAtoms(after.flatMap((r) => r.deny?.app_rules ?? []));
  const app = appRuleAtoms(before.flatMap((r) => r.deny?.app_rules ?? [])).filter(
    (d) => !afterApp.some((a) => appRuleContains(a, d)),
  );
  if (app.length) undenied.app_rules = app;
  const removedDenies = Object.keys(undenied).length > 0;
  return removedDenies ? [...added, { name: UNDENIED, allow: undenied }] : added;
}
