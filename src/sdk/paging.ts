// Types of the list operations: a GET whose JSON answer has `pagination` and one array of items.
import type { paths } from './schema.js';

type GetJson<P extends keyof paths> = paths[P] extends {
  get: { responses: { 200: { content: { 'application/json': infer B } } } };
}
  ? B
  : never;

/** Every path that answers a page: `/v1/resources`, `/v1/events`, `/v1/sessions`, … */
export type ListPath = {
  [P in keyof paths]: GetJson<P> extends { pagination: unknown } ? P : never;
}[keyof paths];

/** The item type of a list path (`ItemOf<'/v1/agents'>` is an agent). */
export type ItemOf<P extends ListPath> = {
  [K in keyof GetJson<P>]: K extends 'pagination' ? never : GetJson<P>[K] extends Array<infer I> ? I : never;
}[keyof GetJson<P>];

/** The query parameters of a list path, without those the iterator sets itself. */
export type ListQuery<P extends ListPath> = paths[P] extends { get: { parameters: { query?: infer Q } } }
  ? Omit<NonNullable<Q>, 'page' | 'cursor'>
  : never;

/** The path parameters of a list path (`/v1/users/{id}/api-keys` needs `{id}`). */
export type ListPathParams<P extends ListPath> = paths[P] extends { get: { parameters: { path: infer A } } }
  ? A
  : never;

/** One page as answered: the items under some key, the pagination, and a cursor for deep lists. */
export interface AnyPage {
  pagination?: { total: number; page: number; per_page: number };
  next_cursor?: string | null;
  [key: string]: unknown;
}

/** The array of a page (the one property that is an array). */
export function itemsOf(page: AnyPage): unknown[] {
  for (const [key, value] of Object.entries(page)) if (key !== 'pagination' && Array.isArray(value)) return value;
  return [];
}
