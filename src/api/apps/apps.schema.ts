import { Type } from '@sinclair/typebox';
import { Name, PLAIN_TEXT_PATTERN, Timestamp } from '../../lib/shapes.js';

export const AppLaunchRequest = Type.Object(
  {
    app: Name,
    state: Type.String({
      pattern: '^[A-Za-z0-9_-]{22,64}$',
      description:
        'The state the app host put in the launch link (the console passes it on): only the browser holding it can use the URL',
    }),
    path: Type.Optional(
      Type.String({
        maxLength: 2048,
        pattern: PLAIN_TEXT_PATTERN,
        description: 'Where on the app to land (a path starting with a single /, with its query); default /',
      }),
    ),
  },
  { additionalProperties: false },
);

export const AppLaunch = Type.Object(
  {
    url: Type.String({ description: "The app host's callback with the one-time code: open it in the browser" }),
    expires_at: Timestamp,
    app: Type.Object({ kind: Type.Literal('app'), id: Type.String(), name: Name }, { additionalProperties: false }),
  },
  { additionalProperties: false },
);
