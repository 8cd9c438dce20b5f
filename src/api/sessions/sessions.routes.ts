// Sessions brokered by the proxy: list and read them (live counters included), terminate a live one,
// ask for a one-time ticket to connect, and download a finished session's recording.
//
// Visibility: a caller always sees their own sessions; other people's only if their roles may read
// recordings (auditor, editor, admin), since session metadata is what a recording is about.
import { Readable } from 'node:stream';
import { type Static, Type } from '@sinclair/typebox';
import { actorOf, eventContext, type Principal } from '../../auth/principal.js';
import { scopeOf } from '../../auth/principal-pipeline.js';
import { keys } from '../../auth/records.js';
import { conflict, forbidden, GatehouseError, notFound } from '../../lib/errors.js';
import { idPattern } from '../../lib/ids.js';
import type { Services } from '../../services.js';
import type { SessionRecord } from '../../sessions/session-manager.js';
import { TICKET_TTL_MS } from '../../sessions/tickets.js';
import type { App } from '../app-types.js';
import { authenticatedContext } from '../request-context.js';
import { listQuery, listResponse, page, responses, Timestamp } from '../schemas.js';

const tags = ['sessions'];

const Status = Type.Union([Type.Literal('active'), Type.Literal('ended'), Type.Literal('terminated')]);
const RecordingState = Type.Union(
  ['recording', 'pending', 'uploaded', 'upload_failed', 'none', 'unknown'].map((s) => Type.Literal(s)),
  { description: 'none: nothing recorded as a cast (sftp sessions are recorded as file_transfer events)' },
);
const Ref = (kind: string) =>
  Type.Object({ kind: Type.String({ description: kind }), id: Type.String(), name: Type.String() });

export const Session = Type.Object(
  {
    id: Type.String({ pattern: idPattern('session') }),
    kind: Type.Literal('ssh'),
    type: Type.Union([Type.Literal('shell'), Type.Literal('exec'), Type.Literal('subsystem')]),
    principal: Ref('user | agent'),
    on_behalf_of: Type.Optional(Ref('user: the user a delegated agent acted for')),
    resource: Ref('server'),
    login: Type.String(),
    command: Type.Optional(Type.String({ description: 'The exec command, or the subsystem (sftp)' })),
    remote_addr: Type.String(),
    status: Status,
    started_at: Timestamp,
    ended_at: Type.Union([Timestamp, Type.Null()]),
    bytes_in: Type.Integer({ description: 'Bytes from the user to the server' }),
    bytes_out: Type.Integer({ description: 'Bytes from the server to the user (stdout and stderr)' }),
    exit_code: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
    end_reason: Type.Optional(Type.String()),
    recording: Type.Object({
      status: RecordingState,
      truncated: Type.Optional(Type.Boolean()),
      size: Type.Optional(Type.Integer({ description: 'Bytes stored (gzip)' })),
      attempts: Type.Optional(Type.Integer()),
      last_error: Type.Optional(Type.String()),
    }),
  },
  { additionalProperties: false },
);
type SessionView = Static<typeof Session>;

const SessionQuery = listQuery({
  status: Type.Optional(Status),
  principal: Type.Optional(Type.String({ maxLength: 80, description: 'user_… or agent_… id, or a name' })),
  server: Type.Optional(Type.String({ maxLength: 80, description: 'srv_… id or server name' })),
  login: Type.Optional(Type.String({ maxLength: 64 })),
  type: Type.Optional(Type.Union([Type.Literal('shell'), Type.Literal('exec'), Type.Literal('subsystem')])),
});
const SessionParams = Type.Object(
  { id: Type.String({ pattern: idPattern('session'), maxLength: 40 }) },
  { additionalProperties: false },
);
const RecordingQuery = Type.Object(
  {
    format: Type.Optional(
      Type.Union([Type.Literal('asciicast'), Type.Literal('text')], {
        description: 'asciicast (default, application/x-asciicast) or text (plain, escape sequences removed)',
      }),
    ),
  },
  { additionalProperties: false },
);
const TicketRequest = Type.Object(
  {
    server: Type.String({ minLength: 1, maxLength: 80, description: 'srv_… id or server name' }),
    login: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9._][A-Za-z0-9._-]*$' }),
  },
  { additionalProperties: false },
);
const Ticket = Type.Object(
  {
    ticket: Type.String({ description: 'One-time password for the SSH proxy, valid 60 s (shown once)' }),
    expires_at: Timestamp,
    expires_in: Type.Integer(),
    login: Type.String(),
    server: Ref('server'),
    proxy: Type.Object({ host: Type.String(), port: Type.Integer() }),
    ssh_username: Type.String({ description: '<login>@<server>, the user name to give ssh' }),
    ssh_command: Type.String({ description: 'A command line that connects (type the ticket as the password)' }),
  },
  { additionalProperties: false },
);

type SessionDeps = Pick<
  Services,
  'sessions' | 'recordings' | 'tickets' | 'sshAccess' | 'audit' | 'state' | 'sshEndpoint'
>;

export function sessionRoutes(app: App, deps: SessionDeps): void {
  const { sessions, recordings, audit } = deps;

  const mayReadOthers = (p: Principal) => p.policy.can('recordings', 'read').allowed;
  const visible = (p: Principal, s: SessionRecord) => s.principal.id === p.id || mayReadOthers(p);

  function findVisible(p: Principal, id: string): SessionRecord {
    const record = sessions.get(id);
    if (!record || !visible(p, record)) throw notFound('session', id);
    return record;
  }

  async function view(record: SessionRecord): Promise<SessionView> {
    const current = sessions.withLiveCounters(record);
    let recording: SessionView['recording'] = { status: 'none' };
    if (current.recorded) {
      const status = await recordings.status(current.id).catch(() => undefined);
      recording = status
        ? {
            status: status.state,
            ...(status.truncated === undefined ? {} : { truncated: status.truncated }),
            ...(status.size === undefined ? {} : { size: status.size }),
            ...(status.attempts ? { attempts: status.attempts } : {}),
            ...(status.last_error ? { last_error: status.last_error } : {}),
          }
        : { status: current.status === 'active' ? 'recording' : 'unknown' };
    }
    return { ...current, recording } as SessionView;
  }

  app.get(
    '/v1/sessions',
    {
      config: { permission: { resource: 'sessions', verb: 'list' } },
      schema: {
        tags,
        summary: 'List sessions, newest first (your own; everyone’s if you may read recordings)',
        querystring: SessionQuery,
        response: responses({ 200: listResponse('sessions', Session) }),
      },
    },
    async (request) => {
      const q = request.query;
      const p = authenticatedContext(request).principal;
      const matches = (s: SessionRecord) =>
        visible(p, s) &&
        (q.status === undefined || s.status === q.status) &&
        (q.principal === undefined || s.principal.id === q.principal || s.principal.name === q.principal) &&
        (q.server === undefined || s.resource.id === q.server || s.resource.name === q.server) &&
        (q.login === undefined || s.login === q.login) &&
        (q.type === undefined || s.type === q.type);
      const all = sessions.list().filter(matches).reverse();
      const { items, pagination } = page(all, q);
      return { sessions: await Promise.all(items.map(view)), pagination };
    },
  );

  app.get(
    '/v1/sessions/:id',
    {
      config: { permission: { resource: 'sessions', verb: 'read' } },
      schema: {
        tags,
        summary: 'Get a session (live byte counters while it runs)',
        params: SessionParams,
        response: responses({ 200: Session }),
      },
    },
    async (request) => view(findVisible(authenticatedContext(request).principal, request.params.id)),
  );

  app.delete(
    '/v1/sessions/:id',
    {
      config: { permission: { resource: 'sessions', verb: 'delete' }, grants: [] },
      schema: {
        tags,
        summary: 'Terminate a live session: the user sees a message, the recording is closed properly',
        params: SessionParams,
        response: responses({ 200: Session }),
      },
    },
    async (request) => {
      const ctx = authenticatedContext(request);
      const record = findVisible(ctx.principal, request.params.id);
      if (record.status !== 'active') throw conflict(`session ${record.id} has already ${record.status}`);
      const reason = `terminated by ${ctx.principal.name}`;
      const terminated = await sessions.terminate(record.id, reason);
      if (terminated?.status !== 'terminated' || terminated.end_reason !== reason) {
        throw conflict(`session ${record.id} ended before it could be terminated`);
      }
      await audit.record({
        type: 'session.terminated',
        actor: actorOf(ctx),
        target: record.resource,
        session_id: record.id,
        ...eventContext(ctx),
        data: { principal: record.principal, login: record.login },
      });
      return view(terminated);
    },
  );

  app.post(
    '/v1/sessions',
    {
      config: { permission: { resource: 'sessions', verb: 'create' }, grants: ['self'] },
      schema: {
        tags,
        summary: 'Prepare an SSH session: where to connect, as whom, and a one-time ticket (60 s)',
        body: TicketRequest,
        response: responses({ 201: Ticket }),
      },
    },
    async (request, reply) => {
      const ctx = authenticatedContext(request);
      const p = ctx.principal;
      const { login } = request.body;
      const byId = request.body.server.startsWith('srv_')
        ? deps.state.get<{ kind: string; name: string }>(keys.resource(request.body.server))?.value
        : undefined;
      const serverName = byId?.kind === 'server' ? byId.name : request.body.server;
      const decision = deps.sshAccess.authorize({ ...p, method: 'token' }, serverName, login);
      if (!decision.allowed) {
        if (!decision.server) throw notFound('server', request.body.server);
        throw forbidden(decision.reason);
      }
      const endpoint = deps.sshEndpoint();
      if (!endpoint) throw new GatehouseError('unavailable', 'this instance runs no SSH proxy (roles: proxy)');
      const server = decision.server;
      const { ticket, expiresAt } = await deps.tickets.issue({
        principal: { kind: p.kind, id: p.id },
        server_id: server.id,
        login,
        // Redeeming it must act exactly as this caller does now: same roles, same user acted for.
        ...scopeOf(p),
      });
      await audit.record({
        type: 'access.allowed',
        actor: actorOf(ctx),
        target: { kind: 'server', id: server.id, name: server.name },
        ...eventContext(ctx),
        data: { login, via: 'ticket' },
      });
      const username = `${login}@${server.name}`;
      const portArg = endpoint.port === 22 ? '' : `-p ${endpoint.port} `;
      reply.code(201);
      return {
        ticket,
        expires_at: new Date(expiresAt).toISOString(),
        expires_in: Math.round(TICKET_TTL_MS / 1000),
        login,
        server: { kind: 'server', id: server.id, name: server.name },
        proxy: endpoint,
        ssh_username: username,
        ssh_command: `ssh ${portArg}-l '${username}' ${endpoint.host}`,
      };
    },
  );

  app.get(
    '/v1/sessions/:id/recording',
    {
      config: { permission: { resource: 'recordings', verb: 'read' } },
      schema: {
        tags,
        summary: 'Download the recording (asciicast v2, or plain text with ?format=text)',
        params: SessionParams,
        querystring: RecordingQuery,
        response: responses({ 200: Type.String({ description: 'application/x-asciicast or text/plain' }) }),
      },
    },
    async (request, reply) => {
      const ctx = authenticatedContext(request);
      const record = findVisible(ctx.principal, request.params.id);
      if (!record.recorded) {
        throw notFound('recording of session', record.id);
      }
      if (record.status === 'active' || sessions.isLive(record.id)) {
        throw new GatehouseError('recording_not_ready', `session ${record.id} is still running`);
      }
      const status = await recordings.status(record.id);
      if (status && status.state !== 'uploaded') {
        throw new GatehouseError(
          'recording_not_ready',
          `the recording of ${record.id} is ${status.state === 'upload_failed' ? 'waiting for an upload retry' : 'being uploaded'}; try again shortly`,
          { headers: { 'retry-after': '5' } },
        );
      }
      const text = request.query.format === 'text';
      const body = text ? await recordings.openText(record.id) : await recordings.openRecording(record.id);
      if (!body) {
        throw new GatehouseError('recording_not_ready', `the recording of ${record.id} is not in storage yet`, {
          headers: { 'retry-after': '5' },
        });
      }
      await audit.record({
        type: 'recording.read',
        actor: actorOf(ctx),
        target: record.resource,
        session_id: record.id,
        ...eventContext(ctx),
        data: { format: text ? 'text' : 'asciicast' },
      });
      const filename = `${record.id}.${text ? 'txt' : 'cast'}`;
      return reply
        .type(text ? 'text/plain; charset=utf-8' : 'application/x-asciicast')
        .header('content-disposition', `attachment; filename="${filename}"`)
        .send((text ? Readable.from(body as AsyncIterable<string>) : body) as never);
    },
  );
}
