// `gatehouse tokens add --role proxy --ttl 1h [--uses N]` and `gatehouse instances ls|rm <id>`: the
// operator's side of proxy identities (docs/deploy.md "Joining a proxy"), through the /v1 API of an
// auth instance (or a proxy, which forwards them). Who calls: --token, or --api-key exchanged for a
// token (GATEHOUSE_TOKEN, GATEHOUSE_API_KEY); where: --url (GATEHOUSE_URL, default the local auth API).
import { Command, Option } from 'commander';
import { type Output, processOutput } from './output.js';

interface Target {
  url: string;
  token?: string;
  apiKey?: string;
}

const DEFAULT_URL = 'http://127.0.0.1:3025';

/** Thrown with the text to print and the exit code; the caller's action handler reports it. */
class CliFailure extends Error {
  constructor(
    message: string,
    readonly code = 1,
  ) {
    super(message);
  }
}

function targetOf(command: Command): Target {
  const o = command.optsWithGlobals<{ url?: string; token?: string; apiKey?: string }>();
  const url = (o.url ?? process.env.GATEHOUSE_URL ?? DEFAULT_URL).replace(/\/+$/, '');
  const token = o.token ?? process.env.GATEHOUSE_TOKEN;
  const apiKey = o.apiKey ?? process.env.GATEHOUSE_API_KEY;
  return { url, ...(token && { token }), ...(apiKey && { apiKey }) };
}

async function call(target: Target, method: string, path: string, body?: unknown): Promise<unknown> {
  let token = target.token;
  if (!token && target.apiKey) {
    const login = (await call({ url: target.url }, 'POST', '/v1/auth/token', { api_key: target.apiKey })) as {
      access_token: string;
    };
    token = login.access_token;
  }
  const res = await fetch(`${target.url}${path}`, {
    method,
    headers: {
      ...(body !== undefined && { 'content-type': 'application/json' }),
      ...(token && { authorization: `Bearer ${token}` }),
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  }).catch((e: Error) => {
    throw new CliFailure(`cannot reach ${target.url}: ${(e.cause as Error | undefined)?.message ?? e.message}`);
  });
  const text = await res.text();
  if (!res.ok) {
    const problem = (() => {
      try {
        return JSON.parse(text) as { detail?: string; title?: string };
      } catch {
        return { detail: text };
      }
    })();
    throw new CliFailure(`${method} ${path}: ${res.status} ${problem.detail ?? problem.title ?? ''}`.trim());
  }
  return text ? (JSON.parse(text) as unknown) : undefined;
}

/** The cluster commands, added to the gatehouse program; out is where they print (tests pass buffers). */
export function registerClusterCommands(program: Command, out: Output = processOutput): void {
  const connection = (c: Command) =>
    c
      .addOption(new Option('--url <url>', 'the Gatehouse API (GATEHOUSE_URL)'))
      .addOption(new Option('--token <token>', 'an access token with cluster rights (GATEHOUSE_TOKEN)'))
      .addOption(new Option('--api-key <key>', 'an API key, exchanged for a token (GATEHOUSE_API_KEY)'));
  const run =
    (action: (command: Command) => Promise<void>) =>
    async (...args: unknown[]) => {
      const command = args[args.length - 1] as Command;
      try {
        await action(command);
      } catch (e) {
        if (!(e instanceof CliFailure)) throw e;
        out.stderr(`gatehouse: ${e.message}\n`);
        process.exitCode = e.code;
      }
    };

  const tokens = program.command('tokens').description('join tokens for new proxies');
  connection(
    tokens
      .command('add')
      .description('make a join token a new proxy presents once (GATEHOUSE_JOIN_TOKEN); shown only now')
      .addOption(new Option('--role <role>', 'what joins with it').choices(['proxy']).makeOptionMandatory())
      .option('--ttl <duration>', 'how long it may be used (1m to 7d)', '1h')
      .option('--uses <n>', 'how many proxies may join with it', '1'),
  ).action(
    run(async (command) => {
      const o = command.opts<{ role: string; ttl: string; uses: string }>();
      const uses = Number(o.uses);
      if (!Number.isInteger(uses) || uses < 1) throw new CliFailure('--uses is a whole number, at least 1', 2);
      const made = (await call(targetOf(command), 'POST', '/v1/cluster/join-tokens', {
        role: o.role,
        ttl: o.ttl,
        uses,
      })) as { id: string; token: string; expires_at: string; uses: number };
      out.stdout(
        `join token ${made.id} for a proxy, ${made.uses} use(s), expires ${made.expires_at}; shown only this once:\n\n  ${made.token}\n\nstart the proxy with GATEHOUSE_JOIN_TOKEN=<token> (and GATEHOUSE_AUTH_SERVERS)\n`,
      );
    }),
  );

  const instances = program.command('instances').description('the proxies that joined the cluster');
  connection(instances.command('ls').description('list the proxies’ identities')).action(
    run(async (command) => {
      const { instances: list } = (await call(targetOf(command), 'GET', '/v1/cluster/instances')) as {
        instances: Array<{ id: string; role: string; joined_at: string; join_token_id: string }>;
      };
      out.stdout(`${['ID', 'ROLE', 'JOINED', 'JOIN TOKEN'].join('\t')}\n`);
      for (const i of list) out.stdout(`${[i.id, i.role, i.joined_at, i.join_token_id].join('\t')}\n`);
    }),
  );
  connection(
    instances
      .command('rm')
      .description('remove a proxy’s identity: its calls are refused, its live sessions end')
      .argument('<id>', 'the identity (prx_…)'),
  ).action(
    run(async (command) => {
      const id = command.args[0] as string;
      await call(targetOf(command), 'DELETE', `/v1/cluster/instances/${encodeURIComponent(id)}`);
      out.stdout(`removed ${id}: its next call is refused and its live sessions were ended\n`);
    }),
  );
}

/** `gatehouse tokens …` / `gatehouse instances …` until the gatehouse program is one commander program. */
export async function clusterCommand(argv: string[], out: Output = processOutput): Promise<number> {
  const program = new Command('gatehouse').exitOverride();
  program.configureOutput({ writeOut: out.stdout, writeErr: out.stderr });
  registerClusterCommands(program, out);
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (e) {
    const code = (e as { exitCode?: number }).exitCode;
    return code === 0 ? 0 : 2;
  }
  return typeof process.exitCode === 'number' ? process.exitCode : 0;
}
