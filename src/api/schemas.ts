// HTTP shapes shared by every route: problems, pagination, list queries and responses. The data
// shapes every domain shares (names, labels, timestamps) are in lib/shapes.ts.
import { type TObject, type TProperties, Type } from '@sinclair/typebox';

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
