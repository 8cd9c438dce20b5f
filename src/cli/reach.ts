// What the login reaches, and as whom: GET /v1/users/me/access (the access checker's own answer, so
// `db ls` and `kube ls` list exactly what the doors would admit, without resources:read).
import type { Command } from 'commander';
import type { CliContext, Runner } from './context.js';
import type { Column } from './format.js';

export interface Reachable {
  name: string;
  id: string;
  labels: Record<string, string>;
  db_users: string[];
  db_names: string[];
  kube_users: string[];
  kube_groups: string[];
}

export async function reachable(
  ctx: CliContext,
  kind: 'database' | 'kube_cluster' | 'app',
  resource?: string,
): Promise<Reachable[]> {
  const { gh } = ctx.client();
  const access = await gh.ok(
    gh.api.GET('/v1/users/me/access', { params: { query: { kind, ...(resource ? { resource } : {}) } } }),
  );
  return access.resources;
}

/** `<parent> ls`: what the login reaches of one kind, as a table or the API's objects. */
export function registerReachableList(
  parent: Command,
  run: Runner,
  kind: 'database' | 'kube_cluster' | 'app',
  description: string,
  columns: (ctx: CliContext) => Column<Reachable>[],
): void {
  parent
    .command('ls')
    .description(description)
    .action(
      run(async (ctx: CliContext) => {
        ctx.print.list(await reachable(ctx, kind), columns(ctx));
      }),
    );
}
