// Pure policy evaluation over a principal's roles. Default deny; a matching deny wins. API rules add
// up across roles; a connection is judged role by role: it is allowed when ONE role selects the
// resource and that same role allows every "as whom" value asked (login, database user and name…),
// so a login of one role never reaches what only another role selects. Denies apply across all
// roles. Compiled once per role set and reused until a role changes.
import { parseDuration } from '../lib/duration.js';
import { type AppRuleSet, appRuleSet } from './app-rules.js';
import { globMatch } from './glob.js';
import { type KubeRuleSet, kubeRuleSet } from './kube-resources.js';
import { type McpRuleSet, mcpRuleSet } from './mcp-tools.js';
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

/** How a person signs in to the console, after combining every role (src/mfa): most restrictive wins. */
export interface SignInOptions {
  /** A security key or passkey after the first factor (role option require_mfa). */
  requireMfa: boolean;
  /** A discoverable passkey alone may sign in (role option mfa_passwordless). */
  mfaPasswordless: boolean;
}

/** The "as whom" lists of a role: values may use `*` globs (not logins) and trait templates. */
export type PrincipalField = 'logins' | 'db_users' | 'db_names' | 'kube_groups' | 'kube_users';

/** One "as whom" value a connection asks for. */
export interface AsValue {
  field: PrincipalField;
  value: string;
}

export interface Policy {
  can(resource: string, verb: Verb): Decision;
  canSee(resource: LabeledResource): boolean;
  /**
   * Whether one role that selects `resource` allows every value of `as` (globs, traits), no role
   * denies the resource and no denied pattern matches a value. With `as` empty: canSee. Every door
   * asks this (through the access checker), never its own copy.
   */
  allowsOn(resource: LabeledResource, as: readonly AsValue[]): boolean;
  /**
   * The patterns of a field that the roles selecting `resource` allow (denied ones removed): for
   * messages, the logins a console shows, the Kubernetes groups and users a proxy impersonates.
   */
  allowedOn(resource: LabeledResource, field: PrincipalField): string[];
  options(): SessionOptions;
  signIn(): SignInOptions;
  /** kube_resources rules on one cluster, one set per part of the rights (an agent's: its roles', its owner's…). */
  kubeRules(cluster: LabeledResource): KubeRuleSet[];
  /** app_rules inside one app, one set per part of the rights, as kubeRules. */
  appRules(app: LabeledResource): AppRuleSet[];
  /** MCP tool rules on one MCP server, one set per part of the rights (as kubeRules). */
  mcpRules(server: LabeledResource): McpRuleSet[];
}

export interface Traits {
  logins?: string[];
  [key: string]: string[] | undefined;
}

/**
 * A login is a literal POSIX name: `*` in a role's logins is not a wildcard (it would reach root).
 * Database users and names and Kubernetes identities take `*` globs.
 */
export const valueMatches = (field: PrincipalField, pattern: string, value: string): boolean =>
  field === 'logins' ? pattern === value : globMatch(pattern, value);

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

/**
 * Most restrictive wins for signing in too: a second factor if any role asks for it; the passkey
 * alone only if some role allows it and none forbids it (unset says nothing), as port forwarding.
 */
export function combineSignInOptions(all: ReadonlyArray<RoleOptions | undefined>): SignInOptions {
  return {
    requireMfa: all.some((o) => o?.require_mfa === true),
    mfaPasswordless: all.some((o) => o?.mfa_passwordless === true) && !all.some((o) => o?.mfa_passwordless === false),
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
  let signIn: SignInOptions | undefined;
  // Each role's own "as whom" patterns, traits expanded, kept per role: never pooled across roles.
  const allowOf = new Map<PrincipalField, string[][]>();
  const denyOf = new Map<PrincipalField, string[]>();
  const allowLists = (field: PrincipalField): string[][] => {
    const cached = allowOf.get(field);
    if (cached) return cached;
    const lists = roles.map((r) => expandTraits(r.allow[field] ?? [], traits));
    allowOf.set(field, lists);
    return lists;
  };
  const denyList = (field: PrincipalField): string[] => {
    const cached = denyOf.get(field);
    if (cached) return cached;
    const list = roles.flatMap((r) => expandTraits(r.deny?.[field] ?? [], traits));
    denyOf.set(field, list);
    return list;
  };
  const denied = (field: PrincipalField, value: string) => denyList(field).some((d) => valueMatches(field, d, value));
  const resourceDenied = (resource: LabeledResource) =>
    roles.some((r) => r.deny?.resources?.some((s) => selectorMatches(s, resource)));
  const selects = (r: RoleSpec, resource: LabeledResource) =>
    r.allow.resources?.some((s) => selectorMatches(s, resource)) ?? false;
  /** Indexes of the roles that select the resource; none when a deny selector matches it. */
  const selecting = (resource: LabeledResource): number[] =>
    resourceDenied(resource) ? [] : roles.flatMap((r, i) => (selects(r, resource) ? [i] : []));
  const rolesSelecting = (resource: LabeledResource): RoleSpec[] => {
    const chosen = new Set(selecting(resource));
    return roles.filter((_, i) => chosen.has(i));
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
    canSee: (resource) => selecting(resource).length > 0,
    allowsOn(resource, as) {
      if (as.some(({ field, value }) => denied(field, value))) return false;
      return selecting(resource).some((i) =>
        as.every(({ field, value }) => allowLists(field)[i]?.some((p) => valueMatches(field, p, value))),
      );
    },
    allowedOn(resource, field) {
      const deny = denyList(field);
      const out = new Set<string>();
      for (const i of selecting(resource)) {
        for (const p of allowLists(field)[i] ?? []) {
          // A pattern a deny names as written, or a value a denied pattern matches, is not offered.
          if (deny.includes(p) || (!p.includes('*') && denied(field, p))) continue;
          out.add(p);
        }
      }
      return [...out].sort();
    },
    options() {
      options ??= combineOptions(roles.map((r) => r.options));
      return options;
    },
    signIn() {
      signIn ??= combineSignInOptions(roles.map((r) => r.options));
      return signIn;
    },
    // Rules of the roles that select the resource; denies from every role.
    kubeRules: (cluster) => [kubeRuleSet(rolesSelecting(cluster), roles)],
    appRules: (app) => [appRuleSet(rolesSelecting(app), roles)],
    mcpRules(server) {
      return [mcpRuleSet(rolesSelecting(server), roles, (values) => expandTraits(values, traits))];
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
    allowsOn: (resource, as) => a.allowsOn(resource, as) && b.allowsOn(resource, as),
    // Patterns of one side that the other allows there as written (exact values; globs need both sides).
    allowedOn(resource, field) {
      const other = b.allowedOn(resource, field);
      return a
        .allowedOn(resource, field)
        .filter((p) => other.includes(p) || b.allowsOn(resource, [{ field, value: p }]));
    },
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
    // Both parts must agree to the passkey alone; either asking for a second factor asks for it.
    signIn() {
      const x = a.signIn();
      const y = b.signIn();
      return { requireMfa: x.requireMfa || y.requireMfa, mfaPasswordless: x.mfaPasswordless && y.mfaPasswordless };
    },
    kubeRules: (cluster) => [...a.kubeRules(cluster), ...b.kubeRules(cluster)],
    appRules: (app) => [...a.appRules(app), ...b.appRules(app)],
    mcpRules: (server) => [...a.mcpRules(server), ...b.mcpRules(server)],
  };
}
