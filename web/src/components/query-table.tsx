// A list fetched from the API, shown as every list in the console shows one: loading, the problem
// the API answered, a line saying there is nothing, or a table of rows under its headers.
import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Empty, Loading, ProblemView } from './status';

export function QueryTable<D, R>({
  query,
  what,
  label,
  items,
  empty,
  headers,
  row,
  footer,
}: {
  query: UseQueryResult<D>;
  /** What is loading, as in "Loading API keys…". */
  what: string;
  /** The table's accessible name. */
  label: string;
  items: (data: D) => readonly R[];
  /** Shown instead of an empty table. */
  empty: ReactNode;
  /** Column headings, each once; '' for a column of buttons. */
  headers: string[];
  /** One item's `<tr>`. */
  row: (item: R) => ReactNode;
  /** Under the table, e.g. its pager. */
  footer?: (data: D) => ReactNode;
}) {
  if (query.isPending) return <Loading what={what} />;
  if (query.isError) return <ProblemView error={query.error} />;
  const list = items(query.data);
  if (list.length === 0) return <Empty>{empty}</Empty>;
  return (
    <>
      <table aria-label={label}>
        <thead>
          <tr>
            {headers.map((h) => (
              <th key={h}>{h}</th>
            ))}
          </tr>
        </thead>
        <tbody>{list.map(row)}</tbody>
      </table>
      {footer?.(query.data)}
    </>
  );
}
