// Launching an app: the console (or any client with a bearer token) asks for a one-time URL into an
// app the caller may reach; opening it in a browser lands on the app with an app session.
import type { Apps } from '../../apps/apps.js';
import type { App } from '../app-types.js';
import { declareRoutes } from '../declare-routes.js';
import { authenticatedContext } from '../request-context.js';
import { AppLaunch, AppLaunchRequest } from './apps.schema.js';

export function appRoutes(app: App, deps: { apps: Apps }): void {
  const route = declareRoutes(app, { tags: ['apps'] });
  route.post(
    '/v1/apps/launch',
    {
      // Reaching an app is decided by the roles' resource selectors (as for SSH and databases), and
      // the code stands on the caller's own login: it hands out nothing beyond the caller's rights.
      permission: 'authenticated',
      grants: ['self'],
      noStore: true,
      summary:
        'A one-time URL (60 s) into an app you may reach: opened in a browser, it starts an app session on the app host (docs/apps.md)',
      body: AppLaunchRequest,
      200: AppLaunch,
    },
    async (request) => {
      const launched = await deps.apps.launches.launch(authenticatedContext(request), request.body.app, {
        state: request.body.state,
        ...(request.body.path !== undefined ? { path: request.body.path } : {}),
      });
      return {
        url: launched.url,
        expires_at: launched.expires_at,
        app: { kind: 'app' as const, id: launched.app.id, name: launched.app.name },
      };
    },
  );
}
