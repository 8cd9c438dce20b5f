// One line that says what an audit event was about, for the audit table's summary column:
// login@server for SSH, the SQL's first line for a database statement, the command run, the
// Kubernetes verb and path, an app request's method and path. Only fields the event carries;
// nothing is fetched.
interface EventLike {
  type: string;
  target?: { name?: string | null; id?: string | null } | null;
  data?: Record<string, unknown> | null;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
/** The first non-blank line, cut at `max`; "…" says more followed (further lines, or the rest of it). */
const firstLine = (text: string, max = 120) => {
  const lines = text.trim().split(/\r?\n/);
  const line = (lines[0] ?? '').trimEnd();
  if (line.length > max) return `${line.slice(0, max)}…`;
  return lines.length > 1 ? `${line} …` : line;
};

export function eventSummary(e: EventLike): string {
  const d = e.data ?? {};
  const target = e.target?.name ?? e.target?.id ?? '';
  const login = str(d.login);
  const command = str(d.command);
  if (e.type === 'db.query' && str(d.text)) return firstLine(d.text as string);
  if (e.type.startsWith('db.') && str(d.db_user))
    return `${d.db_user}@${target}${str(d.db_name) ? `/${d.db_name}` : ''}`;
  if (e.type === 'kube.request' && str(d.verb)) return `${d.verb} ${str(d.path) ?? ''}`.trim();
  if (e.type === 'app.request' && str(d.method)) return `${d.method} ${str(d.path) ?? ''}`.trim();
  if (command) return `${login ? `${login}@${target}: ` : ''}${firstLine(command)}`;
  if (login) return `${login}@${target}`;
  return '';
}

const UNITS: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ['year', 365 * 86_400_000],
  ['month', 30 * 86_400_000],
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
  ['second', 1000],
];

/** "3 minutes ago", in the viewer's locale. */
export function relativeTime(iso: string, now = Date.now()): string {
  const diff = new Date(iso).getTime() - now;
  const format = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
  for (const [unit, ms] of UNITS)
    if (Math.abs(diff) >= ms || unit === 'second') return format.format(Math.round(diff / ms), unit);
  return '';
}
