// What a principal may do inside an app: roles' app_rules ({methods, paths}; `*` globs; allows add up
// across the roles that select the app, a matching deny from any role wins), evaluated as a pure
// function. A role that selects apps and names no app_rules reaches everything in them (as before the
// field existed). Paths are judged in one canonical form — percent-decoded, dot segments resolved,
// repeated slashes collapsed — so `/%61dmin`, `/x/../admin` and `//admin` are all `/admin`; a path
// that has no single reading (an encoded `/`, `\` or `%`, a control character) is refused whenever a
// rule applies. Denies also match without regard to case and with or without a trailing slash, since
// many app routers (Express's default) take `/ADMIN/` for `/admin`.
import { globMatch } from './glob.js';
import type { AppRule, RoleSpec } from './types.js';

/** One part of a principal's rights inside one app; an agent's are several, every one must allow. */
export interface AppRuleSet {
  allow: AppRule[];
  deny: AppRule[];
}

export const ANY_APP_REQUEST: AppRule = { methods: ['*'], paths: ['*'] };

const selectsApps = (role: RoleSpec) =>
  (role.allow.resources ?? []).some((s) => s.kinds.includes('app') || s.kinds.includes('*'));

/** A role's allows: its app_rules, or every request when it selects apps and names none. */
export function effectiveAppAllow(role: RoleSpec): AppRule[] {
  if (role.allow.app_rules) return role.allow.app_rules;
  return selectsApps(role) ? [ANY_APP_REQUEST] : [];
}

/** Allows of the roles that select an app; denies of every role (a deny applies in every app). */
export const appRuleSet = (selecting: readonly RoleSpec[], all: readonly RoleSpec[]): AppRuleSet => ({
  allow: selecting.flatMap(effectiveAppAllow),
  deny: all.flatMap((r) => r.deny?.app_rules ?? []),
});

const isAny = (r: AppRule) => r.methods.includes('*') && r.paths.includes('*');

/** Nothing to judge: every part allows every request and denies none (no path parsing needed). */
export const unrestricted = (sets: readonly AppRuleSet[]): boolean =>
  sets.every((s) => s.deny.length === 0 && s.allow.some(isAny));

/** The request target's path in canonical form, or undefined when it has no single reading. */
export function canonicalAppPath(target: string): string | undefined {
  const raw = target.split('?')[0] as string;
  if (!raw.startsWith('/') || raw.includes('\\') || /%(2f|5c|25|00)/i.test(raw)) return undefined;
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    return undefined;
  }
  if ([...decoded].some((c) => c < ' ' || c === '\x7f')) return undefined;
  const out: string[] = [];
  const segments = decoded.split('/');
  for (const seg of segments) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') out.pop();
    else out.push(seg);
  }
  const last = segments[segments.length - 1];
  const trailing = out.length > 0 && (last === '' || last === '.' || last === '..');
  return `/${out.join('/')}${trailing ? '/' : ''}`;
}

const methodOk = (r: AppRule, method: string) => r.methods.includes('*') || r.methods.includes(method);
const allows = (r: AppRule, method: string, path: string) =>
  methodOk(r, method) && r.paths.some((p) => globMatch(p, path));
function denies(r: AppRule, method: string, path: string): boolean {
  if (!methodOk(r, method)) return false;
  const lower = path.toLowerCase();
  const bare = lower.length > 1 && lower.endsWith('/') ? lower.slice(0, -1) : lower;
  return r.paths.some((p) => {
    const pattern = p.toLowerCase();
    return globMatch(pattern, lower) || globMatch(pattern, bare) || globMatch(pattern, `${bare}/`);
  });
}

export type AppVerdict = { allowed: true } | { allowed: false; reason: string };

/** May this request (method, request target) be made: every part must allow it and none deny it. */
export function appRequestVerdict(sets: readonly AppRuleSet[], method: string, target: string): AppVerdict {
  if (unrestricted(sets)) return { allowed: true };
  const path = canonicalAppPath(target);
  if (path === undefined)
    return { allowed: false, reason: 'its path has no single reading (an encoded / \\ or %, or a control character)' };
  for (const set of sets) {
    if (set.deny.some((r) => denies(r, method, path))) return { allowed: false, reason: `${method} ${path} is denied` };
    if (!set.allow.some((r) => allows(r, method, path)))
      return { allowed: false, reason: `${method} ${path} is not allowed` };
  }
  return { allowed: true };
}

/** Each path of a rule on its own, so that two rules of a caller may together cover one of a target. */
export const appRuleAtoms = (rules: readonly AppRule[]): AppRule[] =>
  rules.flatMap((r) => r.paths.map((p) => ({ methods: r.methods, paths: [p] })));

export const describeAppRule = (r: AppRule): string => `${r.methods.join(',')} ${r.paths.join(' ')}`;
