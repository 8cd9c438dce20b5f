// Sessions brokered by the proxy. The store is real (backend prefix sessions/); it fills once the
// SSH proxy records sessions.
import { Type } from '@sinclair/typebox';
import { keys } from '../../auth/records.js';
import type { StateStore } from '../../backend/state.js';
import { idPattern } from '../../lib/ids.js';
import type { App } from '../app-types.js';
import { notFound } from '../errors.js';
import { listQuery, listResponse, page, responses, Timestamp } from '../schemas.js';

const tags = ['sessions'];

export const Session = Type.Object(
  {
    id: Type.String({ pattern: idPattern('session') }),
    kind: Type.String(),
    principal: Type.Object({ kind: Type.String(), id: Type.String(), name: Type.String() }),
    resource: Type.Object({ kind: Type.String(), id: Type.String(), name: Type.String() }),
    login: Type.String(),
    status: Type.Union([Type.Literal('active'), Type.Literal('ended'), Type.Literal('terminated')]),
    started_at: Timestamp,
    ended_at: Type.Union([Timestamp, Type.Null()]),
  },
  { additionalProperties: false },
);
type SessionRecord = typeof Session.static;

const SessionQuery = listQuery({
  status: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('ended'), Type.Literal('terminated')])),
});
const SessionParams = Type.Object(
  { id: Type.String({ pattern: idPattern('session'), maxLength: 40 }) },
  { additionalProperties: false },
);

export function sessionRoutes(app: App, deps: { state: StateStore }): void {
  app.get(
    '/v1/sessions',
    {
      config: { permission: { resource: 'sessions', verb: 'list' } },
      schema: {
        tags,
        summary: 'List sessions, newest first',
        querystring: SessionQuery,
        response: responses({ 200: listResponse('sessions', Session) }),
      },
    },
    async (request) => {
      const q = request.query;
      const all = deps.state
        .list<SessionRecord>('sessions/')
        .map((i) => i.value)
        .filter((s) => q.status === undefined || s.status === q.status)
        .reverse();
      const { items, pagination } = page(all, q);
      return { sessions: items, pagination };
    },
  );

  app.get(
    '/v1/sessions/:id/recording',
    {
      config: { permission: { resource: 'recordings', verb: 'read' } },
      schema: {
        tags,
        summary: 'Get the recording of a session (asciicast v2)',
        params: SessionParams,
        response: responses({ 200: Type.String({ description: 'application/x-asciicast' }) }),
      },
    },
    async (request) => {
      // Recordings arrive with the SSH proxy; until then no session exists to have one.
      if (!deps.state.get(keys.session(request.params.id))) throw notFound('session', request.params.id);
      throw notFound('recording of session', request.params.id);
    },
  );
}
