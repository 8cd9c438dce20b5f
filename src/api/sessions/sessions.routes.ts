// Sessions brokered by the proxy, over HTTP: list and read them (live counters included), terminate
// a live one, ask for a one-time ticket to connect, watch a live one (server-sent events), and
// download a finished session's recording.
// Who sees what, and the events, are the sessions service's (sessions/session-service.ts); a person's
// own, without sessions:list, are under /v1/users/me/sessions (my-sessions.routes.ts).
import { once } from 'node:events';
import { PassThrough, Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import { GatehouseError, invalidField } from '../../lib/errors.js';
import { page } from '../../lib/paging.js';
import type { SessionRecord } from '../../sessions/session-registry.js';
import type { SessionService } from '../../sessions/session-service.js';
import { TICKET_TTL_MS } from '../../sessions/tickets.js';
import type { App } from '../app-types.js';
import { declareRoutes } from '../declare-routes.js';
import { authenticatedContext } from '../request-context.js';
import { listResponse } from '../schemas.js';
import { mySessionRoutes } from './my-sessions.routes.js';
import {
  RecordingQuery,
  Session,
  SessionParams,
  SessionQuery,
  type SessionView,
  TerminatedSession,
  Ticket,
  TicketRequest,
} from './sessions.schema.js';

export function sessionRoutes(
  app: App,
  deps: {
    sessionService: SessionService;
    sshEndpoint(): { host: string; port: number } | undefined;
    dbEndpoint(): { host: string; port: number } | undefined;
  },
): void {
  const service = deps.sessionService;
  const view = async (record: SessionRecord) => (await service.view(record)) as SessionView;
  const route = declareRoutes(app, { tags: ['sessions'], resource: 'sessions' });
  mySessionRoutes(app, service);

  route.get(
    '/v1/sessions',
    {
      permission: 'list',
      summary: 'List sessions, newest first (your own; everyone’s if you may read recordings)',
      querystring: SessionQuery,
      200: listResponse('sessions', Session),
    },
    async (request) => {
      const { items, pagination } = page(
        service.list(authenticatedContext(request).principal, request.query),
        request.query,
      );
      return { sessions: await Promise.all(items.map(view)), pagination };
    },
  );

  route.get(
    '/v1/sessions/:id',
    {
      permission: 'read',
      summary: 'Get a session (live byte counters while it runs)',
      params: SessionParams,
      200: Session,
    },
    async (request) => view(service.get(authenticatedContext(request).principal, request.params.id)),
  );

  route.delete(
    '/v1/sessions/:id',
    {
      permission: 'delete',
      grants: [],
      summary:
        'Terminate a live session, on whichever proxy holds it: the user sees a message, the recording is closed properly',
      params: SessionParams,
      200: TerminatedSession,
    },
    async (request) => {
      const { confirmed_ended, ...record } = await service.terminate(authenticatedContext(request), request.params.id);
      return { ...(await view(record)), confirmed_ended };
    },
  );

  route.post(
    '/v1/sessions',
    {
      permission: 'create',
      grants: ['self'],
      summary:
        'Prepare an SSH or PostgreSQL session: where to connect, as whom, and a one-time ticket (60 s) to give as the password',
      body: TicketRequest,
      201: Ticket,
    },
    async (request) => {
      const body = request.body;
      const ctx = authenticatedContext(request);
      const expires = (at: number) => ({
        expires_at: new Date(at).toISOString(),
        expires_in: Math.round(TICKET_TTL_MS / 1000),
      });
      const sshFields = body.server !== undefined || body.login !== undefined;
      const dbFields = body.database !== undefined || body.db_user !== undefined || body.db_name !== undefined;
      if (sshFields && dbFields) {
        throw invalidField('/body', 'give server and login (SSH), or database, db_user and db_name, not both');
      }
      if (dbFields) {
        for (const f of ['database', 'db_user', 'db_name'] as const) {
          if (body[f] === undefined) throw invalidField(`/body/${f}`, 'is required for a database ticket');
        }
        const endpoint = deps.dbEndpoint();
        if (!endpoint) throw new GatehouseError('unavailable', 'this instance runs no PostgreSQL proxy (roles: proxy)');
        const input = {
          database: body.database as string,
          db_user: body.db_user as string,
          db_name: body.db_name as string,
        };
        const { ticket, expiresAt, database } = await service.issueDbTicket(ctx, input);
        return {
          ticket,
          ...expires(expiresAt),
          database: { kind: 'database', id: database.id, name: database.name },
          db_user: input.db_user,
          db_name: input.db_name,
          proxy: endpoint,
          psql_conninfo: `host=${endpoint.host} port=${endpoint.port} user=${input.db_user}@${database.name} dbname=${input.db_name}`,
        };
      }
      for (const f of ['server', 'login'] as const) {
        if (body[f] === undefined) throw invalidField(`/body/${f}`, 'is required for an SSH ticket');
      }
      const endpoint = deps.sshEndpoint();
      if (!endpoint) throw new GatehouseError('unavailable', 'this instance runs no SSH proxy (roles: proxy)');
      const login = body.login as string;
      const { ticket, expiresAt, server } = await service.issueTicket(ctx, { server: body.server as string, login });
      const username = `${login}@${server.name}`;
      const portArg = endpoint.port === 22 ? '' : `-p ${endpoint.port} `;
      return {
        ticket,
        ...expires(expiresAt),
        login,
        server: { kind: 'server', id: server.id, name: server.name },
        proxy: endpoint,
        ssh_username: username,
        ssh_command: `ssh ${portArg}-l '${username}' ${endpoint.host}`,
      };
    },
  );

  route.get(
    '/v1/sessions/:id/recording',
    {
      permission: { resource: 'recordings', verb: 'read' },
      summary: 'Download the recording (asciicast v2, or plain text with ?format=text)',
      params: SessionParams,
      querystring: RecordingQuery,
      produces: ['application/x-asciicast', 'text/plain'],
      200: Type.String({ description: 'application/x-asciicast or text/plain' }),
    },
    async (request, reply) => {
      const text = request.query.format === 'text';
      const { record, body, verified } = await service.readRecording(
        authenticatedContext(request),
        request.params.id,
        text ? 'text' : 'asciicast',
      );
      const filename = `${record.id}.${text ? 'txt' : 'cast'}`;
      // gatehouse-recording-verified: sha256 when checked against the audit trail's recording.uploaded,
      // unverifiable once that event was pruned.
      return reply
        .type(text ? 'text/plain; charset=utf-8' : 'application/x-asciicast')
        .header('content-disposition', `attachment; filename="${filename}"`)
        .header('gatehouse-recording-verified', verified)
        .send((text ? Readable.from(body as AsyncIterable<string>) : body) as never);
    },
  );

  route.get(
    '/v1/sessions/:id/stream',
    {
      permission: { resource: 'recordings', verb: 'read' },
      summary:
        'Watch a live session as it happens (text/event-stream, read-only): each message is one asciicast v2 line, the header first and what was recorded before you joined; `event: end` when the session ends',
      params: SessionParams,
      produces: ['text/event-stream'],
      200: Type.String({ description: 'text/event-stream' }),
    },
    async (request, reply) => {
      const { tail } = await service.watchLive(authenticatedContext(request), request.params.id);
      const out = new PassThrough();
      // Comments keep idle connections (and proxies in between) from timing out.
      const keepAlive = setInterval(() => out.write(': keep-alive\n\n'), 15_000);
      reply.raw.once('close', () => tail.stop());
      void (async () => {
        try {
          for await (const line of tail.lines) {
            if (!out.write(`data: ${line}\n\n`)) await Promise.race([once(out, 'drain'), once(out, 'close')]);
            if (out.destroyed) break;
          }
          out.write(`event: end\ndata: ${JSON.stringify({ reason: tail.end ?? 'ended' })}\n\n`);
        } catch (error) {
          request.log.warn({ err: error }, 'live session stream');
        } finally {
          clearInterval(keepAlive);
          out.end();
        }
      })();
      return reply
        .type('text/event-stream; charset=utf-8')
        .header('cache-control', 'no-store')
        .header('x-accel-buffering', 'no')
        .send(out as never);
    },
  );
}
