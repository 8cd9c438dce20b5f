// From an identity provider's claims to Gatehouse's roles, traits and user name. Pure: the provider
// stays the source of truth, so this runs at every sign-in and its answer replaces what the user held.
import { Name } from '../lib/shapes.js';
import { globMatch } from '../rbac/glob.js';
import type { ClaimMapping } from './records.js';

export type Claims = Record<string, unknown>;

/** A claim's values as strings: a string, a number or boolean, or a list of those; nothing else. */
export function claimValues(claims: Claims, name: string): string[] {
  const raw = claims[name];
  const list = Array.isArray(raw) ? raw : raw === undefined || raw === null ? [] : [raw];
  return list
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
