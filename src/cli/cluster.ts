// `gatehouse tokens add --role proxy --ttl 1h [--uses N]` and `gatehouse instances ls|rm <id>`: the
// operator's side of proxy identities (docs/deploy.md "Joining a proxy"), through the SDK with the
// profile's login (`gatehouse login`), like every client command; the login needs the `cluster` rights.
import { type Command, InvalidArgumentError, Option } from 'commander';
import type { Runner } from './context.js';
import type { Column } from './format.js';

interface Instance {
  id: string;
  role: string;
  joined_at: string;
  join_token_id: string;
}
const INSTANCE_COLUMNS: Column<Instance>[] = [
  { header: 'id', value: (i) => i.id },
  { header: 'role', value: (i) => i.role },
  { header: 'joined', value: (i) => i.joined_at.replace(/\.\d+Z$/, 'Z') },
  { header: 'join token', value: (i) => i.join_token_id },
];

const positive = (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 100) throw new InvalidArgumentError('a whole number from 1 to 100');
  return n;
};

export function registerClusterCommands(program: Command, run: Runner): void {
  const tokens = program.command('tokens').description('join tokens for new proxies (docs/deploy.md)');
  tokens
    .command('add')
    .description('make a join token a new proxy presents once (GATEHOUSE_JOIN_TOKEN); shown only now')
    .addOption(new Option('--role <role>', 'what joins with it').choices(['proxy']).makeOptionMandatory())
    .option('--ttl <duration>', 'how long it may be used, 1m to 7d', '1h')
    .option('--uses <n>', 'how many proxies may join with it', positive, 1)
    .action(
      run(async (ctx, opts: { role: 'proxy'; ttl: string; uses: number }) => {
        const { gh } = ctx.client();
        const made = await gh.ok(
          gh.api.POST('/v1/cluster/join-tokens', { body: { role: opts.role, ttl: opts.ttl, uses: opts.uses } }),
        );
        ctx.print.item(made as unknown as Record<string, unknown>, {
          'Join token': made.token,
          Id: made.id,
          Role: made.role,
          Uses: made.uses,
          Expires: made.expires_at,
        });
        ctx.print.note(
          'shown only this once: start the proxy with GATEHOUSE_JOIN_TOKEN=<token> and GATEHOUSE_AUTH_SERVERS',
        );
      }),
    );

  const instances = program.command('instances').description('the proxies that joined the cluster');
  instances
    .command('ls')
    .description('list the proxies’ identities')
    .action(
      run(async (ctx) => {
        const { gh } = ctx.client();
        const { instances: list } = await gh.ok(gh.api.GET('/v1/cluster/instances'));
        ctx.print.list(list, INSTANCE_COLUMNS);
      }),
    );
  instances
    .command('rm')
    .description('remove a proxy’s identity: its calls are refused, its live sessions end')
    .argument('<id>', 'the identity (prx_…)')
    .action(
      run(async (ctx, id: string) => {
        const { gh } = ctx.client();
        await gh.ok(gh.api.DELETE('/v1/cluster/instances/{id}', { params: { path: { id } } }));
        ctx.print.item({ id, removed: true }, { Removed: id });
      }),
    );
}
