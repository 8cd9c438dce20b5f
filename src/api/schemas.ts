// HTTP shapes shared by every route: problems, pagination, list queries and responses. The data
// shapes every domain shares (names, labels, timestamps) are in lib/shapes.ts.
import { type TObject, type TProperties, Type } from '@sinclair/typebox';
import { ID_PREFIXES, type IdKind } from '../lib/ids.js';

export const Problem = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    code: Type.String(),
    request_id: Type.String(),
    errors: Type.Optional(Type.Array(Type.Object({ path: Type.String(), message: Type.String() }))),
  },
  { description: 'RFC 9457 problem details (application/problem+json)' },
);

export const Pagination = Type.Object(
  {
    total: Type.Integer({ minimum: 0 }),
    page: Type.Integer({ minimum: 1 }),
    per_page: Type.Integer({ minimum: 1, maximum: 100 }),
  },
  { additionalProperties: false },
);

export const PageQueryProperties = {
  page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 }),
  per_page: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
};

/** A list query: page, per_page and the given filters; anything else is refused. */
export function listQuery<P extends TProperties>(filters: P) {
  return Type.Object({ ...PageQueryProperties, ...filters }, { additionalProperties: false });
}

/** `{<name>: [...], pagination}`, the seed's list shape. */
export function listResponse<K extends string, T extends TObject>(name: K, item: T) {
  return Type.Object({ [name]: Type.Array(item), pagination: Pagination } as Record<
    K,
    ReturnType<typeof Type.Array<T>>
  > & {
    pagination: typeof Pagination;
  });
}

/** `env=dev` style label filters from a query string. */
export const LabelFilter = Type.Array(Type.String({ maxLength: 320, pattern: '^[^=]+=.*$' }), {
  maxItems: 16,
  description: 'key=value; repeat to require several labels',
});

/** A route's responses: the given successes plus problem+json for client and server errors. */
export function responses<R extends Record<number, unknown>>(ok: R) {
  return { ...ok, '4xx': Problem, '5xx': Problem };
}

/**
 * An id in a path: its kind's prefix, then letters and digits. Only the shape is checked here: an id
 * of the right kind that names nothing (`agent_doesnotexist000`) is a 404 from the service, not a
 * 400, and an id of another kind (`user_…` where an agent is meant) stays a 400.
 */
export function pathId(kinds: IdKind | IdKind[], description?: string) {
  const prefixes = (Array.isArray(kinds) ? kinds : [kinds]).map((k) => ID_PREFIXES[k]);
  const prefix = prefixes.length === 1 ? prefixes[0] : `(?:${prefixes.join('|')})`;
  return Type.String({
    minLength: 1,
    maxLength: 80,
    pattern: `^${prefix}[0-9A-Za-z]{1,64}$`,
    description: description ?? prefixes.map((p) => `${p}…`).join(', '),
  });
}
