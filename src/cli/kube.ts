// Kubernetes from the terminal: `kube ls` (the clusters your roles reach, as which users and groups),
// `kube login <cluster>` (a context in $KUBECONFIG or ~/.kube/config, merged: other entries are kept
// as they were) whose user is an exec credential plugin, and that plugin, `kube credentials`: it
// prints a client.authentication.k8s.io/v1 ExecCredential with the profile's access token, renewed
// first when needed, and its expiry, so kubectl asks again before it runs out. No token is written
// into the kubeconfig; a login that has ended makes kubectl print "run gatehouse login".
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import type { Command } from 'commander';
import { parse, stringify } from 'yaml';
import { type CliContext, CliError, freshAccessToken, type Runner } from './context.js';
import { registerReachableList } from './reach.js';

const EXEC_API = 'client.authentication.k8s.io/v1';

interface Named {
  name: string;
  [key: string]: unknown;
}

interface Kubeconfig {
  apiVersion?: string;
  kind?: string;
  clusters?: Named[];
  users?: Named[];
  contexts?: Named[];
  'current-context'?: string;
  [key: string]: unknown;
}

/** The file kubectl writes to: the first of $KUBECONFIG, else ~/.kube/config. */
export function kubeconfigPath(env: NodeJS.ProcessEnv): string {
  const first = env.KUBECONFIG?.split(delimiter).find((p) => p !== '');
  return first ?? join(env.HOME || homedir(), '.kube', 'config');
}

/** How kubectl runs this very program again: the same node, loader and entry point. */
function selfCommand(): { command: string; args: string[] } {
  const execArgv = process.execArgv.map((a) => (a === 'tsx' ? import.meta.resolve('tsx') : a));
  return { command: process.execPath, args: [...execArgv, process.argv[1] as string] };
}

const contextName = (ctx: CliContext, cluster: string) =>
  ctx.profileName === 'default' ? `gatehouse-${cluster}` : `gatehouse-${ctx.profileName}-${cluster}`;

function upsert(list: Named[] | undefined, entry: Named): Named[] {
  const rest = (list ?? []).filter((e) => e.name !== entry.name);
  return [...rest, entry];
}

function readKubeconfig(file: string): Kubeconfig {
  if (!existsSync(file)) return { apiVersion: 'v1', kind: 'Config' };
  const text = readFileSync(file, 'utf8');
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (e) {
    throw new CliError(`${file}: not a kubeconfig (${(e as Error).message.split('\n')[0]}); left as it is`);
  }
  if (doc === null || doc === undefined) return { apiVersion: 'v1', kind: 'Config' };
  if (typeof doc !== 'object' || Array.isArray(doc)) throw new CliError(`${file}: not a kubeconfig; left as it is`);
  return doc as Kubeconfig;
}

export function registerKubeCommands(program: Command, run: Runner): void {
  const kube = program.command('kube').description('Kubernetes clusters through Gatehouse (kubectl as it is)');
  registerReachableList(
    kube,
    run,
    'kube_cluster',
    'the clusters you may reach, with the users and groups the proxy acts as',
    (ctx) => [
      { header: 'name', value: (c) => c.name },
      { header: 'context', value: (c) => contextName(ctx, c.name) },
      { header: 'kube users', value: (c) => c.kube_users },
      { header: 'kube groups', value: (c) => c.kube_groups },
      { header: 'labels', value: (c) => c.labels },
    ],
  );

  kube
    .command('login')
    .description('add a kubectl context for a cluster (merged into $KUBECONFIG or ~/.kube/config) and use it')
    .argument('<cluster>', 'the kube_cluster resource (name or id)')
    .option('--namespace <ns>', "the context's namespace", 'default')
    .action(
      run(async (ctx: CliContext, cluster: string, opts: { namespace: string }) => {
        const { gh } = ctx.client();
        // The API's kubeconfig names the proxy and pins its CA; its token is not kept (the plugin gives one).
        const issued = await (await gh.fetch(`/v1/resources/${encodeURIComponent(cluster)}/kubeconfig`)).text();
        const given = parse(issued) as Kubeconfig;
        const entry = given.clusters?.[0] as { name: string; cluster: Record<string, unknown> } | undefined;
        if (!entry?.cluster) throw new CliError('Gatehouse answered no cluster in the kubeconfig');
        const name = contextName(ctx, entry.name);
        const self = selfCommand();
        const file = kubeconfigPath(ctx.env);
        const config = readKubeconfig(file);
        config.clusters = upsert(config.clusters, {
          name,
          cluster: {
            server: entry.cluster.server,
            'certificate-authority-data': entry.cluster['certificate-authority-data'],
          },
        });
        config.users = upsert(config.users, {
          name,
          user: {
            exec: {
              apiVersion: EXEC_API,
              command: self.command,
              args: [
                ...self.args,
                ...(ctx.profileName === 'default' ? [] : ['--profile', ctx.profileName]),
                'kube',
                'credentials',
                entry.name,
              ],
              // The plugin finds the profile wherever kubectl runs it from.
              env: [{ name: 'GATEHOUSE_HOME', value: ctx.home }],
              interactiveMode: 'Never',
              provideClusterInfo: false,
            },
          },
        });
        config.contexts = upsert(config.contexts, {
          name,
          context: { cluster: name, user: name, namespace: opts.namespace },
        });
        config['current-context'] = name;
        mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
        const temp = `${file}.${process.pid}.tmp`;
        writeFileSync(temp, stringify({ apiVersion: 'v1', kind: 'Config', ...config }), { mode: 0o600 });
        renameSync(temp, file);
        ctx.print.item(
          { cluster: entry.name, context: name, kubeconfig: file, server: entry.cluster.server },
          {
            'Logged in to cluster': entry.name,
            'kubectl context': `${name} (current)`,
            Kubeconfig: file,
            Credentials: 'gatehouse kube credentials (no token stored in the kubeconfig)',
          },
        );
      }),
    );

  kube
    .command('credentials')
    .description('the kubectl exec credential plugin: prints an ExecCredential with a fresh access token')
    .argument('<cluster>', 'the cluster the credential is for')
    .action(
      run(async (ctx: CliContext, _cluster: string) => {
        const { gh } = ctx.client();
        await freshAccessToken(gh);
        // Asked once so that a login ended on the server (revoked, user disabled) says so here, in one
        // line kubectl shows, rather than as a bare Unauthorized from the cluster; a 401 renews first.
        await gh.ok(gh.api.GET('/v1/auth/whoami'));
        const { token, expiresAt } = await freshAccessToken(gh);
        ctx.out.stdout(
          `${JSON.stringify({
            apiVersion: EXEC_API,
            kind: 'ExecCredential',
            status: { token, expirationTimestamp: new Date(expiresAt).toISOString() },
          })}\n`,
        );
      }),
    );
}
