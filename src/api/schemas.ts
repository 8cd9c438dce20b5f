// Shapes shared by every domain: problems, pagination, labels, timestamps.
import { type TObject, type TProperties, Type } from '@sinclair/typebox';

export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601, UTC' });

export const Name = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: '^[A-Za-z0-9][A-Za-z0-9._@-]*$',
  description: 'Letters, digits and . _ @ -, starting with a letter or digit',
});

export const Description = Type.String({ maxLength: 1024 });

/** Who created a credential; null on ones created before creators were recorded. */
export const CreatedBy = Type.Union(
  [
    Type.Object(
      {
        kind: Type.String({ description: 'user | agent | system' }),
        id: Type.Optional(Type.String()),
      },
      { additionalProperties: false },
    ),
    Type.Null(),
  ],
  { description: 'Who created it: a user, an agent, or Gatehouse itself (system)' },
);

export const Labels = Type.Record(
  Type.String({ minLength: 1, maxLength: 63, pattern: '^[A-Za-z0-9][A-Za-z0-9._/-]*$' }),
  Type.String({ maxLength: 255 }),
  { maxProperties: 64, description: 'Free-form key/value labels that RBAC selectors match' },
);

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

export const NoQuery = Type.Object({}, { additionalProperties: false });

export function idParams(pattern: string, description: string) {
  return Type.Object({ id: Type.String({ pattern, maxLength: 80, description }) }, { additionalProperties: false });
}

/**
 * A page of cached records, in key order. Without a filter only the page's records are touched, so
 * listing stays cheap however many records exist; with one, the filter runs over all of them.
 */
export function pageOfRecords<T>(
  items: readonly { value: T }[],
  q: { page: number; per_page: number },
  keep?: (value: T) => boolean,
) {
  if (keep) return page(items.map((i) => i.value).filter(keep), q);
  const start = (q.page - 1) * q.per_page;
  return {
    items: items.slice(start, start + q.per_page).map((i) => i.value),
    pagination: { total: items.length, page: q.page, per_page: q.per_page },
  };
}

export function page<T>(items: readonly T[], q: { page: number; per_page: number }) {
  const start = (q.page - 1) * q.per_page;
  return {
    items: items.slice(start, start + q.per_page),
    pagination: { total: items.length, page: q.page, per_page: q.per_page },
  };
}

/** `env=dev` style label filters from a query string. */
export const LabelFilter = Type.Array(Type.String({ maxLength: 320, pattern: '^[^=]+=.*$' }), {
  maxItems: 16,
  description: 'key=value; repeat to require several labels',
});

export function parseLabelFilter(filters: readonly string[] | undefined): Array<[string, string]> {
  return (filters ?? []).map((f) => {
    const i = f.indexOf('=');
    return [f.slice(0, i), f.slice(i + 1)];
  });
}

/** A route's responses: the given successes plus problem+json for client and server errors. */
export function responses<R extends Record<number, unknown>>(ok: R) {
  return { ...ok, '4xx': Problem, '5xx': Problem };
}
