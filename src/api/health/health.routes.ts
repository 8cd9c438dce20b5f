// Liveness and readiness for orchestrators and load balancers.
import { type TSchema, Type } from '@sinclair/typebox';
import type { App } from '../app-types.js';

const Health = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('degraded')]),
  checks: Type.Optional(Type.Record(Type.String(), Type.String())),
});

/** The options of a health route: public, tagged health, with its answers (no problem+json). */
function healthCheck<R extends Record<number, TSchema>>(summary: string, response: R) {
  return { config: { permission: 'public' as const }, schema: { tags: ['health'], summary, response } };
}

// A check that answers a string is ready with that detail: Redis down is reported, not fatal, since
// every instance keeps serving on its own state until Redis is back.
export function healthRoutes(app: App, deps: { checks: Record<string, () => Promise<unknown>> }): void {
  app.get('/healthz', healthCheck('The process is alive', { 200: Health }), async () => ({ status: 'ok' as const }));

  app.get(
    '/readyz',
    healthCheck('The backend and the audit store answer (503 when not)', { 200: Health, 503: Health }),
    async (_request, reply) => {
      const checks: Record<string, string> = {};
      let ok = true;
      await Promise.all(
        Object.entries(deps.checks).map(async ([name, check]) => {
          try {
            const detail = await Promise.race([
              check(),
              new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), 2000).unref()),
            ]);
            checks[name] = typeof detail === 'string' ? detail : 'ok';
          } catch (error) {
            ok = false;
            // A check may say why it is not ready (the audit store answers but cannot commit).
            const why = (error as { readiness?: unknown } | undefined)?.readiness;
            checks[name] = typeof why === 'string' ? why : 'unreachable';
          }
        }),
      );
      return reply.code(ok ? 200 : 503).send({ status: ok ? 'ok' : 'degraded', checks });
    },
  );
}

export function pingRoute(
  app: App,
  deps: { version: string; startedAt: number; draining?: () => boolean; removed?: () => boolean },
): void {
  const Ping = Type.Object({
    status: Type.Union([Type.Literal('ok'), Type.Literal('draining'), Type.Literal('removed')]),
    version: Type.String(),
    uptime_seconds: Type.Integer(),
  });
  app.get(
    '/webapi/ping',
    healthCheck(
      'Proxy health for load-balancer checks (503 "draining" once a graceful shutdown began, "removed" once the proxy’s cluster identity was removed)',
      {
        200: Ping,
        503: Ping,
      },
    ),
    async (_request, reply) => {
      // A removed proxy is refused by auth on every call: the balancer must stop sending it anything.
      const status = deps.removed?.() === true ? 'removed' : deps.draining?.() === true ? 'draining' : 'ok';
      return reply.code(status === 'ok' ? 200 : 503).send({
        status,
        version: deps.version,
        uptime_seconds: Math.floor((Date.now() - deps.startedAt) / 1000),
      });
    },
  );
}
