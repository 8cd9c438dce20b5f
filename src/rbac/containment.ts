// Containment of the patterns roles are written in, for the covering rule (coverage.ts): whether
// everything one pattern (a glob, a selector, a Kubernetes or app rule) admits, another admits too —
// proven, or answered "no" — and whether two may meet at all (false only when provably disjoint).

import { globMatch } from './glob.js';
import type { AppRule, KubeResourceRule, ResourceSelector } from './types.js';

/** The stand-in role of wideningOf(): what removed denies stop denying. */
export const UNDENIED = '(removed denies)';

/** Every string `inner` matches, `outer` matches too (proven, or false). */
export function globContains(outer: string, inner: string): boolean {
  if (outer === inner || outer === '*') return true;
  if (!inner.includes('*')) return globMatch(outer, inner);
  // Both are globs: prove it only for one-star outers (prefix*suffix), which is what roles use.
  const star = outer.indexOf('*');
  if (star < 0 || outer.indexOf('*', star + 1) >= 0) return false;
  const [prefix, suffix] = [outer.slice(0, star), outer.slice(star + 1)];
  const innerHead = inner.slice(0, inner.indexOf('*'));
  const innerTail = inner.slice(inner.lastIndexOf('*') + 1);
  return innerHead.startsWith(prefix) && innerTail.endsWith(suffix);
}

/** Whether some string may match both (false only when provably disjoint). */
export function globsMayMeet(a: string, b: string): boolean {
  if (!a.includes('*')) return globMatch(b, a);
  if (!b.includes('*')) return globMatch(a, b);
  return true;
}

/** Every object, namespace and verb `inner` reaches, `outer` reaches too. */
export function kubeRuleContains(outer: KubeResourceRule, inner: KubeResourceRule): boolean {
  const verbs =
    outer.verbs.includes('*') || (!inner.verbs.includes('*') && inner.verbs.every((v) => outer.verbs.includes(v)));
  return (
    verbs &&
    globContains(outer.kind, inner.kind) &&
    globContains(outer.namespace ?? '*', inner.namespace ?? '*') &&
    globContains(outer.name ?? '*', inner.name ?? '*')
  );
}

export const kubeRulesMayMeet = (a: KubeResourceRule, b: KubeResourceRule): boolean =>
  (a.verbs.includes('*') || b.verbs.includes('*') || a.verbs.some((v) => b.verbs.includes(v))) &&
  globsMayMeet(a.kind, b.kind) &&
  globsMayMeet(a.namespace ?? '*', b.namespace ?? '*') &&
  globsMayMeet(a.name ?? '*', b.name ?? '*');

export const labelsOf = (s: ResourceSelector) =>
  Object.entries(s.labels ?? {}).filter(([key, pattern]) => !(key === '*' && pattern === '*'));

/** Every resource `inner` selects, `outer` selects too. */
export function selectorContains(outer: ResourceSelector, inner: ResourceSelector): boolean {
  const kinds =
    outer.kinds.includes('*') || (!inner.kinds.includes('*') && inner.kinds.every((k) => outer.kinds.includes(k)));
  if (!kinds) return false;
  return labelsOf(outer).every(([key, pattern]) => {
    const required = inner.labels?.[key];
    return required !== undefined && globContains(pattern, required);
  });
}

export function selectorsMayMeet(a: ResourceSelector, b: ResourceSelector): boolean {
  const anyKind = a.kinds.includes('*') || b.kinds.includes('*') || a.kinds.some((k) => b.kinds.includes(k));
  if (!anyKind) return false;
  return labelsOf(a).every(([key, pattern]) => {
    const other = b.labels?.[key];
    return other === undefined || globsMayMeet(pattern, other);
  });
}

export const describeSelector = (s: ResourceSelector): string => {
  const labels = labelsOf(s).map(([k, v]) => `${k}=${v}`);
  return `${s.kinds.join('|')}${labels.length ? ` ${labels.join(',')}` : ''}`;
};

/** Every request `inner` allows, `outer` allows too (one path each: atoms). */
export function appRuleContains(outer: AppRule, inner: AppRule): boolean {
  const methods =
    outer.methods.includes('*') ||
    (!inner.methods.includes('*') && inner.methods.every((m) => outer.methods.includes(m)));
  return methods && inner.paths.every((p) => outer.paths.some((o) => globContains(o, p)));
}

/** Denies match regardless of case (app-rules.ts), so overlap is judged in lower case. */
export const appRulesMayMeet = (a: AppRule, b: AppRule): boolean =>
  (a.methods.includes('*') || b.methods.includes('*') || a.methods.some((m) => b.methods.includes(m))) &&
  a.paths.some((p) => b.paths.some((q) => globsMayMeet(p.toLowerCase(), q.toLowerCase())));
