// Pure policy evaluation over a principal's roles. Default deny; a matching deny wins; allows from
// all roles add up. Compiled once per role set and reused until a role changes.
import type { Decision, LabeledResource, ResourceSelector, RoleSpec, Rule, Verb } from './types.js';

export interface Policy {
  can(resource: string, verb: Verb): Decision;
  canSee(resource: LabeledResource): boolean;
  logins(): string[];
}

export interface Traits {
  logins?: string[];
  [key: string]: string[] | undefined;
}

const globCache = new Map<string, RegExp>();
export function globMatch(pattern: string, value: string): boolean {
  if (!pattern.includes('*')) return pattern === value;
  let re = globCache.get(pattern);
  if (!re) {
    const escaped = pattern.split('*').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    re = new RegExp(`^${escaped.join('.*')}$`, 's');
    if (globCache.size > 10_000) globCache.clear();
    globCache.set(pattern, re);
  }
  return re.test(value);
}

const ruleMatches = (rule: Rule, resource: string, verb: Verb): boolean =>
  (rule.resources.includes('*') || rule.resources.includes(resource as never)) &&
  (rule.verbs.includes('*') || rule.verbs.includes(verb));

export function selectorMatches(selector: ResourceSelector, resource: LabeledResource): boolean {
  if (!selector.kinds.includes('*') && !selector.kinds.includes(resource.kind)) return false;
  for (const [key, pattern] of Object.entries(selector.labels ?? {})) {
    if (key === '*' && pattern === '*') continue;
    const value = resource.labels[key];
    if (value === undefined || !globMatch(pattern, value)) return false;
  }
  return true;
}

/** `{{traits.logins}}` (or Teleport's `{{internal.logins}}`) expands to the principal's trait values. */
function expandTraits(values: string[], traits: Traits): string[] {
  const out: string[] = [];
  for (const v of values) {
    const m = /^\{\{\s*(?:traits|internal)\.([a-z_]+)\s*\}\}$/.exec(v);
    if (m) out.push(...(traits[m[1] as string] ?? []));
    else out.push(v);
  }
  return out;
}

export function compilePolicy(roles: readonly RoleSpec[], traits: Traits = {}): Policy {
  const decisions = new Map<string, Decision>();
  return {
    can(resource, verb) {
      const cacheKey = `${resource}:${verb}`;
      const cached = decisions.get(cacheKey);
      if (cached) return cached;
      let decision: Decision = { allowed: false };
      const denying = roles.find((r) => r.deny?.rules?.some((rule) => ruleMatches(rule, resource, verb)));
      if (denying) decision = { allowed: false, role: denying.name };
      else {
        const allowing = roles.find((r) => r.allow.rules?.some((rule) => ruleMatches(rule, resource, verb)));
        if (allowing) decision = { allowed: true, role: allowing.name };
      }
      decisions.set(cacheKey, decision);
      return decision;
    },
    canSee(resource) {
      if (roles.some((r) => r.deny?.resources?.some((s) => selectorMatches(s, resource)))) return false;
      return roles.some((r) => r.allow.resources?.some((s) => selectorMatches(s, resource)));
    },
    logins() {
      const denied = new Set(roles.flatMap((r) => expandTraits(r.deny?.logins ?? [], traits)));
      const allowed = new Set(roles.flatMap((r) => expandTraits(r.allow.logins ?? [], traits)));
      return [...allowed].filter((l) => !denied.has(l)).sort();
    },
  };
}

/** An agent acts with what its own roles allow and its owner currently allows, never more. */
export function intersectPolicies(a: Policy, b: Policy): Policy {
  return {
    can(resource, verb) {
      const first = a.can(resource, verb);
      if (!first.allowed) return first;
      const second = b.can(resource, verb);
      return second.allowed ? first : second;
    },
    canSee: (resource) => a.canSee(resource) && b.canSee(resource),
    logins() {
      const other = new Set(b.logins());
      return a.logins().filter((l) => other.has(l));
    },
  };
}
