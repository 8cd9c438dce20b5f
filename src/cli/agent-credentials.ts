// `gatehouse agents credentials issue|ls|revoke <agent>`: an agent's short-lived, scoped credentials
// from the terminal (POST/GET/DELETE /v1/agents/{id}/credentials), for the person who runs the agent.
// An issued secret is printed once (as the API answers it once); the list shows metadata only.
import { type Command, InvalidArgumentError, Option } from 'commander';
import type { Gatehouse } from '../sdk/index.js';
import { type CliContext, CliError, type Runner } from './context.js';
import { when } from './format.js';

/** An agent by id (agent_…) or by its exact name. */
async function agentId(gh: Gatehouse, ref: string): Promise<string> {
  if (/^agent_[0-9a-z]+$/.test(ref)) return ref;
  const page = await gh.ok(gh.api.GET('/v1/agents', { params: { query: { name: ref } } }));
  const [one, ...more] = page.agents;
  if (!one) throw new CliError(`no agent named ${ref} that you may see (gatehouse agents ls)`);
  if (more.length > 0) throw new CliError(`several agents are named ${ref}: give its id (agent_…)`);
  return one.id;
}

function ttlSeconds(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 60) throw new InvalidArgumentError('whole seconds, at least 60');
  return n;
}

const roleList = (value: string) => value.split(',').filter(Boolean);

export function registerAgentCredentialCommands(agents: Command, run: Runner): void {
  const credentials = agents.command('credentials').description("an agent's short-lived credentials");
  credentials
    .command('issue')
    .description('issue a credential to an agent and print it (shown this once)')
    .argument('<agent>', 'the agent (agent_… or its name)')
    .addOption(new Option('--type <type>', 'what to issue').choices(['token', 'api_key', 'jwt']).default('token'))
    .option('--ttl <seconds>', "its lifetime (default: an hour, or the agent's maximum if less)", ttlSeconds)
    .option('--roles <roles>', "a subset of the agent's roles, comma-separated (default: all of them)", roleList)
    .option('--audience <aud>', 'the service a jwt is for (required with --type jwt)')
    .action(
      run(
        async (
          ctx: CliContext,
          ref: string,
          opts: { type: 'token' | 'api_key' | 'jwt'; ttl?: number; roles?: string[]; audience?: string },
        ) => {
          if (opts.type === 'jwt' && !opts.audience) throw new CliError('--type jwt needs --audience', 2);
          const { gh } = ctx.client();
          const id = await agentId(gh, ref);
          const c = await gh.ok(
            gh.api.POST('/v1/agents/{id}/credentials', {
              params: { path: { id } },
              body: {
                type: opts.type,
                ...(opts.ttl !== undefined && { ttl: opts.ttl }),
                ...(opts.roles && { roles: opts.roles }),
                ...(opts.audience && { audience: opts.audience }),
              },
            }),
          );
          const secret = c.access_token ?? c.api_key ?? c.jwt ?? '';
          ctx.print.item(c as unknown as Record<string, unknown>, {
            Credential: c.id,
            Type: c.type,
            Roles: c.roles,
            Expires: when(c.expires_at),
            'Secret (shown this once)': secret,
          });
        },
      ),
    );
  credentials
    .command('ls')
    .description("list an agent's credentials (metadata; never a secret)")
    .argument('<agent>', 'the agent (agent_… or its name)')
    .action(
      run(async (ctx: CliContext, ref: string) => {
        const { gh } = ctx.client();
        const id = await agentId(gh, ref);
        const all = [];
        for await (const c of gh.list('/v1/agents/{id}/credentials', { path: { id } })) all.push(c);
        ctx.print.list(all, [
          { header: 'id', value: (c) => c.id },
          { header: 'type', value: (c) => c.type },
          { header: 'roles', value: (c) => c.roles ?? '(all)' },
          { header: 'expires', value: (c) => when(c.expires_at) },
          { header: 'last used', value: (c) => when(c.last_used_at) },
        ]);
      }),
    );
  credentials
    .command('revoke')
    .description('revoke one credential and every token that came from it')
    .argument('<agent>', 'the agent (agent_… or its name)')
    .argument('<credential>', 'the credential (cred_…)')
    .action(
      run(async (ctx: CliContext, ref: string, credential: string) => {
        const { gh } = ctx.client();
        const id = await agentId(gh, ref);
        const r = await gh.ok(
          gh.api.DELETE('/v1/agents/{id}/credentials/{credential_id}', {
            params: { path: { id, credential_id: credential } },
          }),
        );
        ctx.print.item(r as unknown as Record<string, unknown>, { Revoked: credential });
      }),
    );
}
