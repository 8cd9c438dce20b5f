// Rules that narrow, inside the resources a role selects, what that role allows there (kube_resources
// inside clusters, app_rules inside apps), for the covering rule (coverage.ts): judged role by role,
// as the access checker uses them, so a rule held on dev covers nothing on prod.
import { appRuleAtoms, describeAppRule, effectiveAppAllow } from './app-rules.js';
import {
  appRuleContains,
  appRulesMayMeet,
  describeSelector,
  kubeRuleContains,
  kubeRulesMayMeet,
  selectorContains,
  UNDENIED,
} from './containment.js';
import { describeKubeRule, effectiveKubeAllow } from './kube-resources.js';
import type { AppRule, KubeResourceRule, ResourceSelector, RoleSpec } from './types.js';

/**
 * Rules that narrow what a role's resources allow inside them (kube_resources, app_rules): the
 * effective allows of a role, its denies as written, containment, overlap, how a gap is named, and
 * which selectors they apply on.
 */
export interface ScopedRules<R> {
  label: string;
  allowOf(r: RoleSpec): R[];
  denyOf(r: RoleSpec): R[];
  /** As written in the stand-in of removed denies (never the every-object default). */
  undeniedOf(r: RoleSpec): R[];
  contains(outer: R, inner: R): boolean;
  mayMeet(a: R, b: R): boolean;
  describe(r: R): string;
  appliesOn(s: ResourceSelector): boolean;
}

/** Role by role: a target rule reaches only the resources its own role selects. */
export function scopedGaps<R>(
  caller: { roles: readonly RoleSpec[] },
  target: { roles: readonly RoleSpec[] },
  k: ScopedRules<R>,
): string[] {
  const gaps: string[] = [];
  const allowOf = (r: RoleSpec) => (r.name === UNDENIED ? k.undeniedOf(r) : k.allowOf(r));
  const [tDeny, cDeny] = [target.roles.flatMap(k.denyOf), caller.roles.flatMap(k.denyOf)];
  const targetDenies = target.roles.flatMap((r) => r.deny?.resources ?? []);
  for (const t of target.roles) {
    for (const r of allowOf(t)) {
      if (tDeny.some((d) => k.contains(d, r))) continue;
      const denied = cDeny.some((d) => k.mayMeet(d, r) && !tDeny.some((td) => k.contains(td, d)));
      const holds = (c: RoleSpec) => allowOf(c).some((a) => k.contains(a, r));
      if (denied || !caller.roles.some(holds)) {
        gaps.push(`${k.label} ${k.describe(r)}`);
        continue;
      }
      if (t.name === UNDENIED) continue;
      for (const s of t.allow.resources ?? []) {
        if (!k.appliesOn(s) || targetDenies.some((d) => selectorContains(d, s))) continue;
        const onIt = caller.roles.some(
          (c) => holds(c) && (c.allow.resources ?? []).some((cs) => selectorContains(cs, s)),
        );
        if (!onIt) gaps.push(`${k.label} ${k.describe(r)} on ${describeSelector(s)}`);
      }
    }
  }
  return gaps;
}

export const KUBE_RULES: ScopedRules<KubeResourceRule> = {
  label: 'kube_resource',
  allowOf: effectiveKubeAllow,
  denyOf: (r) => r.deny?.kube_resources ?? [],
  undeniedOf: (r) => r.allow.kube_resources ?? [],
  contains: kubeRuleContains,
  mayMeet: kubeRulesMayMeet,
  describe: describeKubeRule,
  appliesOn: () => true,
};

export const APP_RULES: ScopedRules<AppRule> = {
  label: 'app_rule',
  allowOf: (r) => appRuleAtoms(effectiveAppAllow(r)),
  denyOf: (r) => appRuleAtoms(r.deny?.app_rules ?? []),
  undeniedOf: (r) => appRuleAtoms(r.allow.app_rules ?? []),
  contains: appRuleContains,
  mayMeet: appRulesMayMeet,
  describe: describeAppRule,
  appliesOn: (s) => s.kinds.includes('app') || s.kinds.includes('*'),
};
