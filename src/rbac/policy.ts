// Pure policy evaluation over a principal's roles. Default deny; a matching deny wins; allows from
// all roles add up. Compiled once per role set and reused until a role changes.
import { parseDuration } from '../lib/duration.js';
import { type KubeRuleSet, kubeRuleSet } from './kube-resources.js';
import type { Decision, LabeledResource, ResourceSelector, RoleOptions, RoleSpec, Rule, Verb } from './types.js';

/** Session options after combining every role: the most restrictive wins. */
export interface SessionOptions {
  /** Milliseconds; undefined: no limit from any role. */
  maxSessionTtlMs?: number;
  recordSession: 'best_effort' | 'strict';
  recordInput: boolean;
  portForwarding: boolean;
  /** Database sessions are read-only (role option db_read_only). */
  dbReadOnly: boolean;
  /** db.query events carry bind parameters (role option db_record_parameters). */
  dbRecordParameters: boolean;
}

/** The "as whom" lists of a role (DESIGN.md §4): values may use `*` globs and trait templates. */
export type PrincipalField = 'logins' | 'db_users' | 'db_names' | 'kube_groups' | 'kube_users';

export interface Policy {
  can(resource: string, verb: Verb): Decision;
  canSee(resource: LabeledResource): boolean;
  logins(): string[];
  /**
   * Whether `value` may be used as a login, database user, database name or Kubernetes group: some
   * allowed pattern matches it and no denied one does. Every proxy asks this, never its own copy.
   */
  allows(field: PrincipalField, value: string): boolean;
  /** The allowed patterns of a field, for messages and kubeconfig groups (denied ones removed). */
  allowed(field: PrincipalField): string[];
  options(): SessionOptions;
  /** kube_resources rules, one set per part of the rights (an agent's: its roles', its owner's…). */
  kubeRules(): KubeRuleSet[];
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

/**
 * Most restrictive wins: the shortest TTL; strict recording if any role asks; input recorded if any
 * role asks (more recording is the cautious side); forwarding only if some role allows it and none
 * forbids it (unset says nothing); database sessions read-only if any role says so.
 */
export function combineOptions(all: ReadonlyArray<RoleOptions | undefined>): SessionOptions {
  let ttl: number | undefined;
  for (const o of all) {
    const ms = o?.max_session_ttl === undefined ? undefined : parseDuration(o.max_session_ttl);
    if (ms !== undefined && (ttl === undefined || ms < ttl)) ttl = ms;
  }
  return {
    ...(ttl === undefined ? {} : { maxSessionTtlMs: ttl }),
    recordSession: all.some((o) => o?.record_session === 'strict') ? 'strict' : 'best_effort',
    recordInput: all.some((o) => o?.record_input === true),
    portForwarding: all.some((o) => o?.port_forwarding === true) && !all.some((o) => o?.port_forwarding === false),
    dbReadOnly: all.some((o) => o?.db_read_only === true),
    dbRecordParameters: all.some((o) => o?.db_record_parameters === true),
  };
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
  let options: SessionOptions | undefined;
  let kube: KubeRuleSet[] | undefined;
  const listCache = new Map<PrincipalField, { allow: string[]; deny: string[] }>();
  const lists = (field: PrincipalField) => {
    let l = listCache.get(field);
    if (!l) {
      l = {
        allow: roles.flatMap((r) => expandTraits(r.allow[field] ?? [], traits)),
        deny: roles.flatMap((r) => expandTraits(r.deny?.[field] ?? [], traits)),
      };
      listCache.set(field, l);
    }
    return l;
  };
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
    allows(field, value) {
      const { allow, deny } = lists(field);
      return allow.some((p) => globMatch(p, value)) && !deny.some((p) => globMatch(p, value));
    },
    allowed(field) {
      const { allow, deny } = lists(field);
      return [...new Set(allow)].filter((p) => !deny.includes(p)).sort();
    },
    options() {
      options ??= combineOptions(roles.map((r) => r.options));
      return options;
    },
    kubeRules() {
      kube ??= [kubeRuleSet(roles)];
      return kube;
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
    allows: (field, value) => a.allows(field, value) && b.allows(field, value),
    // Patterns of one side that the other allows as written (exact values; globs need both sides).
    allowed: (field) => a.allowed(field).filter((p) => b.allows(field, p) || b.allowed(field).includes(p)),
    options() {
      const x = a.options();
      const y = b.options();
      const ttls = [x.maxSessionTtlMs, y.maxSessionTtlMs].filter((t): t is number => t !== undefined);
      return {
        ...(ttls.length ? { maxSessionTtlMs: Math.min(...ttls) } : {}),
        recordSession: x.recordSession === 'strict' || y.recordSession === 'strict' ? 'strict' : 'best_effort',
        recordInput: x.recordInput || y.recordInput,
        portForwarding: x.portForwarding && y.portForwarding,
        dbReadOnly: x.dbReadOnly || y.dbReadOnly,
        dbRecordParameters: x.dbRecordParameters || y.dbRecordParameters,
      };
    },
    kubeRules: () => [...a.kubeRules(), ...b.kubeRules()],
  };
}
