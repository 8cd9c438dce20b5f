// How the client prints what it got: `--format table` (default; sized to the terminal), `json` or
// `yaml` (for scripts: the API's own fields, unabridged). Colour only on a terminal, never with NO_COLOR.
import { stringify } from 'yaml';
import type { Output } from './output.js';

export type Format = 'table' | 'json' | 'yaml';
export const FORMATS: Format[] = ['table', 'json', 'yaml'];

export interface Column<T> {
  header: string;
  value: (row: T) => unknown;
}

export interface Printer {
  format: Format;
  /** A list: a table of the columns, or the rows themselves as JSON/YAML. */
  list<T>(rows: T[], columns: Column<T>[]): void;
  /** One object: "key  value" lines, or the object as JSON/YAML. */
  item(data: Record<string, unknown>, shown?: Record<string, unknown>): void;
  /** A line for people; in json/yaml it goes to stderr, so stdout stays parseable. */
  note(text: string): void;
}

const cell = (v: unknown): string => {
  if (v === undefined || v === null) return '';
  if (Array.isArray(v)) return v.map(cell).join(',');
  if (typeof v === 'object')
    return Object.entries(v as Record<string, unknown>)
      .map(([k, x]) => `${k}=${cell(x)}`)
      .join(',');
  return String(v).replace(/\s+/g, ' ');
};

export function createPrinter(
  out: Output,
  format: Format,
  opts: { color: boolean; width: number | undefined },
): Printer {
  const bold = (s: string) => (opts.color ? `\x1b[1m${s}\x1b[22m` : s);
  const structured = (data: unknown) =>
    out.stdout(format === 'json' ? `${JSON.stringify(data, null, 2)}\n` : stringify(data));
  return {
    format,
    list(rows, columns) {
      if (format !== 'table') return structured(rows);
      const cells = rows.map((r) => columns.map((c) => cell(c.value(r))));
      const widths = fitWidths(
        columns.map((c, i) => Math.max(c.header.length, ...cells.map((row) => (row[i] as string).length))),
        opts.width,
      );
      const line = (values: string[]) =>
        values
          .map((v, i) => clip(v, widths[i] as number).padEnd(widths[i] as number))
          .join('  ')
          .trimEnd();
      out.stdout(`${bold(line(columns.map((c) => c.header.toUpperCase())))}\n`);
      for (const row of cells) out.stdout(`${line(row)}\n`);
    },
    item(data, shown = data) {
      if (format !== 'table') return structured(data);
      const width = Math.max(...Object.keys(shown).map((k) => k.length));
      for (const [k, v] of Object.entries(shown))
        if (v !== undefined) out.stdout(`${bold(k.padEnd(width))}  ${cell(v)}\n`);
    },
    note(text) {
      (format === 'table' ? out.stdout : out.stderr)(`${text}\n`);
    },
  };
}

/** Shrinks the widest columns until the table fits the terminal (never below 8 characters). */
function fitWidths(widths: number[], terminal: number | undefined): number[] {
  if (!terminal) return widths;
  const fitted = [...widths];
  const total = () => fitted.reduce((a, b) => a + b, 0) + 2 * (fitted.length - 1);
  while (total() > terminal) {
    const widest = fitted.indexOf(Math.max(...fitted));
    if ((fitted[widest] as number) <= 8) break;
    fitted[widest] = (fitted[widest] as number) - 1;
  }
  return fitted;
}

const clip = (s: string, width: number) => (s.length > width ? `${s.slice(0, Math.max(0, width - 1))}…` : s);

/** A timestamp as the tables show it: ISO 8601 to the second (empty when there is none). */
export const when = (iso?: string | null): string => (iso ? iso.replace(/\.\d+Z$/, 'Z') : '');
