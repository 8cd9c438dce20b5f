// Optimistic concurrency on the objects the API changes one at a time (roles, users, resources,
// connectors, agents, webhooks). An object's ETag is the backend revision of its stored record: every
// store gives each write the next value of one cluster-wide counter (SQLite's revision row, etcd's
// mod_revision, PostgreSQL's revision row), so a record's revision changes with every write of it and
// never comes back, which is what a strong validator needs. updated_at would not do: two writes in
// the same millisecond share it, and some writes (an agent's last use) do not touch it.
//
// A service checks If-Match against the item it has just read (`unlessChanged`) and then writes with
// the compare-and-set on that same item's revision it already uses, so the check and the write are
// one atomic condition in the store: a change landing between them fails the write, never overwrites.
import { GatehouseError } from '../lib/errors.js';
import type { RequestContext } from './principal.js';

/** The strong entity tag of a stored record. */
export const etagOf = (revision: number): string => `"${revision}"`;

/**
 * The entity tags of an If-Match header, or undefined for none (or `*`: any current version, which
 * a change of an existing object always meets). A weak tag (W/"…") never matches: If-Match compares
 * strongly (RFC 9110 §13.1.1), so it is kept as written and fails.
 */
export function parseIfMatch(header: string | string[] | undefined): readonly string[] | undefined {
  if (header === undefined) return undefined;
  const value = Array.isArray(header) ? header.join(',') : header;
  if (value.trim() === '*') return undefined;
  const tags = value.match(/(?:W\/)?"[^"]*"|[^\s,]+/g) ?? [];
  // An empty header names no version: it matches none, rather than meaning "no precondition".
  return tags.length > 0 ? tags : [''];
}

/**
 * The item itself when the request's If-Match (if any) names its current version; otherwise the
 * 412 that names the object and says what to do. Call it on the item whose revision the write then
 * compares, before any await: that compare-and-set is what makes the precondition atomic.
 */
export function unlessChanged<T extends { revision: number }>(ctx: RequestContext, item: T, what: string): T {
  const current = etagOf(item.revision);
  if (ctx.ifMatch && !ctx.ifMatch.includes(current)) {
    throw new GatehouseError(
      'precondition_failed',
      `${what} changed since it was read (If-Match ${ctx.ifMatch.join(', ')}, now ${current}); read it again for its current ETag`,
    );
  }
  return item;
}
