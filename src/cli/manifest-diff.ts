// What `gatehouse apply --dry-run` shows of a document that would change an object: one line per
// spec field that changes, by its path (`allow.rules`, `labels.env`), as `~ path: old → new`,
// `+ path: new` or `- path: old`. It agrees with `unchanged` (manifest-kinds.ts): a field a patch
// leaves out is not shown, nor an empty one a replacement drops. A write-only field (a client secret,
// a database's credentials) is never answered, so it is always sent, and its value is never shown.
import { isDeepStrictEqual } from 'node:util';
import { type Kind, keptWhenLeftOut, type Spec } from './manifest-kinds.js';

const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const show = (v: unknown) => JSON.stringify(v);

/** Lines for one value's change below `path`; maps are compared key by key. */
function diffValue(path: string, from: unknown, to: unknown, out: string[]): void {
  if (isDeepStrictEqual(from, to)) return;
  if (isMap(from) && isMap(to)) {
    for (const key of new Set([...Object.keys(from), ...Object.keys(to)]))
      diffValue(`${path}.${key}`, from[key], to[key], out);
    return;
  }
  if (from === undefined) out.push(`+ ${path}: ${show(to)}`);
  else if (to === undefined) out.push(`- ${path}: ${show(from)}`);
  else out.push(`~ ${path}: ${show(from)} → ${show(to)}`);
}

/** The changes applying `desired` would make to an object whose spec is `current`. */
export function changesOf(kind: Kind, desired: Spec, current: Spec): string[] {
  const out: string[] = [];
  for (const [key, value] of Object.entries(desired)) {
    if (kind.writeOnly.includes(key)) out.push(`~ ${key}: (write-only: sent again, not shown)`);
    else diffValue(key, current[key], value, out);
  }
  // A replaced object loses what the document leaves out: emptied, or back to the server's default.
  if (kind.replaces)
    for (const [key, value] of Object.entries(current)) {
      if (key in desired || keptWhenLeftOut(kind, key, value)) continue;
      const fallback = kind.defaults?.[key];
      out.push(
        fallback === undefined
          ? `- ${key}: ${show(value)}`
          : `~ ${key}: ${show(value)} → ${show(fallback)} (left out: the default)`,
      );
    }
  return out;
}
