// Web apps from the terminal: `apps ls` (the apps your roles reach) and `proxy app <app> --port P`, a
// local HTTP endpoint on 127.0.0.1:P that sends each request on to the app's host on Gatehouse's web
// listener with the login's access token as `Authorization: Bearer` (renewed before it runs out), so
// scripts and tools that know nothing of Gatehouse use the app as if it were local.
import { randomBytes } from 'node:crypto';
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Command } from 'commander';
import { untilInterrupted } from './child.js';
import { type CliContext, CliError, failure, freshAccessToken, portOption, type Runner } from './context.js';
import { reachable, registerReachableList } from './reach.js';

/** What the tunnel sets itself (Host, Authorization), and the headers of one hop (RFC 9110 §7.6.1). */
const NOT_FORWARDED = new Set(
  'host authorization connection keep-alive proxy-connection transfer-encoding upgrade te trailer'.split(' '),
);

/**
 * The app's public URL (its own host on the web listener: docs/apps.md), as the launch answer names
 * it. The one-time code in that answer is bound to a state no browser holds, so it can never be used.
 */
export async function appUrl(ctx: CliContext, name: string): Promise<URL> {
  const { gh } = ctx.client();
  const state = randomBytes(24).toString('base64url');
  const launch = await gh.ok(gh.api.POST('/v1/apps/launch', { body: { app: name, state } }));
  return new URL(new URL(launch.url).origin);
}

export function registerAppCommands(program: Command, run: Runner): void {
  // `app` as well: the singular is what tsh users type (`tsh app ls`).
  const apps = program.command('apps').alias('app').description('web apps through Gatehouse');
  registerReachableList(apps, run, 'app', 'the apps you may reach', () => [
    { header: 'name', value: (a) => a.name },
    { header: 'labels', value: (a) => a.labels },
    { header: 'id', value: (a) => a.id },
  ]);

  const proxy = program.commands.find((c) => c.name() === 'proxy') ?? program.command('proxy');
  proxy
    .command('app')
    .description('a local HTTP endpoint on 127.0.0.1:PORT for an app: requests go on with your access token')
    .argument('<app>', 'the app resource (name)')
    .requiredOption('--port <port>', 'the local port (0: a free one, printed)', portOption)
    .action(
      run(async (ctx: CliContext, name: string, opts: { port: number }) => {
        const [app] = await reachable(ctx, 'app', name);
        if (!app) throw new CliError(`no app named ${name} that you may reach (gatehouse apps ls)`);
        const target = await appUrl(ctx, app.name);
        const { gh, profile } = ctx.client();
        const web = new URL(profile.proxy);
        const send = web.protocol === 'https:' ? httpsRequest : httpRequest;
        const forward = async (req: IncomingMessage, res: ServerResponse) => {
          const { token } = await freshAccessToken(gh);
          const headers: Record<string, string | string[]> = {};
          for (const [k, v] of Object.entries(req.headers))
            if (v !== undefined && !NOT_FORWARDED.has(k)) headers[k] = v;
          headers.host = target.host;
          headers.authorization = `Bearer ${token}`;
          // To the web listener the login names, addressed (Host, and SNI over TLS) to the app's host.
          const upstream = send({
            host: web.hostname,
            port: web.port || (web.protocol === 'https:' ? 443 : 80),
            method: req.method,
            path: req.url,
            headers,
            ...(web.protocol === 'https:' ? { servername: target.hostname } : {}),
          });
          upstream.on('response', (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.statusMessage, answer.headers);
            answer.pipe(res);
          });
          upstream.on('error', (e) => {
            if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
            res.end(`gatehouse: ${e.message}\n`);
          });
          req.pipe(upstream);
        };
        const server = createServer((req, res) => {
          forward(req, res).catch((e: unknown) => {
            const line = failure(e).line;
            ctx.out.stderr(`gatehouse: ${line}\n`);
            res.writeHead(502, { 'content-type': 'text/plain' }).end(`gatehouse: ${line}\n`);
          });
        });
        await new Promise<void>((resolve, reject) => {
          server.once('error', (e: NodeJS.ErrnoException) =>
            reject(new CliError(`--port ${opts.port}: ${e.code === 'EADDRINUSE' ? 'already in use' : e.message}`)),
          );
          server.listen(opts.port, '127.0.0.1', resolve);
        });
        const local = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
        ctx.print.item(
          { app: app.name, url: local, app_url: target.href },
          {
            'Tunnel to': `${app.name} (${target.href})`,
            Listening: `${local} (any local program can use it while it runs, as you; Ctrl-C ends it)`,
          },
        );
        await untilInterrupted(() => {
          server.close();
          server.closeAllConnections();
        });
      }),
    );
}
