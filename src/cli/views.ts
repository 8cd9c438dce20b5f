// Everyday views: `resources ls`, `sessions ls|kill`, `events ls|tail`, `agents ls|get|suspend`. Each
// lists through the SDK's iterators (every page), prints a table sized to the terminal, or the API's
// own objects with --format json|yaml.
import { type Command, InvalidArgumentError, Option } from 'commander';
import type { ItemOf } from '../sdk/index.js';
import { registerAgentCredentialCommands } from './agent-credentials.js';
import { type CliContext, CliError, type Runner } from './context.js';
import { type Column, when } from './format.js';

const collect = (value: string, previous: string[] = []) => [...previous, value];
const who = (p?: { kind?: string; name?: string; id?: string }) => (p ? `${p.kind ?? ''}:${p.name ?? p.id ?? ''}` : '');

async function all<T>(iterator: AsyncIterable<T>, limit = Number.POSITIVE_INFINITY): Promise<T[]> {
  const items: T[] = [];
  for await (const item of iterator) {
    items.push(item);
    if (items.length >= limit) break;
  }
  return items;
}

function labelPairs(labels: string[]): string[] {
  for (const l of labels) if (!/^[^=]+=.*$/.test(l)) throw new CliError(`--label: k=v (got ${l})`, 2);
  return labels;
}

type Resource = ItemOf<'/v1/resources'>;
const RESOURCE_COLUMNS: Column<Resource>[] = [
  { header: 'name', value: (r) => r.name },
  { header: 'kind', value: (r) => r.kind },
  { header: 'address', value: (r) => r.address ?? r.uri ?? '' },
  { header: 'labels', value: (r) => r.labels },
  { header: 'id', value: (r) => r.id },
];

type Session = ItemOf<'/v1/sessions'>;
const SESSION_COLUMNS: Column<Session>[] = [
  { header: 'id', value: (s) => s.id },
  { header: 'kind', value: (s) => s.kind },
  { header: 'principal', value: (s) => who(s.principal) },
  { header: 'resource', value: (s) => s.resource?.name },
  { header: 'login', value: (s) => s.login },
  { header: 'status', value: (s) => s.status },
  { header: 'started', value: (s) => when(s.started_at) },
];

type AuditEvent = ItemOf<'/v1/events'>;
const EVENT_COLUMNS: Column<AuditEvent>[] = [
  { header: 'time', value: (e) => when(e.time) },
  { header: 'type', value: (e) => e.type },
  { header: 'actor', value: (e) => who(e.actor) },
  { header: 'target', value: (e) => who(e.target ?? undefined) },
  { header: 'ok', value: (e) => (e.success ? 'yes' : 'no') },
  { header: 'id', value: (e) => e.id },
];

type Agent = ItemOf<'/v1/agents'>;
const AGENT_COLUMNS: Column<Agent>[] = [
  { header: 'name', value: (a) => a.name },
  { header: 'status', value: (a) => a.status },
  { header: 'owner', value: (a) => a.owner },
  { header: 'roles', value: (a) => a.roles },
  { header: 'last used', value: (a) => when(a.last_used_at) },
  { header: 'id', value: (a) => a.id },
];

export function registerViewCommands(program: Command, run: Runner): void {
  const resources = program.command('resources').description('the servers, databases, apps and clusters you may see');
  resources
    .command('ls')
    .description('list resources')
    .addOption(new Option('--kind <kind>', 'only this kind').choices(['server', 'database', 'app', 'kube_cluster']))
    .option('--label <k=v>', 'only those with this label (repeatable)', collect, [])
    .option('--search <text>', 'name, description or label containing this')
    .action(
      run(async (ctx: CliContext, opts: { kind?: Resource['kind']; label: string[]; search?: string }) => {
        const { gh } = ctx.client();
        const query = {
          ...(opts.kind ? { kind: opts.kind } : {}),
          ...(opts.label.length ? { label: labelPairs(opts.label) } : {}),
          ...(opts.search ? { search: opts.search } : {}),
        };
        ctx.print.list(await all(gh.list('/v1/resources', { query })), RESOURCE_COLUMNS);
      }),
    );

  const sessions = program.command('sessions').description('sessions: live and past, yours or everyone’s');
  sessions
    .command('ls')
    .description('list sessions, newest first')
    .addOption(
      new Option('--status <status>', 'only sessions in this state').choices(['active', 'ended', 'terminated']),
    )
    .option('--limit <n>', 'at most this many', (v) => positive('--limit', v), 50)
    .action(
      run(async (ctx: CliContext, opts: { status?: 'active' | 'ended' | 'terminated'; limit: number }) => {
        const { gh } = ctx.client();
        const query = opts.status ? { status: opts.status } : {};
        ctx.print.list(await all(gh.list('/v1/sessions', { query }), opts.limit), SESSION_COLUMNS);
      }),
    );
  sessions
    .command('kill')
    .description('terminate a live session, on whichever proxy holds it')
    .argument('<id>', 'the session (sess_…)')
    .action(
      run(async (ctx: CliContext, id: string) => {
        const { gh } = ctx.client();
        const answer = await gh.ok(gh.api.DELETE('/v1/sessions/{id}', { params: { path: { id } } }));
        ctx.print.item(answer as Record<string, unknown>, { Terminated: id });
      }),
    );

  const events = program.command('events').description('the audit trail');
  const eventFilters = (cmd: Command) =>
    cmd
      .option('--type <type>', 'event type, or a prefix such as auth.* (repeatable)', collect, [])
      .option('--actor <id>', 'events by this principal id')
      .option('--session <id>', 'events of this session')
      .option('--failed', 'only failures');
  type EventFilters = { type: string[]; actor?: string; session?: string; failed?: boolean };
  const eventQuery = (o: EventFilters) => ({
    ...(o.type.length ? { type: o.type } : {}),
    ...(o.actor ? { actor: o.actor } : {}),
    ...(o.session ? { session_id: o.session } : {}),
    ...(o.failed ? { success: false } : {}),
  });
  eventFilters(events.command('ls').description('list events, newest first'))
    .option('--limit <n>', 'at most this many', (v) => positive('--limit', v), 50)
    .action(
      run(async (ctx: CliContext, opts: EventFilters & { limit: number }) => {
        const { gh } = ctx.client();
        ctx.print.list(await all(gh.list('/v1/events', { query: eventQuery(opts) }), opts.limit), EVENT_COLUMNS);
      }),
    );
  eventFilters(events.command('tail').description('print new events as they happen (Ctrl-C stops)'))
    .option('--interval <seconds>', 'how often to ask', (v) => positive('--interval', v), 2)
    .action(
      run(async (ctx: CliContext, opts: EventFilters & { interval: number }) => {
        const { gh } = ctx.client();
        const seen = new Set<string>();
        let first = true;
        for (;;) {
          const page = await gh.ok(
            gh.api.GET('/v1/events', { params: { query: { ...eventQuery(opts), per_page: 100 } } }),
          );
          const fresh = page.events.filter((e) => !seen.has(e.id)).reverse();
          for (const e of page.events) seen.add(e.id);
          // The first page is history: only what happens from now on is printed.
          if (!first) for (const e of fresh) printEvent(ctx, e);
          first = false;
          await new Promise((r) => setTimeout(r, opts.interval * 1000));
        }
      }),
    );

  const agents = program.command('agents').description('AI agents');
  agents
    .command('ls')
    .description('list agents')
    .addOption(new Option('--status <status>', 'only agents in this state').choices(['active', 'suspended', 'revoked']))
    .action(
      run(async (ctx: CliContext, opts: { status?: 'active' | 'suspended' | 'revoked' }) => {
        const { gh } = ctx.client();
        ctx.print.list(
          await all(gh.list('/v1/agents', { query: opts.status ? { status: opts.status } : {} })),
          AGENT_COLUMNS,
        );
      }),
    );
  agents
    .command('get')
    .description('show one agent')
    .argument('<id>', 'the agent (agent_…)')
    .action(
      run(async (ctx: CliContext, id: string) => {
        const { gh } = ctx.client();
        const a = await gh.ok(gh.api.GET('/v1/agents/{id}', { params: { path: { id } } }));
        ctx.print.item(a as unknown as Record<string, unknown>, {
          Name: a.name,
          Id: a.id,
          Status: a.status,
          Owner: a.owner,
          Roles: a.roles,
          Labels: a.labels,
          'Last used': when(a.last_used_at),
        });
      }),
    );
  agents
    .command('suspend')
    .description('suspend an agent: every token, credential and session it holds ends now')
    .argument('<id>', 'the agent (agent_…)')
    .action(
      run(async (ctx: CliContext, id: string) => {
        const { gh } = ctx.client();
        const a = await gh.ok(
          gh.api.PATCH('/v1/agents/{id}', { params: { path: { id } }, body: { status: 'suspended' } }),
        );
        ctx.print.item(a as unknown as Record<string, unknown>, {
          Suspended: `${a.name} (${a.id})`,
          'Tokens revoked': a.revoked_tokens,
          'Credentials revoked': a.revoked_credentials,
          'Sessions ended': a.ended_sessions,
        });
      }),
    );
  registerAgentCredentialCommands(agents, run);
}

function printEvent(ctx: CliContext, e: AuditEvent): void {
  if (ctx.print.format === 'table') {
    const row = EVENT_COLUMNS.map((c) => String(c.value(e) ?? '')).join('  ');
    ctx.out.stdout(`${row}\n`);
  } else ctx.out.stdout(`${JSON.stringify(e)}\n`);
}

/** An option's number; commander reports a refusal as bad usage (exit 2). */
function positive(_flag: string, value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('a positive number');
  return n;
}
