// From an identity provider's claims to Gatehouse's roles, traits and user name. Pure: the provider
// stays the source of truth, so this runs at every sign-in and its answer replaces what the user held.
import { Name } from '../lib/shapes.js';
import { globMatch } from '../rbac/glob.js';
import type { ClaimMapping } from './records.js';

export type Claims = Record<string, unknown>;

const MAX_DEPTH = 8;
const MAX_VALUES = 256;

/**
 * Where a claim lives. A name the claims hold as it is wins (providers namespace claims with URLs,
 * which have dots: `https://example.com/groups`); otherwise a dotted name is a path into nested
 * objects (Keycloak's `realm_access.roles`, `resource_access.gatehouse.roles`), and a list met on the
 * way is walked element by element (`teams.name` over `[{"name": "a"}, {"name": "b"}]`). Own
 * properties only: a path never reaches what an object inherits.
 */
function claimAt(claims: Claims, name: string): unknown[] {
  if (Object.hasOwn(claims, name)) return [claims[name]];
  const path = name.split('.');
  if (path.length < 2 || path.length > MAX_DEPTH || path.some((p) => p === '')) return [];
  let here: unknown[] = [claims];
  for (const step of path) {
    here = flatten(here).flatMap((node) =>
      node !== null && typeof node === 'object' && !Array.isArray(node) && Object.hasOwn(node, step)
        ? [(node as Record<string, unknown>)[step]]
        : [],
    );
  }
  return here;
}

/** Lists inside lists become one list (a bounded depth: a claim is data from outside). */
function flatten(values: unknown[], depth = 0): unknown[] {
  const out: unknown[] = [];
  for (const v of values) {
    if (Array.isArray(v) && depth < MAX_DEPTH) out.push(...flatten(v, depth + 1));
    else if (!Array.isArray(v)) out.push(v);
    if (out.length > MAX_VALUES) break;
  }
  return out.slice(0, MAX_VALUES);
}

/**
 * A claim's values as strings: a string, a number or boolean, or a list of those (nested lists
 * flattened), found by its name or a dotted path (claimAt); objects and empty values are dropped.
 */
export function claimValues(claims: Claims, name: string): string[] {
  return flatten(claimAt(claims, name))
    .filter((v) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean')
    .map(String)
    .filter((v) => v.length > 0 && v.length <= 256);
}

const TEMPLATE = /\{\{\s*(value|claims\.([A-Za-z0-9_:.-]+))\s*\}\}/g;

/** Whether a role name is a template (so what it grants is known only at sign-in). */
export const isRoleTemplate = (role: string): boolean => /\{\{[^}]*\}\}/.test(role);

/** A role template expanded: `{{value}}` with the matched value, `{{claims.x}}` with each value of x. */
function expand(role: string, matched: string, claims: Claims): string[] {
  let out = [''];
  let last = 0;
  for (const m of role.matchAll(TEMPLATE)) {
    const literal = role.slice(last, m.index);
    const values = m[1] === 'value' ? [matched] : claimValues(claims, m[2] as string);
    out = out.flatMap((head) => values.map((v) => head + literal + v));
    last = (m.index as number) + m[0].length;
  }
  return out.map((head) => head + role.slice(last));
}

/** A role name a template may produce: the same characters role names allow, nothing a claim smuggles. */
const ROLE_NAME = new RegExp(Name.pattern as string);

/** The roles the claims map to, in mapping order, without duplicates; empty when none matches. */
export function rolesFromClaims(mappings: readonly ClaimMapping[], claims: Claims): string[] {
  const roles = new Set<string>();
  for (const mapping of mappings) {
    for (const value of claimValues(claims, mapping.claim)) {
      if (!globMatch(mapping.value, value)) continue;
      for (const role of mapping.roles) {
        for (const name of isRoleTemplate(role) ? expand(role, value, claims) : [role]) {
          if (name.length <= 64 && ROLE_NAME.test(name)) roles.add(name);
        }
      }
    }
  }
  return [...roles];
}

/** Traits from claims: each named trait gets the claim's values (a provider-supplied login list). */
export function traitsFromClaims(map: Readonly<Record<string, string>>, claims: Claims): Record<string, string[]> {
  const traits: Record<string, string[]> = {};
  for (const [trait, claim] of Object.entries(map)) {
    const values = claimValues(claims, claim);
    if (values.length > 0) traits[trait] = [...new Set(values)].slice(0, 64);
  }
  return traits;
}

/** The user name the provider gives, if it is one Gatehouse accepts. */
export function usernameFromClaims(claims: Claims, usernameClaim: string, pattern: RegExp): string | undefined {
  const [name] = claimValues(claims, usernameClaim);
  return name !== undefined && pattern.test(name) ? name : undefined;
}
