// Paging and label filtering over cached records, shared by every domain service (HTTP-free).

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

export function parseLabelFilter(filters: readonly string[] | undefined): Array<[string, string]> {
  return (filters ?? []).map((f) => {
    const i = f.indexOf('=');
    return [f.slice(0, i), f.slice(i + 1)];
  });
}
