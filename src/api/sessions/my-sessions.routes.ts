// The signed-in person's own sessions, under /v1/users/me/sessions: what a profile page lists and
// ends without sessions:list or sessions:delete, which are an admin's. Only sessions whose principal
// is the caller, even for an auditor who may read everyone's on /v1/sessions; another's is a 404.
import { Type } from '@sinclair/typebox';
import { page } from '../../lib/paging.js';
import type { SessionRecord } from '../../sessions/session-registry.js';
import type { SessionService } from '../../sessions/session-service.js';
import type { App } from '../app-types.js';
import { declareRoutes } from '../declare-routes.js';
import { listQuery, listResponse } from '../schemas.js';
import { me } from '../users/me.routes.js';
import { Session, SessionParams, type SessionView, Status, TerminatedSession } from './sessions.schema.js';

const MySessionQuery = listQuery({ status: Type.Optional(Status) });

export function mySessionRoutes(app: App, service: SessionService): void {
  const view = async (record: SessionRecord) => (await service.view(record)) as SessionView;
  const route = declareRoutes(app, { tags: ['users'] });

  route.get(
    '/v1/users/me/sessions',
    {
      permission: 'authenticated',
      summary: 'Your sessions (SSH, database, Kubernetes, apps), newest first: only your own',
      querystring: MySessionQuery,
      200: listResponse('sessions', Session),
    },
    async (request) => {
      const { items, pagination } = page(service.listOwn(me(request).principal, request.query), request.query);
      return { sessions: await Promise.all(items.map(view)), pagination };
    },
  );

  route.delete(
    '/v1/users/me/sessions/:id',
    {
      permission: 'authenticated',
      grants: [],
      summary: 'End a live session of yours, on whichever proxy holds it (another person’s is not found)',
      params: SessionParams,
      200: TerminatedSession,
    },
    async (request) => {
      const { confirmed_ended, ...record } = await service.terminateOwn(me(request), request.params.id);
      return { ...(await view(record)), confirmed_ended };
    },
  );
}
